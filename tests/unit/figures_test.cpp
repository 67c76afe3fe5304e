// One number, one meaning: a run's figures are formed from its trials one
// way (the mean of the per-trial values that the comparisons test), in the
// summary, the metrics, the flame trees, their exports and a time range
// spanning the whole run; and a verdict never contradicts the interval
// printed beside it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <random>
#include <sstream>
#include <string>

#include "analysis/verdicts/compare.h"
#include "analysis/trees/flame_diff.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"
#include "analysis/render/run_view.h"
#include "analysis/figures/time_series.h"

using namespace pathscope;
using namespace pathscope::analysis;

namespace {

// Three trials of two stages, in two intervals each; trial 1 stalled: it
// received a tenth of the packets and spent twice the cycles, so a pooled
// ratio and the mean of the trials' ratios differ by far.
db::RunData run_with_a_stalled_trial() {
    db::RunData r;
    r.info.id = 1;
    r.info.label = "stalled";
    r.info.interval_seconds = 0.5;
    for (int t = 0; t < 3; ++t) {
        const bool stalled = t == 1;
        const uint64_t received = stalled ? 10'000 : 100'000;
        db::TrialRow tr;
        tr.trial = t;
        tr.seconds = 1;
        tr.received = tr.forwarded = tr.window_received = received;
        tr.rx_pps = static_cast<double>(received);
        r.rows.trials.push_back(tr);
        const uint64_t rx_cycles = stalled ? 4'000'000 : 2'000'000;
        const uint64_t lookup_cycles = stalled ? 6'000'000 : 5'000'000 + 1000 * t;
        for (int seq = 0; seq < 2; ++seq) {
            r.rows.intervals.push_back(
                {t, seq, 0.5 * (seq + 1), received / 2, 0, received / 2, 0, 0, 0});
            r.rows.stages.push_back({t, seq, "eth_rx", 0, 100, received / 2, rx_cycles / 2, 0, 0});
            r.rows.stages.push_back(
                {t, seq, "ip6_lookup", 1, 100, received / 2, lookup_cycles / 2, 0, 0});
            for (int k = 0; k < (stalled ? 3 : 1); ++k)
                r.rows.stacks.push_back({t, "perf::cpu-clock",
                                         {{"main", "pathscope"}, {"rte_fib6_lookup", "librte"}},
                                         10, seq});
            r.rows.stacks.push_back(
                {t, "perf::cpu-clock", {{"main", "pathscope"}, {"eth_rx_process", "p"}}, 10, seq});
        }
        r.rows.stages.push_back({t, -1, "eth_rx", 0, 200, received, rx_cycles, 0, 0});
        r.rows.stages.push_back({t, -1, "ip6_lookup", 1, 200, received, lookup_cycles, 0, 0});
    }
    return r;
}

double mean_of_trials(const db::RunData& r, const std::string& stage) {
    double s = 0;
    int n = 0;
    for (const auto& row : r.rows.stages)
        if (row.seq == -1 && (stage.empty() || row.stage == stage)) {
            const double rx = static_cast<double>(r.rows.trials[row.trial].received);
            s += static_cast<double>(row.cycles) / rx;
        }
    n = static_cast<int>(r.rows.trials.size());
    return s / n;
}

}  // namespace

TEST(OneDefinition, RunCyclesPerPacketIsTheMeanOfItsTrials) {
    const db::RunData run = run_with_a_stalled_trial();
    const RunSummary s = summarize_run(run);
    const std::vector<Metric> metrics = run_metrics(run);
    const double want_all = mean_of_trials(run, "");
    // (70 + 1000 + 70.02) / 3 = 380.0; pooled it would be 24,002,000 cycles
    // over 210,000 packets = 114.3.
    EXPECT_NEAR(s.all.cycles_per_path_packet, want_all, 1e-9);
    EXPECT_NEAR(want_all, (70 + 1000 + 70.02) / 3, 1e-9);
    EXPECT_GT(std::fabs(s.all.cycles_per_path_packet - 24'002'000.0 / 210'000), 200);
    EXPECT_GT(s.all.cycles_per_path_packet_sd, 100);
    const Metric* all = find_metric(metrics, kStageCycles, kAllStages);
    ASSERT_NE(all, nullptr);
    EXPECT_DOUBLE_EQ(run_figure(all->values).mean, s.all.cycles_per_path_packet);
    const FlameTree tree = stage_tree(run);
    EXPECT_NEAR(tree.mean_scaled_total(0), want_all, 1e-9);
    for (const auto& st : s.stages) {
        EXPECT_NEAR(st.cycles_per_path_packet, mean_of_trials(run, st.name), 1e-9) << st.name;
        const int node = tree.child(0, st.name);
        ASSERT_GE(node, 0);
        EXPECT_NEAR(tree.mean_scaled_total(static_cast<size_t>(node)), st.cycles_per_path_packet,
                    1e-9);
        // The flame graph's model (a tree diffed with itself) shows the same value.
        const FlameDiff d = diff_trees(tree, tree);
        for (const auto& n : d.nodes) {
            if (n.name == st.name) {
                EXPECT_NEAR(n.base, st.cycles_per_path_packet, 1e-9);
            }
        }
    }
}

// A trial whose worker lost its time inside calls the engine left out of the
// stage cycles: its rates rest on a disturbed trial, its stage cycles not.
TEST(OneDefinition, InterruptedCallsDisturbRatesButNotStageCycles) {
    db::RunData run = run_with_a_stalled_trial();
    for (auto& t : run.rows.trials) {
        t.window_ns = 1'000'000'000;
        t.max_disturbance = 0.02;
        db::ThreadRow w;
        w.trial = t.trial;
        w.role = db::kWorkerThread;
        w.cpu_ns = t.trial == 2 ? 900'000'000 : 999'000'000;
        w.involuntary = t.trial == 2 ? 50 : 0;
        w.interrupted_calls = t.trial == 2 ? 40 : 0;
        w.interrupted_ns = t.trial == 2 ? 95'000'000 : 0;
        run.rows.threads.push_back(w);
    }
    const std::vector<Metric> metrics = run_metrics(run);
    const Metric* all = find_metric(metrics, kStageCycles, kAllStages);
    const Metric* rx = find_metric(metrics, kThroughput, kRxRate);
    ASSERT_NE(all, nullptr);
    ASSERT_NE(rx, nullptr);
    EXPECT_EQ(all->disturbed.at(2), "");
    EXPECT_NE(rx->disturbed.at(2).find("worker 0 on CPU 90.0%"), std::string::npos)
        << rx->disturbed.at(2);
    EXPECT_EQ(rx->disturbed.at(0), "");
}

// A stage's own per-call and per-packet figures are formed like every
// other run figure: eth_rx handles every received packet, so its cycles per
// own packet and its cycles per received packet are one number.
TEST(OneDefinition, StageFiguresAreTheMeanOfTheTrialsToo) {
    const db::RunData run = run_with_a_stalled_trial();
    const RunSummary s = summarize_run(run);
    const StageLine& rx = s.stages.at(0);
    ASSERT_EQ(rx.name, "eth_rx");
    EXPECT_NEAR(rx.cycles_per_packet, rx.cycles_per_path_packet, 1e-9);
    // Per trial 2,000,000 / 200 calls, 4,000,000 / 200, 2,000,000 / 200.
    EXPECT_NEAR(rx.cycles_per_call, (10'000.0 + 20'000 + 10'000) / 3, 1e-9);
    EXPECT_NEAR(rx.packets_per_call, (500.0 + 50 + 500) / 3, 1e-9);
    EXPECT_EQ(rx.busy_calls(), 600u);  // counts stay totals
}

// A store written before the engine read its counters as one snapshot can
// hold an interval row whose idle part exceeds the whole by a call: it
// counts as no busy work, never as 2^64 cycles (the Time series page drew
// 1.26e14 cycles/rx pkt from such a row).
TEST(OneDefinition, AnOldRowWithIdleAboveTotalIsNoBusyWork) {
    db::RunData run = run_with_a_stalled_trial();
    run.rows.stages.push_back({0, 0, "nd_timer", 2, 10, 0, 1000, 11, 1049});
    for (const auto& p : time_series(run).points) {
        EXPECT_LT(p.cycles_per_packet, 2000) << "trial " << p.trial << " seq " << p.seq;
    }
    EXPECT_EQ(busy_cycles(run.rows.stages.back()), 0u);
    EXPECT_EQ(busy_calls(run.rows.stages.back()), 0u);
}

TEST(OneDefinition, TheWholeRunAsATimeRangeIsTheRun) {
    const db::RunData run = run_with_a_stalled_trial();
    const FlameTree whole = stage_tree(run);
    int intervals = 0;
    const FlameTree range = stage_tree_in_range(run, 0, 1e9, &intervals);
    EXPECT_EQ(intervals, 6);
    EXPECT_NEAR(range.mean_scaled_total(0), whole.mean_scaled_total(0), 1e-9);
    for (const char* stage : {"eth_rx", "ip6_lookup"})
        EXPECT_NEAR(range.mean_scaled_total(static_cast<size_t>(range.child(0, stage))),
                    whole.mean_scaled_total(static_cast<size_t>(whole.child(0, stage))), 1e-9);
    // Sampled stacks alike: the range's shares are the run's.
    const FlameTree stacks = stack_tree(run), stacks_range = stack_tree_in_range(run, "perf::cpu-clock", 0, 1e9);
    const int main_whole = stacks.child(0, "main"), main_range = stacks_range.child(0, "main");
    const int fib_whole = stacks.child(static_cast<size_t>(main_whole), "rte_fib6_lookup");
    const int fib_range = stacks_range.child(static_cast<size_t>(main_range), "rte_fib6_lookup");
    EXPECT_NEAR(stacks.mean_scaled_total(static_cast<size_t>(fib_whole)),
                stacks_range.mean_scaled_total(static_cast<size_t>(fib_range)), 1e-12);
    // A range inside trial 1 alone holds only that trial.
    const FlameTree second = stage_tree_in_range(run, 1.0, 2.0);
    EXPECT_EQ(second.counted_trials(), std::vector<int>{1});
    EXPECT_NEAR(second.mean_scaled_total(0), 1000.0, 1e-9);  // 10,000,000 cycles / 10,000
}

TEST(OneDefinition, HottestFunctionsAndExportsUseTheTrialsMeanShare) {
    const db::RunData run = run_with_a_stalled_trial();
    const RunSummary s = summarize_run(run);
    // Trials 0 and 2: rte_fib6_lookup has 1/2 of the samples; trial 1: 3/4.
    ASSERT_FALSE(s.hottest.empty());
    EXPECT_EQ(s.hottest[0].name, "rte_fib6_lookup");
    EXPECT_NEAR(s.hottest[0].share, (0.5 + 0.75 + 0.5) / 3, 1e-12);
    EXPECT_EQ(s.stack_event, "perf::cpu-clock");
    EXPECT_EQ(s.stack_samples, 160u);
    const std::string text = render_run(s);
    EXPECT_NE(text.find(" 58.33%  rte_fib6_lookup"), std::string::npos) << text;
    // The folded export keeps the samples' total and weighs the trials alike
    // (160 samples x 0.5833 = 93.3, x 0.4167 = 66.7), in whole samples.
    const std::string folded = to_folded(stack_tree(run));
    EXPECT_NE(folded.find("main;rte_fib6_lookup 93\n"), std::string::npos) << folded;
    EXPECT_NE(folded.find("main;eth_rx_process 67\n"), std::string::npos) << folded;
    // One trial's export is its plain sample counts.
    db::RunData one = run;
    one.rows.trials.resize(1);
    EXPECT_NE(to_folded(stack_tree(one)).find("main;rte_fib6_lookup 20\n"), std::string::npos);
}

// Generated pairs of samples, from identical to far apart: the printed
// interval (as a percentage and in the data's unit) holds 0 exactly when
// the verdict is "no difference".
TEST(Verdicts, NeverContradictTheirPrintedInterval) {
    std::mt19937 rng(20261201);
    std::normal_distribution<double> noise(0, 1);
    unsigned checked = 0, significant = 0;
    for (int pair = 0; pair < 4000; ++pair) {
        const size_t nb = 2 + rng() % 8, nc = 2 + rng() % 8;
        const double base_mean = 1 + static_cast<double>(rng() % 1000000) / 7.0;
        const double spread = base_mean * std::pow(10.0, -static_cast<double>(rng() % 5));
        const double shift = spread * (static_cast<double>(rng() % 400) / 100.0 - 2.0);
        Metric b{kThroughput, kRxRate, "Mpps", true, false, {}, {}}, c = b;
        for (size_t i = 0; i < nb; ++i) b.values.push_back(base_mean + spread * noise(rng));
        for (size_t i = 0; i < nc; ++i) c.values.push_back(base_mean + shift + spread * noise(rng));
        const Verdict v = compare_metrics({b}, {c}, 95).at(0);
        ASSERT_TRUE(v.possible);
        for (const std::string& printed : {format_change(v), format_difference(v)}) {
            const size_t pm = printed.find(" +/-");
            ASSERT_NE(pm, std::string::npos) << printed;
            const double center = std::strtod(printed.c_str(), nullptr);
            const double half = std::strtod(printed.c_str() + pm + 4, nullptr);
            const bool holds_zero = std::fabs(center) <= half;
            EXPECT_EQ(holds_zero, v.outcome == "no difference")
                << printed << " beside " << v.outcome;
        }
        ++checked;
        significant += v.significant;
    }
    EXPECT_EQ(checked, 4000u);
    EXPECT_GT(significant, 400u);
    EXPECT_LT(significant, 3600u);
}

TEST(Verdicts, ZeroVarianceSaysSoInsteadOfAZeroInterval) {
    Metric b{kPerfGroup, "page-faults", "per pkt", false, false, {2, 2, 2}, {}}, c = b;
    c.values = {1, 1, 1};
    Verdict v = compare_metrics({b}, {c}, 95).at(0);
    EXPECT_TRUE(v.no_variance);
    EXPECT_EQ(format_change(v), "-50.0% no variance");
    EXPECT_EQ(v.outcome, "better");
    c.values = {2, 2, 2};
    v = compare_metrics({b}, {c}, 95).at(0);
    EXPECT_EQ(format_change(v), "+0.0% no variance");
    EXPECT_EQ(v.outcome, "no difference");
    // Variance on one side only: an interval again, which holds 0 here:
    // t(4 df) = 2.776, pooled s = sqrt(1.5), sqrt(1/3 + 1/3): +/-2.776 of a base mean of 1.
    c.values = {0, 0, 0};
    b.values = {3, 0, 0};
    v = compare_metrics({b}, {c}, 95).at(0);
    EXPECT_FALSE(v.no_variance);
    EXPECT_EQ(v.outcome, "no difference");
    EXPECT_EQ(format_change(v), "-100.0% +/-277.6%");
}

TEST(Verdicts, TheTextTableExplainsOnlyTheMarksItUses) {
    Metric b{kThroughput, kRxRate, "Mpps", true, false, {1, 2, 3, 4}, {}}, c = b;
    c.values = {5, 6, 7, 8};
    const std::string text = render_verdicts_text(compare_metrics({b}, {c}, 95), 95);
    EXPECT_EQ(text.find("!"), std::string::npos) << text;
    c.values = {5, 6};
    const std::string warned = render_verdicts_text(compare_metrics({b}, {c}, 95), 95);
    EXPECT_NE(warned.find("!: see the note below"), std::string::npos) << warned;
    EXPECT_NE(warned.find("\n! "), std::string::npos) << warned;
}

// The 80-column text: a call-latency row with the widest unit, a long name
// and a flagged verdict keeps to one line (the report folds at 80 and
// would put "U!" on a line of its own), and names that differ at their end
// stay apart.
TEST(Verdicts, EveryRowKeepsTo80Columns) {
    std::vector<Metric> base, cand;
    for (const char* name : {"rte_fib6_lookup_bulk p50", "rte_fib6_lookup_bulk p99", "eth_rx p99"}) {
        Metric b{kCallLatency, name, "cyc/pkt@call", false, true, {171.2, 175.9, 169.4}, {}};
        Metric c = b;
        c.values = {111.5, 112.1, 0};  // one trial without a value: a flagged verdict
        c.values[2] = std::numeric_limits<double>::quiet_NaN();
        base.push_back(b);
        cand.push_back(c);
    }
    const std::string text = render_verdicts_text(compare_metrics(base, cand, 95), 95);
    std::istringstream lines(text);
    std::set<std::string> names;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("rte_fib6", 0) == 0 || line.rfind("eth_rx", 0) == 0) {
            EXPECT_LE(line.size(), 80u) << line;
            names.insert(line.substr(0, 20));  // the name column, cut or not
        }
    }
    EXPECT_EQ(names.size(), 3u) << text;
    const auto table = text.substr(0, text.find("\nN = "));
    std::istringstream rows(table);
    for (std::string line; std::getline(rows, line);) EXPECT_LE(line.size(), 80u) << line;
}

TEST(Text, ARateColumnReadsInOneUnit) {
    db::RunData r = run_with_a_stalled_trial();
    r.rows.trials[1].rx_pps = 5000;  // kpps on its own
    r.rows.trials[1].forwarded_pps = 5000;
    const std::string text = render_run(r);
    EXPECT_EQ(text.find("kpps"), std::string::npos) << text;
    EXPECT_NE(text.find("0.005 Mpps"), std::string::npos) << text;
}

// A slow run reads in Mpps too, as compare, report and the GUI give it,
// with the digits it needs.
TEST(Text, ASlowRateReadsInMppsAsInEveryView) {
    db::RunData r = run_with_a_stalled_trial();
    for (auto& t : r.rows.trials) t.rx_pps = t.forwarded_pps = 38'800;
    const std::string text = render_run(r);
    EXPECT_EQ(text.find("kpps"), std::string::npos) << text;
    EXPECT_NE(text.find("0.0388 Mpps"), std::string::npos) << text;
    const std::vector<Metric> metrics = run_metrics(r);
    const Metric* rx = find_metric(metrics, kThroughput, kRxRate);
    ASSERT_NE(rx, nullptr);
    EXPECT_EQ(rx->unit, "Mpps");
}

// The path events and latencies are per-trial metrics like every other: each
// trial's ratio, then their mean in show; a kind of work the run did not do
// has no figure at all.
TEST(PathFigures, EventRatiosAndLatencyPercentilesArePerTrial) {
    db::RunData r = run_with_a_stalled_trial();
    // Trial t: ip6_lookup saw `received` packets (100000, 10000, 100000);
    // sockets looked up 500 more; the rules layer was entered on every
    // lookup and tested 3 rules each time; early demux hit 1 in 4.
    for (auto& t : r.rows.trials) {
        t.route_lookups = 500;
        t.seconds = 2;
    }
    for (int t = 0; t < 3; ++t) {
        const uint64_t lookups = (t == 1 ? 10'000 : 100'000) + 500;
        r.rows.events.push_back({t, "rule_layer_entries", lookups, 0});
        r.rows.events.push_back({t, "rules_evaluated", 3 * lookups, 0});
        r.rows.events.push_back({t, "fib_lookups", lookups, 0});
        r.rows.events.push_back({t, "demux_hits", 250, 0});
        r.rows.events.push_back({t, "demux_misses", 750, 0});
        r.rows.events.push_back({t, "rr_transactions", 9000, 4000 * static_cast<uint64_t>(t + 1)});
        // Round trips of 1000..1999 cycles, trial t shifted by 1000 t.
        Histogram h;
        for (uint64_t v = 1000; v < 2000; ++v) h.add(v + 1000 * static_cast<uint64_t>(t));
        db::HistogramRow row{t, db::kLatency, "rr", "cycles", h.count(), h.sum(), h.min(), h.max(), {}};
        for (uint32_t i = 0; i < h.counts().size(); ++i)
            if (h.counts()[i]) row.buckets.emplace_back(i, h.counts()[i]);
        r.rows.histograms.push_back(row);
    }
    const auto metrics = run_metrics(r);
    auto values = [&](const char* group, const std::string& name) {
        const Metric* m = find_metric(metrics, group, name);
        EXPECT_NE(m, nullptr) << name;
        return m ? m->values : std::vector<double>{};
    };
    EXPECT_EQ(values(kPathEventsGroup, kRuleEntriesPerLookup), (std::vector<double>{1, 1, 1}));
    EXPECT_EQ(values(kPathEventsGroup, kRulesPerLookup), (std::vector<double>{3, 3, 3}));
    EXPECT_EQ(values(kPathEventsGroup, kDemuxHitShare), (std::vector<double>{25, 25, 25}));
    // Transactions a second count the window: 4000 (t + 1) over 2 s, in thousands.
    EXPECT_EQ(values(kThroughput, kRrRate), (std::vector<double>{2, 4, 6}));
    // Busy cycles per transaction: the trial's stage cycles over its 9000.
    const auto cyc = values(kPathEventsGroup, kCyclesPerTransaction);
    ASSERT_EQ(cyc.size(), 3u);
    EXPECT_DOUBLE_EQ(cyc[1], (4'000'000.0 + 6'000'000.0) / 9'000);
    // Percentiles per trial from each trial's own histogram, within a bucket.
    const auto p50 = values(kLatencyGroup, "rr p50");
    ASSERT_EQ(p50.size(), 3u);
    for (int t = 0; t < 3; ++t) EXPECT_NEAR(p50[t], 1500 + 1000 * t, 0.07 * (1500 + 1000 * t));
    // No translation happened: no translation figure.
    EXPECT_EQ(find_metric(metrics, kPathEventsGroup, kTranslationsPerPacket), nullptr);

    const RunSummary s = summarize_run(r);
    ASSERT_EQ(s.latencies.size(), 1u);
    EXPECT_EQ(s.latencies[0].subject, "rr");
    EXPECT_EQ(s.latencies[0].count, 3000u);
    EXPECT_DOUBLE_EQ(s.latencies[0].p50, (p50[0] + p50[1] + p50[2]) / 3);
    const std::string text = render_run(r, {});
    EXPECT_NE(text.find("rr rate"), std::string::npos) << text;
    EXPECT_NE(text.find("4.000 kT/s"), std::string::npos) << text;
}
