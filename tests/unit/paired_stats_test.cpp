// Paired t, Wilcoxon signed-rank, Benjamini-Hochberg and alpha spending on
// known values (computed with SciPy 1.10 and statsmodels 0.13; the random
// sweep against them is tests/analysis/stats_oracle.py), and what the
// verdicts make of missing values, disturbed trials and blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/verdicts/compare.h"
#include "analysis/figures/metric_names.h"
#include "analysis/stats/multiple_tests.h"
#include "analysis/stats/paired.h"
#include "analysis/stats/stats.h"

namespace pathscope::analysis {
namespace {

TEST(PairedT, MatchesScipyTtestRel) {
    // scipy.stats.ttest_rel([2,4,5,4,7], [1,2,3,4,5]): t = 3.5, p = 0.02489616346022276
    const PairedTest t = paired_t({1, 2, 3, 4, 5}, {2, 4, 5, 4, 7}, 95);
    ASSERT_TRUE(t.possible);
    EXPECT_NEAR(t.t, 3.5, 1e-12);
    EXPECT_NEAR(t.p, 0.02489616346022276, 1e-12);
    EXPECT_NEAR(t.difference, 1.4, 1e-12);
    EXPECT_TRUE(t.significant);
    // The interval at 95% is ministat's table (df 4: 2.776) times the standard error.
    EXPECT_NEAR(t.half_width, 2.776 * t.sd / std::sqrt(5.0), 1e-12);
    EXPECT_FALSE(paired_t({1}, {2}, 95).possible);
}

TEST(PairedT, AnyLevelUsesTheExactQuantile) {
    const PairedTest t = paired_t({1, 2, 3, 4, 5}, {2, 4, 5, 4, 7}, 97.5);
    // scipy.stats.t.ppf(1 - 0.025 / 2, 4)
    EXPECT_NEAR(t.half_width / (t.sd / std::sqrt(5.0)), 3.495405932516977, 1e-9);
}

TEST(SignedRank, MatchesScipyWilcoxon) {
    // scipy.stats.wilcoxon([2.1,4.3,5.2,4.05,7.7,3.3], [1,2,3,4,5,3.5]):
    // statistic 2.0, p 0.09375 (exact)
    const SignedRankTest w =
        wilcoxon_signed_rank({1, 2, 3, 4, 5, 3.5}, {2.1, 4.3, 5.2, 4.05, 7.7, 3.3});
    ASSERT_TRUE(w.possible);
    EXPECT_TRUE(w.exact);
    EXPECT_DOUBLE_EQ(w.statistic, 2.0);
    EXPECT_NEAR(w.p, 0.09375, 1e-12);
    EXPECT_NEAR(w.min_p, 2.0 / 64, 1e-12);
}

TEST(SignedRank, FivePairsCannotReachFivePercent) {
    // scipy.stats.wilcoxon([2,4,6,8,10], [1,2,3,4,5]): statistic 0, p 0.0625
    const SignedRankTest w = wilcoxon_signed_rank({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10});
    EXPECT_NEAR(w.p, 0.0625, 1e-12);  // every difference positive: the smallest p of 5 pairs
    EXPECT_GT(w.min_p, 0.05);
    // Tied differences are enumerated exactly too: the same smallest p.
    const SignedRankTest tied = wilcoxon_signed_rank({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6});
    EXPECT_TRUE(tied.exact);
    EXPECT_NEAR(tied.p, 0.0625, 1e-12);
    EXPECT_GT(tied.min_p, 0.05);
}

TEST(BenjaminiHochberg, MatchesStatsmodels) {
    // multipletests([0.01,0.04,0.03,0.2,0.002], method='fdr_bh')[1]
    const auto q = bh_adjust({0.01, 0.04, 0.03, 0.2, 0.002});
    const double want[] = {0.025, 0.05, 0.05, 0.2, 0.01};
    for (size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(q[i], want[i], 1e-12) << i;
    EXPECT_EQ(bh_rejections({0.01, 0.04, 0.03, 0.2, 0.002}, 0.05), 4u);
}

TEST(AlphaSpending, TheLooksSpendAlphaAtMost) {
    const AlphaSpending s{0.05, 3, 20};
    double total = 0;
    std::vector<size_t> looks;
    for (size_t b = 1; b <= 20; ++b) {
        EXPECT_GE(s.at_look(b), 0);
        total += s.at_look(b);
        if (s.is_look(b)) looks.push_back(b);
    }
    EXPECT_NEAR(total, 0.05, 1e-12);
    EXPECT_EQ(looks, (std::vector<size_t>{3, 6, 12, 20}));
    EXPECT_EQ(s.at_look(4), 0);  // no look there
    // O'Brien-Fleming: early looks stop only on a large effect (z about 3.4
    // after 6 of 20 blocks); the last tests near the design's own level.
    EXPECT_LT(s.at_look(6), 1e-3);
    EXPECT_GT(s.at_look(20), 0.035);
    EXPECT_NEAR(s.spent(12), 2 - 2 * 0.5 * std::erfc(-1.959964 / std::sqrt(0.6) / std::sqrt(2.0)),
                1e-5);
}

/// Share of simulated A/A experiments (no difference at all) that the looks
/// call significant at least once: the spending's looks at their levels, or
/// (naive) a look after every block from 3 to 20 at 95%.
double false_positive_rate(bool spend, unsigned experiments) {
    std::mt19937_64 rng(20261203);
    std::normal_distribution<double> noise(100, 3);
    const AlphaSpending s{0.05, 3, 20};
    unsigned false_positives = 0;
    for (unsigned e = 0; e < experiments; ++e) {
        std::vector<double> a, b;
        for (size_t block = 1; block <= 20; ++block) {
            a.push_back(noise(rng));
            b.push_back(noise(rng));
            if (block < 3 || (spend && !s.is_look(block))) continue;
            const double level = spend ? 100 * (1 - s.at_look(block)) : 95;
            if (paired_t(a, b, level).significant) {
                ++false_positives;
                break;
            }
        }
    }
    return static_cast<double>(false_positives) / experiments;
}

TEST(AlphaSpending, KeepsAaFalsePositivesAtTheNominalRate) {
    const unsigned n = 4000;
    const double spent = false_positive_rate(true, n);
    const double naive = false_positive_rate(false, n);
    // 4000 experiments: a rate of 5% has a standard error of 0.34 points.
    EXPECT_LE(spent, 0.05 + 3 * 0.0035) << "spent " << spent;
    EXPECT_GE(spent, 0.03) << "so conservative it could not find anything";
    // Looking 18 times at 95% each is what the spending corrects.
    EXPECT_GT(naive, 0.12) << "naive " << naive;
}

Metric metric(std::vector<double> values, std::string experiment = "") {
    Metric m;
    m.group = kThroughput;
    m.name = kRxRate;
    m.unit = "Mpps";
    m.higher_is_better = true;
    m.values = std::move(values);
    for (size_t i = 0; i < m.values.size(); ++i) m.blocks.push_back(static_cast<int>(i));
    m.disturbed.assign(m.values.size(), "");
    m.experiment = std::move(experiment);
    m.counted = m.values.size();
    return m;
}

TEST(Verdicts, AMissingTrialIsLeftOutNeverCountedAsZero) {
    const double nan = std::nan("");
    // A clear 10% regression with one dead trial on the candidate's side.
    const Verdict v = judge_metric(metric({10, 10.1, 9.9, 10.05}), metric({9, 9.1, nan, 8.95}), 95);
    EXPECT_EQ(v.cand_summary.n, 3u);
    EXPECT_EQ(v.outcome, kWorse);
    EXPECT_NEAR(v.cand_summary.mean, (9 + 9.1 + 8.95) / 3, 1e-12);
}

TEST(Verdicts, OneValueASideIsTooFewTrials) {
    const Verdict v = judge_metric(metric({10}), metric({9}), 95);
    EXPECT_EQ(v.outcome, kTooFewTrials);
}

TEST(Verdicts, ADisturbedTrialMakesTheVerdictUnreliable) {
    Metric cand = metric({9, 9.1, 8.95});
    cand.disturbed[1] = "worker 0 on CPU 21.0% of the window (146 forced switches)";
    const Verdict v = judge_metric(metric({10, 10.1, 9.9}), cand, 95);
    EXPECT_EQ(v.outcome, kUnreliable);
    EXPECT_NE(v.unreliable.find("cand trial 1"), std::string::npos) << v.unreliable;
    EXPECT_NE(v.unreliable.find("21.0%"), std::string::npos);
}

TEST(Verdicts, CellsOfOneExperimentPairByBlock) {
    // A drift shared by both cells' blocks swamps the unpaired test; the
    // paired one sees the 1% difference in every block.
    const std::vector<double> drift = {100, 104, 97, 108, 95, 102};
    std::vector<double> a, b;
    for (double d : drift) a.push_back(d), b.push_back(d * 1.01);
    const Verdict unpaired = judge_metric(metric(a), metric(b), 95);
    const Verdict paired = judge_metric(metric(a, "x1"), metric(b, "x1"), 95);
    EXPECT_EQ(unpaired.test, kStudentT);
    EXPECT_EQ(unpaired.outcome, kNoDifference);
    EXPECT_EQ(paired.test, kPairedT);
    EXPECT_EQ(paired.pairs, 6u);
    EXPECT_EQ(paired.outcome, kBetter);
}

TEST(Verdicts, AFamilyIsJudgedAtItsAdjustedLevel) {
    // Ten metrics: one clearly different, nine not. Alone, p = 0.03 would
    // be significant at 95%; in a family of ten it is not.
    std::vector<Verdict> family;
    for (int i = 0; i < 10; ++i) {
        Verdict v;
        v.test = kMannWhitneyU;
        v.possible = true;
        v.p = i == 0 ? 0.001 : (i == 1 ? 0.03 : 0.5);
        v.u.min_p = 1e-4;
        v.base.higher_is_better = true;
        v.percent = 5;
        v.base_summary.mean = 1;
        family.push_back(v);
    }
    std::vector<Verdict*> f;
    for (auto& v : family) f.push_back(&v);
    adjust_family(f, 95);
    EXPECT_EQ(family[0].outcome, kBetter);
    EXPECT_EQ(family[1].outcome, kNoDifference);
    EXPECT_NEAR(family[1].q, 0.15, 1e-12);
    EXPECT_EQ(family[0].family, 10u);
}

}  // namespace
}  // namespace pathscope::analysis
