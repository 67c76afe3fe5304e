// Call trees of a known profile: exact top-down self and inclusive figures,
// the bottom-up tree's totals equal to the top-down's, a recursive function
// counted once in its inclusive cost, callers and callees, and a
// comparison's base, candidate, change and noise.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>

#include "analysis/trees/call_tree.h"

using namespace pathscope::analysis;

namespace {

// main;a;b 3   main;a 2   main;c;b 5   main;r;r;b 1   (11 samples)
FlameTree known_profile(double scale_b_under_c = 1) {
    FlameTree t(1, "samples");
    t.add({"main", "a", "b"}, 3);
    t.add({"main", "a"}, 2);
    t.add({"main", "c", "b"}, 5 * scale_b_under_c);
    t.add({"main", "r", "r", "b"}, 1);
    t.set_trial_scale(0, t.total(0));
    return t;
}

double samples(const CallTree& t, const double* v) { return t.columns().samples(v, 0); }

std::map<std::string, double> link_samples(const CallerCallee& cc, const CallerCallee::Links& l) {
    std::map<std::string, double> out;
    for (size_t k = 0; k < l.names.size(); ++k)
        out[cc.tree().name_of(l.names[k])] = cc.columns().samples(l.cost(k, cc.columns().width()), 0);
    return out;
}

}  // namespace

TEST(CallTree, TopDownHasExactSelfAndInclusive) {
    const FlameTree run = known_profile();
    const CallViews v = build_call_views(run);
    const CallTree& td = *v.top_down;
    EXPECT_EQ(td.kind(), CallTree::Kind::top_down);
    EXPECT_DOUBLE_EQ(samples(td, td.total(0)), 11);
    const int main = td.find({"main"}), a = td.find({"main", "a"}), ab = td.find({"main", "a", "b"});
    ASSERT_GT(main, 0);
    ASSERT_GT(ab, 0);
    EXPECT_DOUBLE_EQ(samples(td, td.total(main)), 11);
    EXPECT_DOUBLE_EQ(samples(td, td.self(main)), 0);
    EXPECT_DOUBLE_EQ(samples(td, td.total(a)), 5);
    EXPECT_DOUBLE_EQ(samples(td, td.self(a)), 2);
    EXPECT_DOUBLE_EQ(samples(td, td.self(ab)), 3);
    // Shares are the flame graph's: the same number FlameTree gives.
    EXPECT_DOUBLE_EQ(td.columns().share(td.total(a), 0), 5.0 / 11.0);
    EXPECT_DOUBLE_EQ(td.columns().value(td.total(a), 0),
                     run.mean_scaled_total(static_cast<size_t>(run.child(run.child(0, "main"), "a"))));
    // Children are laid out so that a node's row finds it again.
    for (size_t i = 1; i < td.size(); ++i)
        EXPECT_EQ(td.child(static_cast<size_t>(td.parent(i)), td.row(i)), static_cast<int>(i));
    EXPECT_EQ(td.child_count(static_cast<size_t>(main)), 3u);
}

TEST(CallTree, BottomUpTotalsEqualTopDownTotals) {
    const CallViews v = build_call_views(known_profile());
    const CallTree& bu = *v.bottom_up;
    const CallTree& td = *v.top_down;
    EXPECT_EQ(bu.kind(), CallTree::Kind::bottom_up);
    double roots = 0;
    for (size_t k = 0; k < bu.child_count(0); ++k) roots += samples(bu, bu.total(static_cast<size_t>(bu.child(0, k))));
    EXPECT_DOUBLE_EQ(roots, samples(td, td.total(0)));
    EXPECT_DOUBLE_EQ(samples(bu, bu.total(0)), samples(td, td.total(0)));
    // b was sampled running 9 times: from a 3, from c 5, from r 1 (whose
    // caller is r again, then main).
    EXPECT_DOUBLE_EQ(samples(bu, bu.total(static_cast<size_t>(bu.find({"b"})))), 9);
    EXPECT_DOUBLE_EQ(samples(bu, bu.total(static_cast<size_t>(bu.find({"b", "a"})))), 3);
    EXPECT_DOUBLE_EQ(samples(bu, bu.total(static_cast<size_t>(bu.find({"b", "c", "main"})))), 5);
    EXPECT_DOUBLE_EQ(samples(bu, bu.total(static_cast<size_t>(bu.find({"b", "r", "r", "main"})))), 1);
    EXPECT_DOUBLE_EQ(samples(bu, bu.total(static_cast<size_t>(bu.find({"a"})))), 2);
    EXPECT_EQ(bu.find({"main"}), -1);  // main never ran itself
    EXPECT_DOUBLE_EQ(samples(bu, bu.self(static_cast<size_t>(bu.find({"b", "c"})))), 0);  // kept none
}

TEST(CallTree, CallerCalleeCountsRecursionOnce) {
    const CallViews v = build_call_views(known_profile());
    const CallerCallee& cc = *v.callers;
    auto id = [&](const std::string& n) {
        const int64_t i = cc.find(n);
        EXPECT_GE(i, 0) << n;
        return static_cast<uint32_t>(i);
    };
    auto s = [&](const double* x) { return cc.columns().samples(x, 0); };
    EXPECT_DOUBLE_EQ(s(cc.self(id("b"))), 9);
    EXPECT_DOUBLE_EQ(s(cc.inclusive(id("b"))), 9);
    EXPECT_DOUBLE_EQ(s(cc.inclusive(id("main"))), 11);
    EXPECT_DOUBLE_EQ(s(cc.self(id("main"))), 0);
    EXPECT_DOUBLE_EQ(s(cc.inclusive(id("r"))), 1);  // main;r;r;b: once, not twice
    EXPECT_DOUBLE_EQ(s(cc.inclusive(id("a"))), 5);
    EXPECT_EQ(cc.find("nothing"), -1);

    const auto b = cc.neighbours(id("b"));
    EXPECT_EQ(link_samples(cc, b.callers), (std::map<std::string, double>{{"a", 3}, {"c", 5}, {"r", 1}}));
    EXPECT_TRUE(b.callees.names.empty());
    const auto r = cc.neighbours(id("r"));
    EXPECT_EQ(link_samples(cc, r.callers), (std::map<std::string, double>{{"main", 1}, {"r", 1}}));
    EXPECT_EQ(link_samples(cc, r.callees), (std::map<std::string, double>{{"b", 1}, {"r", 1}}));
    const auto m = cc.neighbours(id("main"));
    EXPECT_TRUE(m.callers.names.empty());
    EXPECT_EQ(link_samples(cc, m.callees),
              (std::map<std::string, double>{{"a", 5}, {"c", 5}, {"r", 1}}));
}

TEST(CallTree, SearchMatchesAsTheFlameGraphDoes) {
    const CallViews v = build_call_views(known_profile());
    const CallTree& td = *v.top_down;
    const std::vector<bool> m = td.match_names("MAI", false);
    for (uint32_t id = 0; id < td.name_count(); ++id) EXPECT_EQ(m[id], td.name_of(id) == "main");
    const std::vector<bool> re = td.match_names("^[ab]$", true);
    EXPECT_EQ(std::count(re.begin(), re.end(), true), 2);
    EXPECT_THROW(td.match_names("(", true), std::regex_error);
}

TEST(CallTree, ComparisonHasBaseCandidateChangeAndNoise) {
    // Three trials a side; c;b doubles in the candidate, a;b stays within noise.
    FlameTree base(3, "samples"), cand(3, "samples");
    const double jitter[3] = {0, 0.1, -0.1};
    for (int t = 0; t < 3; ++t) {
        base.add({"main", "a", "b"}, 30 + jitter[t], t);
        base.add({"main", "c", "b"}, 50 - jitter[t], t);
        cand.add({"main", "a", "b"}, 30 - jitter[t], t);
        cand.add({"main", "c", "b"}, 100 + jitter[t], t);
        cand.add({"main", "new"}, 5, t);
    }
    for (int t = 0; t < 3; ++t) {
        base.set_trial_scale(t, 1);
        cand.set_trial_scale(t, 1);
    }
    const CallViews v = build_call_views(base, cand);
    const CallTree& td = *v.top_down;
    const CostColumns& c = td.columns();
    ASSERT_TRUE(c.comparison());
    EXPECT_NE(c.noise_method().find("Student's t on 3 vs 3"), std::string::npos);
    const size_t cb = static_cast<size_t>(td.find({"main", "c", "b"}));
    const size_t ab = static_cast<size_t>(td.find({"main", "a", "b"}));
    const int fresh = td.find({"main", "new"});
    ASSERT_GT(fresh, 0);
    EXPECT_NEAR(c.value(td.total(cb), 0), 50, 1e-9);
    EXPECT_NEAR(c.value(td.total(cb), 1), 100, 1e-9);
    EXPECT_DOUBLE_EQ(c.samples(td.total(cb), 1), 300);
    EXPECT_FALSE(c.within_noise(td.total(cb)));
    EXPECT_TRUE(c.within_noise(td.total(ab)));
    EXPECT_NEAR(c.value(td.total(static_cast<size_t>(fresh)), 0), 0, 1e-12);
    EXPECT_NEAR(c.value(td.total(static_cast<size_t>(fresh)), 1), 5, 1e-12);
    // The same verdicts diff_trees gives the flame graph's nodes.
    const FlameDiff d = diff_trees(base, cand);
    for (size_t i = 1; i < d.nodes.size(); ++i) {
        std::vector<std::string> path;
        for (int n = static_cast<int>(i); n > 0; n = d.nodes[static_cast<size_t>(n)].parent)
            path.insert(path.begin(), d.nodes[static_cast<size_t>(n)].name);
        const int k = td.find(path);
        ASSERT_GT(k, 0) << d.path(i);
        EXPECT_NEAR(c.value(td.total(static_cast<size_t>(k)), 0), d.nodes[i].base, 1e-9);
        EXPECT_NEAR(c.value(td.total(static_cast<size_t>(k)), 1), d.nodes[i].cand, 1e-9);
        EXPECT_EQ(c.within_noise(td.total(static_cast<size_t>(k))), d.nodes[i].noise) << d.path(i);
    }
    // Bottom-up and caller/callee carry both sides too.
    const CallTree& bu = *v.bottom_up;
    EXPECT_NEAR(c.value(bu.total(static_cast<size_t>(bu.find({"b"}))), 1), 130, 1e-9);
    const CallerCallee& cc = *v.callers;
    EXPECT_NEAR(c.value(cc.inclusive(static_cast<uint32_t>(cc.find("b"))), 0), 80, 1e-9);
    EXPECT_NEAR(c.value(cc.self(static_cast<uint32_t>(cc.find("new"))), 1), 5, 1e-9);
}
