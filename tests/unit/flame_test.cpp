// Flame trees: folded and perf script input, round trips, the difference with
// noise marking, hottest functions; queue skew; the scenario line diff.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <random>
#include <sstream>

#include "capture/profile_text.h"
#include "analysis/verdicts/compare.h"
#include "analysis/trees/flame_diff.h"
#include "analysis/figures/metric_names.h"
#include "analysis/trees/flame_layout.h"
#include "analysis/trees/flame_tree.h"
#include "analysis/figures/queue_skew.h"
#include "analysis/render/report.h"

using namespace pathscope::analysis;
using namespace pathscope;

namespace {
FlameTree folded(const std::string& text) {
    std::istringstream in(text);
    return capture::parse_folded(in, "test.folded");
}
}  // namespace

TEST(Folded, RoundTripIsLossless) {
    // Sorted bytewise, one line a stack, frames with spaces and template brackets.
    const std::string text =
        "main;run loop;eth_rx 10\n"
        "main;run loop;ip6_lookup 7\n"
        "main;run loop;ip6_lookup;fib<std::pair<int, int>>::find 25\n"
        "main;worker 3.5\n"
        "other 1\n";
    EXPECT_EQ(to_folded(folded(text)), text);
    // Unsorted input with a repeated stack: same weights per stack, merged.
    const FlameTree t = folded("b;c 2\na 1\nb;c 3\n# comment\n\nb 4\n");
    EXPECT_EQ(to_folded(t), "a 1\nb 4\nb;c 5\n");
    EXPECT_DOUBLE_EQ(t.total(0), 10);
    const int b = t.child(0, "b");
    ASSERT_GE(b, 0);
    EXPECT_DOUBLE_EQ(t.total(b), 9);
    EXPECT_DOUBLE_EQ(t.self(b), 4);
}

TEST(Folded, BadLineNamesFileAndLine) {
    EXPECT_THROW(folded("a;b nan\n"), std::runtime_error);
    EXPECT_THROW(folded("a;b -1\n"), std::runtime_error);
    EXPECT_THROW(folded("no_weight\n"), std::runtime_error);
    try {
        folded("a;b 1\na;b twelve\n");
        FAIL() << "no error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("test.folded:2: not a folded stack"),
                  std::string::npos)
            << e.what();
    }
}

// Written by hand in the shape `perf script` prints for `perf record -g`.
TEST(PerfScript, SamplesBecomeRootFirstStacks) {
    std::istringstream in(
        "pathscope 4242 [001] 100.000001:     250000 cpu-clock:u: \n"
        "\t    55d5c1f0a123 ip6_lookup_process+0x23 (/usr/bin/pathscope)\n"
        "\t    55d5c1f0b000 Engine::walk+0x10 (/usr/bin/pathscope)\n"
        "\t    7f0000001000 main+0x5 (/usr/bin/pathscope)\n"
        "\n"
        "pathscope 4242 [001] 100.004001:     250000 cpu-clock:u: \n"
        "\t    55d5c1f0b010 Engine::walk+0x20 (/usr/bin/pathscope)\n"
        "\t    7f0000001000 main+0x5 (/usr/bin/pathscope)\n"
        "\n"
        "dpdk-worker 1 4243 [000] 100.004500:     250000 cpu-clock:u: \n"
        "\t    7f0000002000 [unknown] ([unknown])\n");
    const FlameTree t = capture::parse_perf_script(in, "perf.txt");
    EXPECT_EQ(to_folded(t),
              "dpdk-worker 1;[unknown] 1\n"
              "pathscope;main;Engine::walk 1\n"
              "pathscope;main;Engine::walk;ip6_lookup_process 1\n");
    std::istringstream empty("# only a header\n");
    EXPECT_THROW(capture::parse_perf_script(empty, "perf.txt"), std::runtime_error);
}

// Frames are named as the capture names them: compact C++ names, and a
// frame with no symbol under its module, not one "[unknown]" for them all.
// --comm and --tid keep one command's or one thread's samples.
TEST(PerfScript, NamesFramesAsTheCaptureDoesAndFilters) {
    const std::string text =
        "app 10/11 100.0: 1 cpu-clock:\n"
        "\t    2108 [unknown] (/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0/librte_net_null.so.23.0)\n"
        "\t    1000 void (anonymous namespace)::poll<int>(unsigned int, char*) const+0x10 (/bin/app)\n"
        "\n"
        "app 10/12 100.1: 1 cpu-clock:\n"
        "\t    3000 worker_loop+0x1 (/bin/app)\n"
        "\n"
        "other 20/21 100.2: 1 cpu-clock:\n"
        "\t    3000 spin+0x1 (/bin/other)\n";
    std::istringstream all(text);
    EXPECT_EQ(to_folded(capture::parse_perf_script(all, "p.txt")),
              "app;worker_loop 1\n"
              "app;{anon}::poll<int>;[librte_net_null.so.23.0] 1\n"
              "other;spin 1\n");
    std::istringstream by_comm(text);
    EXPECT_EQ(to_folded(capture::parse_perf_script(by_comm, "p.txt", {"other", ""})),
              "other;spin 1\n");
    std::istringstream by_tid(text);
    EXPECT_EQ(to_folded(capture::parse_perf_script(by_tid, "p.txt", {"", "12"})),
              "app;worker_loop 1\n");
    std::istringstream none(text);
    try {
        capture::parse_perf_script(none, "p.txt", {"nobody", ""});
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("none of its 3 samples matched --comm/--tid"),
                  std::string::npos)
            << e.what();
    }
}

// Three trials a side: "lookup" moves from ~50 to ~60 with little spread and
// is a real change; "rx" wobbles by more than it moves and is noise.
TEST(FlameDiff, PerTrialVarianceMarksNoise) {
    FlameTree base(3, "cycles"), cand(3, "cycles");
    const double lookup_b[] = {50, 51, 49}, lookup_c[] = {60, 61, 59};
    const double rx_b[] = {20, 30, 25}, rx_c[] = {22, 31, 24};
    for (int t = 0; t < 3; ++t) {
        base.add({"rx"}, rx_b[t], t);
        base.add({"lookup"}, lookup_b[t], t);
        cand.add({"rx"}, rx_c[t], t);
        cand.add({"lookup"}, lookup_c[t], t);
    }
    cand.add({"new_stage"}, 5, 0);
    const FlameDiff d = diff_trees(base, cand);
    std::map<std::string, const DiffNode*> by;
    for (const auto& n : d.nodes) by[n.name] = &n;
    ASSERT_TRUE(by.count("lookup") && by.count("rx") && by.count("new_stage"));
    EXPECT_DOUBLE_EQ(by["lookup"]->base, 50);
    EXPECT_DOUBLE_EQ(by["lookup"]->cand, 60);
    EXPECT_DOUBLE_EQ(by["lookup"]->delta, 10);
    EXPECT_DOUBLE_EQ(by["lookup"]->relative, 0.2);
    EXPECT_FALSE(by["lookup"]->noise);
    EXPECT_TRUE(by["rx"]->noise);
    EXPECT_TRUE(std::isinf(by["new_stage"]->relative));
    EXPECT_NE(d.method.find("Student's t on 3 vs 3 trials"), std::string::npos);
}

// One trial a side: the stated threshold (5% of the node, 0.5% of the whole).
TEST(FlameDiff, ThresholdWithoutTrials) {
    const FlameTree base = folded("a;x 1000\na;y 100\nb 8900\n");
    const FlameTree cand = folded("a;x 1040\na;y 200\nb 8900\n");
    const FlameDiff d = diff_trees(base, cand);
    EXPECT_EQ(d.path(d.nodes[0].children[0]), "a");
    for (size_t i = 1; i < d.nodes.size(); ++i) {
        const std::string p = d.path(i);
        if (p == "a;x") {
            EXPECT_TRUE(d.nodes[i].noise) << "4% of the node";
        } else if (p == "a;y") {
            EXPECT_FALSE(d.nodes[i].noise) << "+100% and 1% of the whole";
        } else if (p == "b") {
            EXPECT_TRUE(d.nodes[i].noise);
        }
    }
    EXPECT_NE(d.method.find("under 5% of the node"), std::string::npos);
    const auto hot = hottest_functions(base, cand, 2);
    ASSERT_EQ(hot.size(), 2u);
    EXPECT_EQ(hot[0].name, "b");
    EXPECT_EQ(hot[1].name, "x");
}

// A tree against itself (a run's own view) skips the search for each
// node's counterpart: node for node what the general walk, which looks
// children up by name, makes of it against an equal tree, trials and
// noise included.
TEST(FlameDiff, ALargeTreeAgainstItselfIsTheOneThreadDiff) {
    FlameTree t(3, "samples");
    std::mt19937_64 rng(42);
    std::vector<std::string> stack;
    while (t.size() < 80'000) {
        stack = {"main", "run"};
        const int depth = 3 + static_cast<int>(rng() % 18);
        for (int d = 0; d < depth; ++d)
            stack.push_back("ns" + std::to_string(d) + "::f" + std::to_string(rng() % (d < 2 ? 3 : 40)));
        t.add(stack, 1 + static_cast<double>(rng() % 50), static_cast<int>(rng() % 3));
    }
    const FlameTree same = t;
    const FlameDiff two = diff_trees(t, t), one = diff_trees(t, same);
    ASSERT_EQ(two.nodes.size(), t.size());
    ASSERT_EQ(two.nodes.size(), one.nodes.size());
    EXPECT_EQ(two.method, one.method);
    for (size_t i = 0; i < one.nodes.size(); ++i) {
        const DiffNode &a = two.nodes[i], &b = one.nodes[i];
        ASSERT_EQ(a.name, b.name) << "node " << i;
        ASSERT_EQ(a.parent, b.parent) << "node " << i;
        ASSERT_EQ(a.children, b.children) << "node " << i;
        ASSERT_EQ(a.base, b.base) << "node " << i;
        ASSERT_EQ(a.cand, b.cand) << "node " << i;
        ASSERT_EQ(a.noise, b.noise) << "node " << i;
        ASSERT_EQ(a.p, b.p) << "node " << i;
    }
    EXPECT_EQ(two.path(two.nodes.size() - 1), one.path(one.nodes.size() - 1));
}

// A followed run's own flame graph grows with its tree (GrowingSelfDiff):
// after every update, every node, value and verdict is diff_trees' of the
// tree so far, whether the diff was grown (nobody held the older one) or
// made anew (the window still held it).
TEST(FlameDiff, AGrowingTreesOwnDiffIsTheWholeDiffAfterEveryUpdate) {
    // Each node by its path: its values, verdict and children in order.
    const auto by_path = [](const FlameDiff& d) {
        std::map<std::string, std::string> out;
        for (size_t i = 0; i < d.nodes.size(); ++i) {
            const DiffNode& n = d.nodes[i];
            std::string kids;
            for (int k : n.children) kids += d.nodes[static_cast<size_t>(k)].name + ",";
            EXPECT_LT(n.parent, static_cast<int>(i)) << "a parent after its child";
            out[d.path(i)] = fmt::format("{} {} {} {} {} {} [{}]", n.base, n.cand, n.delta,
                                         n.relative, n.noise, n.p, kids);
        }
        return out;
    };
    FlameTree t(2, "samples");
    GrowingSelfDiff growing;
    std::mt19937_64 rng(7);
    std::shared_ptr<const FlameDiff> held;  // what the window shows
    for (int update = 0; update < 8; ++update) {
        for (int s = 0; s < 300; ++s) {
            std::vector<std::string> stack;
            const int depth = 1 + static_cast<int>(rng() % 6);
            for (int d = 0; d < depth; ++d) stack.push_back("f" + std::to_string(rng() % (update + 3)));
            t.add(stack, 1 + static_cast<double>(rng() % 9), static_cast<int>(rng() % 2));
        }
        if (update == 5) t.exclude_trial(1);  // the counted trials change too
        const std::shared_ptr<const FlameDiff> grown = growing.update(t);
        EXPECT_EQ(grown->nodes.size(), t.size());
        EXPECT_EQ(by_path(*grown), by_path(diff_trees(t, t))) << "update " << update;
        EXPECT_EQ(grown->method, diff_trees(t, t).method);
        // The window lets the one before go; on every third it holds both.
        if (update % 3 != 2) held.reset();
        if (held) {
            EXPECT_NE(held.get(), grown.get());
        }
        held = grown;
    }
}

// The reference review's transmit queues: queue 0 carries almost everything.
TEST(QueueSkew, FlagsOneBusyQueueAmongIdleOnes) {
    std::vector<pathscope::db::QueueRow> rows;
    const unsigned long long counts[] = {905543423, 662834, 899, 843};
    for (int q = 0; q < 4; ++q) rows.push_back({0, -1, "cc0", q, "tx", counts[q], 0, 0, 0, 0});
    rows.push_back({0, 3, "cc0", 0, "tx", 5, 0, 0, 0, 0});  // an interval row: ignored
    const auto skew = queue_skew(rows);
    ASSERT_EQ(skew.size(), 1u);
    EXPECT_TRUE(skew[0].skewed);
    EXPECT_NEAR(skew[0].queues[0].share, 0.99926, 1e-5);
    // Jain = (sum)^2 / (4 * sum of squares), about 1/4 when one queue has it all.
    EXPECT_NEAR(skew[0].jain, 0.2504, 1e-4);
    EXPECT_NEAR(skew[0].max_over_mean, 3.997, 1e-3);
    EXPECT_NE(skew[0].flag.find("queue 0 carries 99.9% while 3 of 3 others sit idle"),
              std::string::npos)
        << skew[0].flag;

    std::vector<pathscope::db::QueueRow> even;
    for (int q = 0; q < 4; ++q) even.push_back({0, -1, "p", q, "rx", 1000u + q, 0, 0, 0, 0});
    const auto fair = queue_skew(even);
    EXPECT_FALSE(fair[0].skewed);
    EXPECT_GT(fair[0].jain, 0.999);
}

TEST(Report, LineDiffKeepsOrder) {
    EXPECT_EQ(line_diff("a\nb\nc\n", "a\nB\nc\nd\n"),
              (std::vector<std::string>{" a", "-b", "+B", " c", "+d"}));
}

// A frame too narrow for its name keeps the part that tells it apart: the
// start of a stage (eth_input, ip6_input and ip6_output all end in "put"),
// the end of a qualified C++ name (its function, not its namespace).
TEST(FlameLabel, AStageKeepsItsStartAFunctionItsEnd) {
    using pathscope::analysis::flame_label;
    EXPECT_EQ(flame_label("ip6_input", 0.5, 7), "ip6_in~");
    EXPECT_EQ(flame_label("eth_input", 0.5, 7), "eth_in~");
    EXPECT_EQ(flame_label("pathscope::engine::walk", 0.5, 5), "~walk");
    EXPECT_EQ(flame_label("ip6_input", 0.5, 9), "ip6_input");
    EXPECT_EQ(flame_label("ip6_input", 0.5, 3), "");
}

// A stage whose verdict could not judge its change (a disturbed trial, too
// few trials) reads so in every view, never "within noise".
TEST(FlameDiff, AStageTheVerdictCannotJudgeIsNotCalledNoise) {
    FlameTree base(3, "cycles"), cand(3, "cycles");
    for (int t = 0; t < 3; ++t) {
        base.add({"lookup"}, 50 + t, t);
        cand.add({"lookup"}, 80 + t, t);
        base.add({"rx"}, 20 + t, t);
        cand.add({"rx"}, 20 + t, t);
    }
    FlameDiff d = diff_trees(base, cand);
    auto verdict = [](const std::string& stage, const char* outcome) {
        Verdict v;
        v.base.group = kStageCycles;
        v.base.name = stage;
        v.outcome = outcome;
        return v;
    };
    mark_stages_by_verdicts(d, {verdict("lookup", kUnreliable), verdict("rx", kNoDifference)});
    std::map<std::string, const DiffNode*> by;
    for (const auto& n : d.nodes) by[n.name] = &n;
    EXPECT_TRUE(by["lookup"]->noise);
    EXPECT_EQ(change_word(*by["lookup"]), "unreliable");
    EXPECT_EQ(change_word(*by["rx"]), "within noise");
}
