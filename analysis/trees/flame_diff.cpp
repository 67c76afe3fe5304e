#include "analysis/trees/flame_diff.h"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <array>
#include <limits>
#include <map>

#include "analysis/stats/multiple_tests.h"
#include "analysis/stats/stats.h"
#include "common/sole_owner.h"

#include <fmt/format.h>

namespace pathscope::analysis {

NoiseRule::NoiseRule(const FlameTree& base, const FlameTree& cand, const DiffOptions& o)
    : opt(o),
      by_trials(base.counted_trials().size() >= 2 && cand.counted_trials().size() >= 2),
      base_trials(base.trials()), cand_trials(cand.trials()),
      whole(std::max(base.mean_scaled_total(0), cand.mean_scaled_total(0))) {}

std::string NoiseRule::method() const {
    if (by_trials)
        return fmt::format(
            "within noise: Student's t on {} vs {} trials finds no difference at {:.1f}% "
            "confidence, the false discovery rate controlled over every frame compared "
            "(Benjamini-Hochberg)",
            base_trials, cand_trials, opt.confidence);
    return fmt::format(
        "within noise (no trials to compare): change under {:g}% of the node or under {:g}% of "
        "the whole",
        opt.threshold * 100, opt.min_share * 100);
}

bool NoiseRule::operator()(const Summary& b, const Summary& c) const {
    if (by_trials) return !student_t(b, c, opt.confidence).significant;
    const double delta = std::fabs(c.mean - b.mean);
    return delta < opt.threshold * std::fabs(b.mean) || delta < opt.min_share * whole;
}

double NoiseRule::p_value(const Summary& b, const Summary& c) const {
    if (!by_trials) return 1;
    const TTest t = student_t(b, c, opt.confidence);
    return t.possible ? t.p : 1;
}

std::string change_word(const DiffNode& n) {
    if (!n.unjudged.empty()) return n.unjudged;
    return n.noise ? "within noise" : "changed";
}

void NoiseRule::decide(const std::vector<double>& p, const std::vector<bool*>& noise) const {
    if (!by_trials) return;
    const std::vector<double> q = bh_adjust(p);
    const double alpha = 1 - opt.confidence / 100;
    for (size_t i = 0; i < q.size() && i < noise.size(); ++i) *noise[i] = !(q[i] <= alpha);
}

namespace {

struct Differ {
    Differ(const FlameTree& b, const FlameTree& c, const DiffOptions& opt)
        : base(b), cand(c), noise(b, c, opt), base_trials(b.counted_trials()),
          cand_trials(c.counted_trials()) {}
    const FlameTree& base;
    const FlameTree& cand;
    NoiseRule noise;
    FlameDiff out;
    // Asked once, not per node: a large profile's tree has a million nodes.
    const std::vector<int> base_trials, cand_trials;
    std::vector<double> vb, vc;  ///< a node's values, reused from node to node

    // The node's per-trial values over the counted trials: their mean is
    // the run's figure (FlameTree::mean_scaled_total).
    static void values(const FlameTree& t, const std::vector<int>& trials, int node,
                       std::vector<double>& v) {
        v.clear();
        for (int k : trials) v.push_back(node >= 0 ? t.scaled_total(node, k) : 0.0);
    }

    /// Sets n's values: base node b against cand node c (-1: none).
    void fill(DiffNode& n, int b, int c) {
        // A tree against itself (a run's own view, a million nodes in a
        // long profile) has one side to summarize.
        const bool itself = &base == &cand && b == c;
        values(base, base_trials, b, vb);
        if (!itself) values(cand, cand_trials, c, vc);
        const Summary sb = summarize(vb), sc = itself ? sb : summarize(vc);
        n.base = sb.mean;
        n.cand = sc.mean;
        n.delta = n.cand - n.base;
        n.relative = n.base != 0 ? n.delta / n.base : (n.delta != 0 ? INFINITY : 0);
        n.noise = noise(sb, sc);
        n.p = noise.p_value(sb, sc);
    }

    int add(const std::string& name, int parent, int b, int c) {
        DiffNode n;
        n.name = name;
        n.parent = parent;
        fill(n, b, c);
        const int index = static_cast<int>(out.nodes.size());
        out.nodes.push_back(std::move(n));
        if (parent >= 0) out.nodes[parent].children.push_back(index);
        return index;
    }

    void walk(int here, int b, int c) {
        out.nodes[static_cast<size_t>(here)].children.reserve(
            (b >= 0 ? base.children(b).size() : 0) +
            (c >= 0 && &base != &cand ? cand.children(c).size() : 0));
        if (b >= 0)
            for (int kb : base.children(b)) {
                // A tree against itself (a run's own view) needs no search.
                const int kc = &base == &cand ? kb : c >= 0 ? cand.child(c, base.name(kb)) : -1;
                walk(add(base.name(kb), here, kb, kc), kb, kc);
            }
        if (c >= 0 && &base != &cand)
            for (int kc : cand.children(c)) {
                if (b >= 0 && base.child(b, cand.name(kc)) >= 0) continue;  // done above
                walk(add(cand.name(kc), here, -1, kc), -1, kc);
            }
    }
};

}  // namespace

std::string FlameDiff::path(size_t i) const {
    std::string out;
    for (int n = static_cast<int>(i); n > 0; n = nodes[n].parent)
        out = nodes[n].name + (out.empty() ? "" : ";" + out);
    return out;
}

namespace {

/// Which of `d`'s nodes changed within noise, decided over all of them at
/// once (their false discovery rate is controlled together).
void decide_noise(const NoiseRule& rule, FlameDiff& d) {
    std::vector<double> p;
    std::vector<bool*> noise;
    p.reserve(d.nodes.size());
    noise.reserve(d.nodes.size());
    for (auto& n : d.nodes) {
        p.push_back(n.p);
        noise.push_back(&n.noise);
    }
    rule.decide(p, noise);
}

}  // namespace

FlameDiff diff_trees(const FlameTree& base, const FlameTree& cand, const DiffOptions& opt) {
    Differ d(base, cand, opt);
    d.out.nodes.reserve(std::max(base.size(), cand.size()));
    d.out.method = d.noise.method();
    d.add("all", -1, 0, 0);
    d.walk(0, 0, 0);
    decide_noise(d.noise, d.out);
    return std::move(d.out);
}

void GrowingSelfDiff::reset() { kept_ = {}; }

std::shared_ptr<const FlameDiff> GrowingSelfDiff::update(const FlameTree& t) {
    // The older kept diff is grown when nobody else holds it any more (the
    // window lets a diff go once it shows a newer one); else one is made.
    newest_ ^= 1;
    Kept& k = kept_[newest_];
    if (!sole_owner(k.diff)) k = Kept{std::make_shared<FlameDiff>(), {}};
    FlameDiff& out = *k.diff;
    if (k.node_of.empty()) {
        out.nodes.assign(1, DiffNode{});
        out.nodes[0].name = "all";
        k.node_of.push_back(0);
    }
    out.nodes.reserve(t.size());
    for (size_t i = k.node_of.size(); i < t.size(); ++i) {  // the nodes new since
        const int at = static_cast<int>(out.nodes.size());
        const int parent = k.node_of[static_cast<size_t>(t.parent(i))];
        out.nodes.emplace_back();
        out.nodes.back().name = t.name(i);
        out.nodes.back().parent = parent;
        out.nodes[static_cast<size_t>(parent)].children.push_back(at);
        k.node_of.push_back(at);
    }
    Differ d(t, t, {});
    out.method = d.noise.method();
    for (size_t i = 0; i < t.size(); ++i) {
        const int n = static_cast<int>(i);
        d.fill(out.nodes[static_cast<size_t>(k.node_of[i])], n, n);
    }
    decide_noise(d.noise, out);
    return k.diff;
}

}  // namespace pathscope::analysis

namespace pathscope::analysis {

std::vector<SelfShare> hottest_functions(const FlameTree& base, const FlameTree& cand,
                                         size_t rows, const DiffOptions& opt) {
    // name -> per-trial scaled self weights, [0] base, [1] cand
    std::map<std::string, std::array<std::vector<double>, 2>> per_name;
    const FlameTree* trees[2] = {&base, &cand};
    for (int side = 0; side < 2; ++side) {
        const FlameTree& t = *trees[side];
        const std::vector<int> counted = t.counted_trials();
        const size_t k_count = counted.size();
        // Summed by name id first (a million nodes, a few thousand names),
        // each name's nodes in the order of the tree as before.
        std::vector<double> sums(t.name_count() * k_count, 0.0);
        std::vector<bool> seen(t.name_count(), false);
        for (size_t i = 1; i < t.size(); ++i) {
            const uint32_t id = t.name_id(i);
            seen[id] = true;
            for (size_t k = 0; k < k_count; ++k) sums[id * k_count + k] += t.scaled_self(i, counted[k]);
        }
        for (uint32_t id = 0; id < t.name_count(); ++id)
            if (seen[id])
                per_name[t.name_of(id)][side].assign(sums.begin() + static_cast<std::ptrdiff_t>(id * k_count),
                                                     sums.begin() + static_cast<std::ptrdiff_t>((id + 1) * k_count));
    }
    const NoiseRule noise(base, cand, opt);
    std::vector<SelfShare> out;
    std::vector<double> p;
    for (auto& [name, sides] : per_name) {
        for (int side = 0; side < 2; ++side)
            sides[side].resize(trees[side]->counted_trials().size(), 0.0);
        const Summary b = summarize(sides[0]), c = summarize(sides[1]);
        SelfShare s{name, b.mean, c.mean, true};
        if (s.base == 0 && s.cand == 0) continue;
        s.noise = noise(b, c);
        p.push_back(noise.p_value(b, c));
        out.push_back(std::move(s));
    }
    std::vector<bool*> flags;
    for (auto& s : out) flags.push_back(&s.noise);
    noise.decide(p, flags);
    std::sort(out.begin(), out.end(), [](const SelfShare& a, const SelfShare& b) {
        return std::max(a.base, a.cand) > std::max(b.base, b.cand);
    });
    if (out.size() > rows) out.resize(rows);
    return out;
}

}  // namespace pathscope::analysis
