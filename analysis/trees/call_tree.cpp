#include "analysis/trees/call_tree.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/trees/flame_layout.h"
#include "analysis/stats/stats.h"

namespace pathscope::analysis {

CostColumns::CostColumns(const FlameTree& run) : sides_(1), unit_(run.unit()) {
    counted_[0] = run.counted_trials();
    width_ = 1 + counted_[0].size();
    whole_[0] = run.mean_scaled_total(0);
}

CostColumns::CostColumns(const FlameTree& base, const FlameTree& cand, const DiffOptions& opt)
    : sides_(2), unit_(base.unit()) {
    counted_[0] = base.counted_trials();
    counted_[1] = cand.counted_trials();
    first_[1] = 1 + counted_[0].size();
    width_ = first_[1] + 1 + counted_[1].size();
    whole_[0] = base.mean_scaled_total(0);
    whole_[1] = cand.mean_scaled_total(0);
    noise_.emplace(base, cand, opt);
    method_ = noise_->method();
}

void CostColumns::add_stack(const FlameTree& t, size_t node, int side, double* out) const {
    double* v = out + first_[side];
    v[0] += t.self(node);
    const std::vector<int>& trials = counted_[side];
    for (size_t k = 0; k < trials.size(); ++k) v[1 + k] += t.scaled_self(node, trials[k]);
}

double CostColumns::value(const double* v, int side) const {
    const size_t n = counted_[side].size();
    if (n == 0) return 0;
    double s = 0;
    for (size_t k = 0; k < n; ++k) s += v[first_[side] + 1 + k];
    return s / static_cast<double>(n);
}

bool CostColumns::within_noise(const double* v) const {
    if (!noise_) return true;
    const double* b = v + first_[0] + 1;
    const double* c = v + first_[1] + 1;
    const Summary sb = summarize(std::vector<double>(b, b + counted_[0].size()));
    const Summary sc = summarize(std::vector<double>(c, c + counted_[1].size()));
    return (*noise_)(sb, sc);
}

namespace {

// (parent node << 32 | name id) -> child node, open addressing with linear
// probing: the inner loops of the builders look children up by integers only.
class ChildIndex {
  public:
    explicit ChildIndex(size_t expected) {
        size_t cap = 64;
        while (cap < expected * 2) cap <<= 1;
        keys_.assign(cap, kEmpty);
        values_.assign(cap, -1);
    }
    /// The node under `key`, or `fresh` stored there (then *inserted is set).
    int find_or_insert(uint64_t key, int fresh, bool* inserted) {
        if ((used_ + 1) * 2 > keys_.size()) grow();
        size_t mask = keys_.size() - 1;
        for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
            if (keys_[i] == key) {
                *inserted = false;
                return values_[i];
            }
            if (keys_[i] == kEmpty) {
                keys_[i] = key;
                values_[i] = fresh;
                ++used_;
                *inserted = true;
                return fresh;
            }
        }
    }

  private:
    static constexpr uint64_t kEmpty = ~uint64_t{0};
    static uint64_t mix(uint64_t k) {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        return k;
    }
    void grow() {
        std::vector<uint64_t> keys(keys_.size() * 2, kEmpty);
        std::vector<int> values(keys.size(), -1);
        const size_t mask = keys.size() - 1;
        for (size_t j = 0; j < keys_.size(); ++j) {
            if (keys_[j] == kEmpty) continue;
            size_t i = mix(keys_[j]) & mask;
            while (keys[i] != kEmpty) i = (i + 1) & mask;
            keys[i] = keys_[j];
            values[i] = values_[j];
        }
        keys_.swap(keys);
        values_.swap(values);
    }
    std::vector<uint64_t> keys_;
    std::vector<int> values_;
    size_t used_ = 0;
};

void add_to(double* out, const double* v, size_t width) {
    for (size_t k = 0; k < width; ++k) out[k] += v[k];
}

bool has_weight(const double* v, size_t width) {
    for (size_t k = 0; k < width; ++k)
        if (v[k] != 0) return true;
    return false;
}

}  // namespace

// Grows a CallTree node by node; children are found by (parent, name id).
class CallTreeBuilder {
  public:
    /// `with_self`: the tree keeps self costs (top-down). `expected`: about
    /// how many nodes it will have (reserved, so the arrays grow in place).
    CallTreeBuilder(CallTree& t, size_t expected, bool with_self)
        : t_(t), width_(t.columns_.width()), with_self_(with_self), index_(expected) {
        t_.name_.reserve(expected);
        t_.parent_.reserve(expected);
        t_.total_.reserve(expected * width_);
        t_.name_.push_back(0);
        t_.parent_.push_back(-1);
        t_.total_.assign(width_, 0.0);
        if (with_self_) {
            t_.self_.reserve(expected * width_);
            t_.self_.assign(width_, 0.0);
        } else {
            t_.zeros_.assign(width_, 0.0);
        }
    }
    int child(int parent, uint32_t name) {
        bool inserted = false;
        const int fresh = static_cast<int>(t_.parent_.size());
        const int n = index_.find_or_insert((static_cast<uint64_t>(parent) << 32) | name, fresh,
                                            &inserted);
        if (inserted) {
            t_.name_.push_back(name);
            t_.parent_.push_back(parent);
            if (with_self_) t_.self_.resize(t_.self_.size() + width_, 0.0);
            t_.total_.resize(t_.total_.size() + width_, 0.0);
        }
        return n;
    }
    double* self(int n) { return &t_.self_[static_cast<size_t>(n) * width_]; }  // with_self only
    double* total(int n) { return &t_.total_[static_cast<size_t>(n) * width_]; }

    // Top-down: each side's nodes merged by call path; names interned once
    // per distinct name, so the loop over nodes maps ids, never strings.
    void merge(const std::vector<const FlameTree*>& sides) {
        auto names = std::make_shared<std::vector<std::string>>(1, "all");
        std::unordered_map<std::string, uint32_t> ids{{"all", 0}};
        for (size_t s = 0; s < sides.size(); ++s) {
            const FlameTree& tree = *sides[s];
            std::vector<uint32_t> name_map(tree.name_count());
            for (uint32_t id = 0; id < tree.name_count(); ++id) {
                auto [it, fresh] = ids.try_emplace(tree.name_of(id), static_cast<uint32_t>(names->size()));
                if (fresh) names->push_back(tree.name_of(id));
                name_map[id] = it->second;
            }
            std::vector<int> node_of(tree.size(), 0);
            for (size_t i = 1; i < tree.size(); ++i) {
                const int n = child(node_of[static_cast<size_t>(tree.parent(i))], name_map[tree.name_id(i)]);
                node_of[i] = n;
                t_.columns_.add_stack(tree, i, static_cast<int>(s), self(n));
            }
        }
        t_.names_ = std::move(names);
        // Children come after their parents: one backward pass sums subtrees.
        t_.total_ = t_.self_;
        for (size_t i = t_.size(); i-- > 1;)
            add_to(total(t_.parent_[i]), total(static_cast<int>(i)), width_);
    }

    // Bottom-up: every stack with weight of its own, inverted: its sampled
    // function first, then its callers out to the root's child.
    void invert(const CallTree& td) {
        t_.names_ = td.names_;
        for (size_t i = 1; i < td.size(); ++i) {
            const double* v = td.self(i);
            if (!has_weight(v, width_)) continue;
            add_to(total(0), v, width_);
            int here = 0;
            for (int n = static_cast<int>(i); n > 0; n = td.parent(static_cast<size_t>(n))) {
                here = child(here, td.name_id(static_cast<size_t>(n)));
                add_to(total(here), v, width_);
            }
        }
    }

  private:
    CallTree& t_;
    size_t width_;
    bool with_self_;
    ChildIndex index_;
};

CallTree CallTree::top_down(const FlameTree& run) {
    CallTree t(Kind::top_down, CostColumns(run));
    CallTreeBuilder(t, run.size(), true).merge({&run});
    t.link_children();
    return t;
}

CallTree CallTree::top_down(const FlameTree& base, const FlameTree& cand, const DiffOptions& opt) {
    CallTree t(Kind::top_down, CostColumns(base, cand, opt));
    CallTreeBuilder(t, base.size() + cand.size(), true).merge({&base, &cand});
    t.link_children();
    return t;
}

CallTree CallTree::bottom_up(const CallTree& top_down) {
    CallTree t(Kind::bottom_up, top_down.columns_);
    // At most one node per frame of every stack with weight of its own;
    // stacks share their leaf-most frames often, so reserve half of that.
    std::vector<uint32_t> depth(top_down.size(), 0);
    size_t frames = 0;
    for (size_t i = 1; i < top_down.size(); ++i) {
        depth[i] = depth[static_cast<size_t>(top_down.parent(i))] + 1;
        if (has_weight(top_down.self(i), top_down.columns_.width())) frames += depth[i];
    }
    CallTreeBuilder(t, std::max<size_t>(64, frames / 2), false).invert(top_down);
    t.link_children();
    return t;
}

void CallTree::link_children() {
    const size_t n = size();
    child_start_.assign(n + 1, 0);
    for (size_t i = 1; i < n; ++i) ++child_start_[static_cast<size_t>(parent_[i]) + 1];
    for (size_t i = 0; i < n; ++i) child_start_[i + 1] += child_start_[i];
    children_.assign(n > 0 ? n - 1 : 0, 0);
    row_.assign(n, 0);
    std::vector<uint32_t> next(child_start_.begin(), child_start_.end() - 1);
    for (size_t i = 1; i < n; ++i) {
        const size_t p = static_cast<size_t>(parent_[i]);
        row_[i] = next[p] - child_start_[p];
        children_[next[p]++] = static_cast<int>(i);
    }
}

int CallTree::find(const std::vector<std::string>& path) const {
    int here = 0;
    for (const auto& step : path) {
        int found = -1;
        for (size_t k = 0; k < child_count(static_cast<size_t>(here)) && found < 0; ++k)
            if (name(static_cast<size_t>(child(static_cast<size_t>(here), k))) == step)
                found = child(static_cast<size_t>(here), k);
        if (found < 0) return -1;
        here = found;
    }
    return here;
}

std::vector<bool> CallTree::match_names(const std::string& pattern, bool regex) const {
    std::vector<bool> out(name_count(), false);
    if (pattern.empty()) return out;
    const NameMatcher matches(pattern, regex);
    for (size_t id = 1; id < out.size(); ++id) out[id] = matches((*names_)[id]);
    return out;
}

CallerCallee::CallerCallee(std::shared_ptr<const CallTree> top_down) : tree_(std::move(top_down)) {
    const CallTree& t = *tree_;
    const size_t w = columns().width();
    self_.assign(t.name_count() * w, 0.0);
    inclusive_.assign(t.name_count() * w, 0.0);
    // A function recursing within one stack is counted once in its
    // inclusive cost: `seen` holds the last stack each name was counted for.
    std::vector<int> seen(t.name_count(), -1);
    for (size_t i = 1; i < t.size(); ++i) {
        const double* v = t.self(i);
        if (!has_weight(v, w)) continue;
        stacks_.push_back(static_cast<int>(i));
        add_to(&self_[t.name_id(i) * w], v, w);
        for (int n = static_cast<int>(i); n > 0; n = t.parent(static_cast<size_t>(n))) {
            const uint32_t id = t.name_id(static_cast<size_t>(n));
            if (seen[id] == static_cast<int>(i)) continue;
            seen[id] = static_cast<int>(i);
            add_to(&inclusive_[id * w], v, w);
        }
    }
    for (uint32_t id = 1; id < t.name_count(); ++id) functions_.push_back(id);
}

int64_t CallerCallee::find(const std::string& name) const {
    for (uint32_t id : functions_)
        if (tree_->name_of(id) == name) return id;
    return -1;
}

CallerCallee::Neighbours CallerCallee::neighbours(uint32_t name) const {
    const CallTree& t = *tree_;
    const size_t w = columns().width();
    Neighbours out;
    // Slot of each name in a Links, and the last stack that counted it.
    struct Side {
        Links* links;
        std::vector<int> slot, seen;
        void add(uint32_t id, int stack, const double* v, size_t width) {
            if (seen[id] == stack) return;
            seen[id] = stack;
            if (slot[id] < 0) {
                slot[id] = static_cast<int>(links->names.size());
                links->names.push_back(id);
                links->costs.resize(links->costs.size() + width, 0.0);
            }
            add_to(&links->costs[static_cast<size_t>(slot[id]) * width], v, width);
        }
    };
    const size_t n_names = t.name_count();
    Side callers{&out.callers, std::vector<int>(n_names, -1), std::vector<int>(n_names, -1)};
    Side callees{&out.callees, std::vector<int>(n_names, -1), std::vector<int>(n_names, -1)};
    for (int stack : stacks_) {
        const double* v = t.self(static_cast<size_t>(stack));
        int below = -1;  // the name called by the frame being looked at
        for (int n = stack; n > 0; n = t.parent(static_cast<size_t>(n))) {
            const uint32_t id = t.name_id(static_cast<size_t>(n));
            if (id == name) {
                if (below >= 0) callees.add(static_cast<uint32_t>(below), stack, v, w);
                const int p = t.parent(static_cast<size_t>(n));
                if (p > 0) callers.add(t.name_id(static_cast<size_t>(p)), stack, v, w);
            }
            below = static_cast<int>(id);
        }
    }
    return out;
}

CallViews build_call_views(const FlameTree& run) {
    CallViews v;
    auto td = std::make_shared<const CallTree>(CallTree::top_down(run));
    v.bottom_up = std::make_shared<const CallTree>(CallTree::bottom_up(*td));
    v.callers = std::make_shared<const CallerCallee>(td);
    v.top_down = std::move(td);
    return v;
}

CallViews build_call_views(const FlameTree& base, const FlameTree& cand, const DiffOptions& opt) {
    CallViews v;
    auto td = std::make_shared<const CallTree>(CallTree::top_down(base, cand, opt));
    v.bottom_up = std::make_shared<const CallTree>(CallTree::bottom_up(*td));
    v.callers = std::make_shared<const CallerCallee>(td);
    v.top_down = std::move(td);
    return v;
}

}  // namespace pathscope::analysis
