// A Linux run's figures (sampled stages): every stage a figure in every
// trial (a stage without samples is an estimate of 0, not missing), one
// sampling standard error each, rule figures absent when the run did not
// count rules, no worker busy share, and the views say what is absent.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/figures/metric_names.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"
#include "analysis/render/run_view.h"
#include "analysis/figures/sampled_stages.h"

using namespace pathscope;
using namespace pathscope::analysis;

namespace {

/// Two trials of 1000 packets; the period is 1000 cycles a sample.
/// ip6_lookup: 100 and 144 samples; early_demux: 0 and 4.
db::RunData kernel_run() {
    db::RunData r;
    r.info.id = 3;
    r.info.tsc_hz = 1'000'000'000;
    r.rows.facts.emplace_back(db::kTargetFact, "linux 6.18");
    for (int t = 0; t < 2; ++t) {
        db::TrialRow tr;
        tr.trial = t;
        tr.seconds = 1;
        tr.received = tr.delivered = tr.window_received = 1000;
        tr.rx_pps = 1000;
        r.rows.trials.push_back(tr);
        const uint64_t lookup = t == 0 ? 100 : 144, demux = t == 0 ? 0 : 4;
        r.rows.stages.push_back({t, -1, "early_demux", 0, demux, 0, demux * 1000, 0, 0});
        r.rows.stages.push_back({t, -1, "ip6_lookup", 1, lookup, 0, lookup * 1000, 0, 0});
        r.rows.stages.push_back({t, -1, "unmapped", 2, 0, 0, 0, 0, 0});
        r.rows.events.push_back({t, "routes_resolved", 1000, 800});
        r.rows.events.push_back({t, "fib_lookups", 1500, 1200});
    }
    return r;
}

}  // namespace

TEST(SampledStages, EveryStageHasAFigureInEveryTrial) {
    const auto m = run_metrics(kernel_run());
    const Metric* demux = find_metric(m, kStageCycles, "early_demux");
    ASSERT_NE(demux, nullptr) << "a stage of no packets is still a stage of a Linux run";
    EXPECT_EQ(demux->values[0], 0.0) << "no samples: an estimate of 0, not missing";
    EXPECT_DOUBLE_EQ(demux->values[1], 4.0);
    const Metric* lookup = find_metric(m, kStageCycles, "ip6_lookup");
    ASSERT_NE(lookup, nullptr);
    EXPECT_DOUBLE_EQ(lookup->values[0], 100.0);
    EXPECT_DOUBLE_EQ(lookup->values[1], 144.0);
    ASSERT_NE(find_metric(m, kPathEventsGroup, kTablesPerLookup), nullptr);
    EXPECT_DOUBLE_EQ(find_metric(m, kPathEventsGroup, kTablesPerLookup)->values[0], 1.5);
    EXPECT_EQ(find_metric(m, kPathEventsGroup, kRulesPerLookup), nullptr) << "not counted: absent";
    EXPECT_EQ(find_metric(m, kPathEventsGroup, kRuleEntriesPerLookup), nullptr);
}

TEST(SampledStages, EachStageCarriesItsSamplingError) {
    const auto errors = stage_sampling_errors(kernel_run());
    // Trial 0: sqrt(100) x 1000 / 1000 = 10; trial 1: sqrt(144) = 12; the mean's: sqrt(100 + 144) / 2.
    EXPECT_NEAR(errors.at("ip6_lookup"), std::sqrt(100.0 + 144.0) / 2, 1e-9);
    EXPECT_NEAR(errors.at("early_demux"), std::sqrt(0.0 + 4.0) / 2, 1e-9);
    EXPECT_NEAR(errors.at(kAllStages), std::sqrt(100.0 + 148.0) / 2, 1e-9);
    const RunSummary s = summarize_run(kernel_run());
    EXPECT_TRUE(s.sampled);
    EXPECT_NEAR(s.stages[1].sampling_error, errors.at("ip6_lookup"), 1e-9);
    db::RunData engine = kernel_run();
    engine.rows.facts.clear();
    EXPECT_TRUE(stage_sampling_errors(engine).empty());
    EXPECT_TRUE(std::isnan(summarize_run(engine).stages[0].sampling_error));
}

TEST(SampledStages, TheRunViewSaysWhatIsAbsent) {
    const std::string text = render_run(kernel_run(), {});
    EXPECT_NE(text.find("samples"), std::string::npos);
    EXPECT_NE(text.find("+/- (1 se)"), std::string::npos);
    EXPECT_NE(text.find("absent on the Linux target"), std::string::npos);
    EXPECT_EQ(text.find("pkts/call"), std::string::npos) << "no per-call columns";
    EXPECT_EQ(text.find("rules/lookup"), std::string::npos);
}
