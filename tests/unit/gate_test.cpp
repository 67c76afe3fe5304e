// pathscope gate's judgement on runs made in memory, so each case knows
// its figures exactly: a slowdown beyond the limit fails, a run against
// itself and a noisy pair within noise pass, too few trials, a starved
// worker, a disturbed trial or a lost one cannot be judged, and a
// regression within the limit passes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/verdicts/gate.h"
#include "analysis/figures/metric_names.h"
#include "analysis/render/report.h"

using namespace pathscope;
using namespace pathscope::analysis;

namespace {

constexpr uint64_t kPackets = 1'000'000;

// One trial per entry: its receive rate (packets/s) and its whole path's
// cycles per packet (one stage). A starved run's worker idles in 9 walks of 10.
db::RunData run_of(int64_t id, const std::string& label, const std::vector<double>& rates,
                   const std::vector<double>& cycles_per_packet, bool starved = false) {
    db::RunData r;
    r.info.id = id;
    r.info.label = label;
    r.info.uuid = "uuid-" + std::to_string(id);
    for (size_t t = 0; t < rates.size(); ++t) {
        db::TrialRow tr;
        tr.trial = static_cast<int>(t);
        tr.seconds = kPackets / rates[t];
        tr.received = tr.forwarded = tr.window_received = kPackets;
        tr.rx_pps = rates[t];
        tr.walks = 100'000;
        tr.idle_walks = starved ? 90'000 : 1'000;
        r.rows.trials.push_back(tr);
        const auto cycles = static_cast<uint64_t>(cycles_per_packet[t] * kPackets);
        r.rows.stages.push_back({static_cast<int>(t), -1, "ip6_lookup", 0, kPackets / 32, kPackets,
                                 cycles, 0, 0});
    }
    return r;
}

/// Gives each trial of `r` a measured window (1 s) and a worker on its CPU
/// for `on_cpu[t]` of it, judged against capture.max_disturbance = 2%.
void set_on_cpu(db::RunData& r, const std::vector<double>& on_cpu) {
    for (auto& t : r.rows.trials) {
        t.window_ns = 1'000'000'000;
        t.max_disturbance = 0.02;
        db::ThreadRow th;
        th.trial = t.trial;
        th.role = db::kWorkerThread;
        th.cpu_ns = static_cast<uint64_t>(on_cpu[static_cast<size_t>(t.trial)] * 1e9);
        th.involuntary = on_cpu[static_cast<size_t>(t.trial)] < 0.98 ? 40 : 0;
        r.rows.threads.push_back(th);
    }
}

const GateLine& line(const GateResult& g, const std::string& name) {
    for (const auto& l : g.lines)
        if (l.name == name) return l;
    throw std::runtime_error("no gate line " + name);
}

}  // namespace

TEST(Gate, ATenPercentSlowdownFails) {
    const auto base = run_of(1, "base", {10.0e6, 10.1e6, 9.9e6, 10.0e6, 10.05e6},
                             {200, 201, 199, 200, 202});
    const auto slow = run_of(2, "slow", {9.0e6, 9.1e6, 8.95e6, 9.05e6, 9.0e6},
                             {220, 221, 219, 222, 220});
    const GateResult g = judge_gate(base, slow, {}, "a.db", "a.db");
    EXPECT_EQ(g.outcome, GateOutcome::fail);
    EXPECT_EQ(g.exit_status(), 1);
    EXPECT_TRUE(line(g, "rx rate").regression);
    EXPECT_TRUE(line(g, "all stages").regression);
    EXPECT_NEAR(line(g, "all stages").verdict.percent, 10.0, 0.2);
    const std::string md = render_gate_markdown(g);
    EXPECT_NE(md.find("FAIL, 2 metrics regressed by more than 2%"), std::string::npos) << md;
    EXPECT_NE(md.find("- **all stages** (cyc/rx pkt) regressed: +10.0%"), std::string::npos) << md;
    const auto j = nlohmann::json::parse(render_gate_json(g));
    EXPECT_EQ(j["outcome"], "fail");
    EXPECT_EQ(j["exit_status"], 1);
    EXPECT_EQ(j["metrics"][1]["name"], "all stages");
    EXPECT_TRUE(j["metrics"][1]["regression"].get<bool>());
    EXPECT_GT(j["metrics"][1]["change_percent_half_width"].get<double>(), 0);
}

TEST(Gate, ARunAgainstItselfPasses) {
    const auto base = run_of(1, "base", {10.0e6, 10.1e6, 9.9e6}, {200, 201, 199});
    const GateResult g = judge_gate(base, base, {}, "a.db", "a.db");
    EXPECT_EQ(g.outcome, GateOutcome::pass);
    EXPECT_EQ(g.exit_status(), 0);
    ASSERT_EQ(g.warnings.size(), 1u);
    EXPECT_NE(g.warnings[0].find("same run"), std::string::npos);
}

TEST(Gate, ANoisyThreeTrialPairWithinNoisePasses) {
    // 5% noise either way, means 1% apart: no difference proven.
    const auto base = run_of(1, "base", {10.0e6, 10.5e6, 9.5e6}, {200, 210, 190});
    const auto cand = run_of(2, "cand", {9.6e6, 10.4e6, 9.7e6}, {205, 190, 211});
    const GateResult g = judge_gate(base, cand, {}, "a.db", "a.db");
    EXPECT_EQ(g.outcome, GateOutcome::pass) << render_gate_markdown(g);
    EXPECT_EQ(line(g, "all stages").verdict.outcome, "no difference");
}

TEST(Gate, AProvenRegressionWithinTheLimitPasses) {
    // 1% worse with no noise at all: significant, but under 2%.
    const auto base = run_of(1, "base", {10e6, 10e6, 10e6}, {200, 200, 200});
    const auto cand = run_of(2, "cand", {10e6, 10e6, 10e6}, {202, 202, 202});
    GateResult g = judge_gate(base, cand, {}, "a.db", "a.db");
    EXPECT_EQ(line(g, "all stages").verdict.outcome, "worse");
    EXPECT_EQ(g.outcome, GateOutcome::pass);
    GateOptions strict;
    strict.max_regression_percent = 0.5;
    g = judge_gate(base, cand, strict, "a.db", "a.db");
    EXPECT_EQ(g.outcome, GateOutcome::fail);
}

TEST(Gate, TooFewTrialsCannotBeJudged) {
    const auto base = run_of(1, "base", {10e6, 10.1e6}, {200, 201});
    const auto cand = run_of(2, "cand", {10e6, 10.2e6}, {200, 203});
    const GateResult g = judge_gate(base, cand, {}, "a.db", "a.db");
    EXPECT_EQ(g.outcome, GateOutcome::cannot_judge);
    EXPECT_EQ(g.exit_status(), 2);
    EXPECT_NE(line(g, "rx rate").why_not.find("too few trials: 2 vs 2"), std::string::npos);
    EXPECT_NE(render_gate_markdown(g).find("cannot judge **rx rate**: too few trials"),
              std::string::npos);
}

TEST(Gate, AStarvedWorkersRateCannotBeJudgedButARegressionStillFails) {
    const auto base = run_of(1, "base", {1e6, 1e6, 1e6}, {200, 201, 199}, true);
    const auto same = run_of(2, "same", {1e6, 1e6, 1e6}, {200, 200, 200}, true);
    GateResult g = judge_gate(base, same, {}, "a.db", "a.db");
    EXPECT_EQ(g.outcome, GateOutcome::cannot_judge);
    EXPECT_NE(line(g, "rx rate").why_not.find("starved"), std::string::npos);
    EXPECT_TRUE(line(g, "all stages").judged);
    const auto slow = run_of(3, "slow", {1e6, 1e6, 1e6}, {240, 241, 239}, true);
    g = judge_gate(base, slow, {}, "a.db", "a.db");
    EXPECT_EQ(g.outcome, GateOutcome::fail);
}

TEST(Gate, AMetricNeitherRunHasIsNamed) {
    const auto base = run_of(1, "base", {10e6, 10e6, 10e6}, {200, 200, 200});
    GateOptions opt;
    opt.metrics = {"ip6_lookup", "no_such_stage"};
    try {
        judge_gate(base, base, opt, "a.db", "a.db");
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("no metric 'no_such_stage' in either run"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Gate, ADisturbedTrialCannotBeJudgedEvenWhenTheFiguresSayRegression) {
    auto base = run_of(1, "base", {10.0e6, 10.1e6, 9.9e6, 10.0e6}, {200, 201, 199, 200});
    auto slow = run_of(2, "slow", {9.0e6, 9.1e6, 8.95e6, 9.05e6}, {220, 221, 219, 222});
    set_on_cpu(base, {1.0, 1.0, 1.0, 1.0});
    set_on_cpu(slow, {1.0, 0.7, 1.0, 1.0});  // trial 1's worker lost 30% of its window
    const GateResult g = judge_gate(base, slow, {}, "a.db", "a.db");
    EXPECT_EQ(g.outcome, GateOutcome::cannot_judge);
    EXPECT_EQ(g.exit_status(), 2);
    const std::string& why = line(g, "all stages").why_not;
    EXPECT_NE(why.find("unreliable: cand trial 1: worker 0 on CPU 70.0% of the window"),
              std::string::npos)
        << why;
    // Within the limit (1.5% lost of 2% allowed), the same figures fail.
    set_on_cpu(slow, {1.0, 0.985, 1.0, 1.0});
    slow.rows.threads.erase(slow.rows.threads.begin(), slow.rows.threads.begin() + 4);
    EXPECT_EQ(judge_gate(base, slow, {}, "a.db", "a.db").outcome, GateOutcome::fail);
}

TEST(Gate, ALostTrialCannotBeJudged) {
    const auto base = run_of(1, "base", {10.0e6, 10.1e6, 9.9e6, 10.0e6}, {200, 201, 199, 200});
    auto cand = run_of(2, "cand", {10.0e6, 10.1e6, 9.9e6, 10.0e6}, {200, 201, 199, 200});
    // Trial 2 received nothing while the others moved packets: its worker died.
    cand.rows.trials[2].received = cand.rows.trials[2].window_received = 0;
    cand.rows.trials[2].forwarded = 0;
    cand.rows.stages[2].packets = cand.rows.stages[2].cycles = 0;
    const GateResult g = judge_gate(base, cand, {}, "a.db", "a.db");
    EXPECT_EQ(g.outcome, GateOutcome::cannot_judge);
    EXPECT_NE(line(g, "all stages").why_not.find("the candidate lost trials: 3 of its 4 have a value"),
              std::string::npos)
        << line(g, "all stages").why_not;
}

namespace {

// Five trials through twelve stages: each stage's cycles per packet wobble
// by trial (`seed` moves the wobble), and `slow` is added to the first.
db::RunData many_stages(int64_t id, double rate, double slow, int seed) {
    db::RunData r;
    r.info.id = id;
    r.info.label = "run " + std::to_string(id);
    r.info.uuid = "uuid-" + std::to_string(id);
    for (int t = 0; t < 5; ++t) {
        db::TrialRow tr;
        tr.trial = t;
        tr.rx_pps = rate * (1 + 0.01 * ((t * 7 + seed) % 5 - 2));
        tr.seconds = kPackets / tr.rx_pps;
        tr.received = tr.forwarded = tr.window_received = kPackets;
        tr.walks = 100'000;
        tr.idle_walks = 1'000;
        r.rows.trials.push_back(tr);
        for (int s = 0; s < 12; ++s) {
            const double cpp = 20 + ((t * 3 + s + seed) % 5) + (s == 0 ? slow : 0);
            r.rows.stages.push_back({t, -1, "stage" + std::to_string(s), s, kPackets / 32, kPackets,
                                     static_cast<uint64_t>(cpp * kPackets), 0, 0});
        }
    }
    return r;
}

}  // namespace

TEST(Gate, EveryViewGivesAFigureOneVerdict) {
    // The gate, the report's verdicts, its stage table (and the flame graphs
    // and Path page drawn from it) and its ministat block judge "all stages"
    // and each stage alike: one verdict and one interval per figure.
    const auto base = many_stages(1, 10e6, 0, 0);
    const auto cand = many_stages(2, 9.7e6, 3, 1);
    const GateResult g = judge_gate(base, cand, {{"stage0"}}, "a.db", "a.db");
    const Report r = build_report(base, &cand, {});
    auto report_verdict = [&](const std::string& name) -> const Verdict& {
        for (const auto& v : r.verdicts)
            if (v.base.name == name) return v;
        throw std::runtime_error("no report verdict " + name);
    };
    for (const char* name : {"rx rate", "all stages", "stage0"}) {
        const Verdict& gv = line(g, name).verdict;
        const Verdict& rv = report_verdict(name);
        EXPECT_EQ(gv.outcome, rv.outcome) << name;
        EXPECT_DOUBLE_EQ(gv.percent_half_width, rv.percent_half_width) << name;
        EXPECT_DOUBLE_EQ(gv.confidence, rv.confidence) << name;
    }
    // The headline pair is its own family: 60-odd other figures never widen it.
    EXPECT_TRUE(report_verdict("all stages").headline);
    EXPECT_EQ(report_verdict("all stages").family, 2u);
    const DiffNode& all = r.stages.nodes[0];
    auto proven = [](const Verdict& v) { return v.outcome == kBetter || v.outcome == kWorse; };
    EXPECT_EQ(!all.noise, proven(report_verdict("all stages")));
    for (int k : all.children) {
        const DiffNode& n = r.stages.nodes[static_cast<size_t>(k)];
        EXPECT_EQ(!n.noise, proven(report_verdict(n.name))) << n.name;
    }
    ASSERT_EQ(r.ministat_plots.size(), 2u);
    EXPECT_NE(r.ministat_plots[1].verdict.find("pathscope's verdict (as in every view): " +
                                            verdict_word(report_verdict("all stages")) + ", " +
                                            format_change(report_verdict("all stages"))),
              std::string::npos)
        << r.ministat_plots[1].verdict;
}
