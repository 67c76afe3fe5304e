// Student's t as ministat computes it, Mann-Whitney U, and ministat's output.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/stats/ministat.h"
#include "analysis/stats/stats.h"

using namespace pathscope::analysis;

namespace {
std::vector<double> seq(double from, double to) {
    std::vector<double> v;
    for (double x = from; x <= to; x += 1) v.push_back(x);
    return v;
}
}  // namespace

// The published review result, from its summary figures alone.
TEST(StudentT, ReproducesThePublished22x2Result) {
    const Summary base = summary_of(22, 1919208.8, 33644.193);
    const Summary cand = summary_of(22, 4035067.9, 21266.017);
    const TTest t = student_t(base, cand, 95);
    EXPECT_TRUE(t.significant);
    EXPECT_EQ(ministat_verdict(t),
              "Difference at 95.0% confidence\n"
              "\t2.11586e+06 +/- 17124.2\n"
              "\t110.246% +/- 1.65583%\n"
              "\t(Student's t, pooled s = 28144.1)\n");
    EXPECT_TRUE(t.warning.empty());
}

// {1..5} against {11..15}: pooled s = sqrt(2.5), s * sqrt(1/5 + 1/5) = 1, so
// the half-width is t itself (8 df); relative: sqrt(9.8889) * t * 100 / 3.
TEST(StudentT, HandCheckedDifferenceAtEveryLevel) {
    const Summary a = summarize(seq(1, 5)), b = summarize(seq(11, 15));
    const double t8[] = {1.397, 1.860, 2.306, 2.896, 3.355, 4.499};  // ministat's table
    for (size_t i = 0; i < confidence_levels().size(); ++i) {
        const TTest t = student_t(a, b, confidence_levels()[i]);
        ASSERT_TRUE(t.significant);
        EXPECT_DOUBLE_EQ(t.difference, 10);
        EXPECT_NEAR(t.half_width, t8[i], 1e-9);
        EXPECT_NEAR(t.pooled_s, 1.58113883, 1e-8);
        EXPECT_NEAR(t.percent, 333.3333333, 1e-6);
        EXPECT_NEAR(t.percent_half_width, t8[i] * std::sqrt(9.8888889) * 100 / 3, 1e-4);
    }
}

// {1..5} against {3,4,5,6,7.5}: d = 2.1, pooled s = 1.66583, s*sqrt(0.4) =
// 1.05357; at 95% the half-width 2.306 * 1.05357 = 2.4295 > 2.1: no
// difference. At 80% it is 1.47183 < 2.1, and the relative half-width is
// 1.397 * sqrt((4*3.05 + 4*2.5*1.7^2) * 10/200) * 100/3 = 66.7546%.
TEST(StudentT, HandCheckedNoDifferenceThenDifference) {
    const Summary a = summarize(seq(1, 5)), b = summarize({3, 4, 5, 6, 7.5});
    const TTest at95 = student_t(a, b, 95);
    EXPECT_FALSE(at95.significant);
    EXPECT_EQ(ministat_verdict(at95), "No difference proven at 95.0% confidence\n");
    const TTest at80 = student_t(a, b, 80);
    EXPECT_TRUE(at80.significant);
    EXPECT_EQ(ministat_verdict(at80),
              "Difference at 80.0% confidence\n\t2.1 +/- 1.47183\n\t70% +/- 66.7546%\n"
              "\t(Student's t, pooled s = 1.66583)\n");
}

TEST(StudentT, CriticalValuesFollowMinistatsTable) {
    EXPECT_DOUBLE_EQ(t_critical(95, 42), 2.018);
    EXPECT_DOUBLE_EQ(t_critical(95, 1), 12.706);
    EXPECT_DOUBLE_EQ(t_critical(99, 100), 2.626);
    // Beyond 100 degrees of freedom: the normal limit.
    EXPECT_DOUBLE_EQ(t_critical(95, 101), 1.960);
    EXPECT_DOUBLE_EQ(t_critical(80, 5000), 1.282);
    // ministat's 99.5 column is the two-sided 99.8% quantile.
    EXPECT_DOUBLE_EQ(t_critical(99.5, 1), 318.313);
    EXPECT_DOUBLE_EQ(t_critical(99.5, 1000), 3.090);
}

// ministat's own table, df 1 to 12 at every level, as Debian's ministat
// prints it (its 99.5 column is off the exact quantile in a few places:
// df 1 and 7 to 12; pathscope must match ministat, not the exact value).
TEST(StudentT, MinistatsValuesForOneToTwelveDegreesOfFreedom) {
    const double want[12][6] = {
        {3.078, 6.314, 12.706, 31.821, 63.657, 318.313}, {1.886, 2.920, 4.303, 6.965, 9.925, 22.327},
        {1.638, 2.353, 3.182, 4.541, 5.841, 10.215},     {1.533, 2.132, 2.776, 3.747, 4.604, 7.173},
        {1.476, 2.015, 2.571, 3.365, 4.032, 5.893},      {1.440, 1.943, 2.447, 3.143, 3.707, 5.208},
        {1.415, 1.895, 2.365, 2.998, 3.499, 4.782},      {1.397, 1.860, 2.306, 2.896, 3.355, 4.499},
        {1.383, 1.833, 2.262, 2.821, 3.250, 4.296},      {1.372, 1.812, 2.228, 2.764, 3.169, 4.143},
        {1.363, 1.796, 2.201, 2.718, 3.106, 4.024},      {1.356, 1.782, 2.179, 2.681, 3.055, 3.929},
    };
    const double levels[6] = {80, 90, 95, 98, 99, 99.5};
    for (int df = 1; df <= 12; ++df)
        for (int l = 0; l < 6; ++l)
            EXPECT_DOUBLE_EQ(t_critical(levels[l], df), want[df - 1][l])
                << "df " << df << " at " << levels[l] << "%";
}

// The reviewer's case: 6 against 6 values at 99.5% (df 10).
TEST(StudentT, SixAgainstSixAtNinetyNinePointFiveAsMinistat) {
    const Summary a = summarize({10, 12, 11, 14, 9, 13}), b = summarize({21, 19, 25, 17, 23, 22});
    const TTest t = student_t(a, b, 99.5);
    EXPECT_NEAR(t.half_width, 4.143 * t.pooled_s * std::sqrt(1.0 / 6 + 1.0 / 6), 1e-9);
}

TEST(StudentT, SmallSamplesAreNamed) {
    const TTest one = student_t(summarize({5}), summarize({6, 7}), 95);
    EXPECT_FALSE(one.possible);
    EXPECT_NE(one.warning.find("N = 1 vs 2"), std::string::npos);
    EXPECT_NE(ministat_verdict(one).find("No test"), std::string::npos);
    const TTest two = student_t(summarize({5, 6}), summarize({9, 10, 11}), 95);
    EXPECT_TRUE(two.possible);
    EXPECT_FALSE(two.warning.empty());
}

// {1,2,3,4} vs {5,6,7,8}: U = 16 of 16, only 1 of C(8,4) = 70 orderings is as
// extreme on each side, p = 2/70. {1,2,2,3} vs {2,3,4,5} has ties: mid-ranks
// give cand rank sum 23.5, U = 13.5, |U - 8| = 5.5; of the 70 ways to pick 4
// of the 8 mid-ranks, 14 are as far from 8, so the exact p is 0.2.
// Large samples with ties take the normal approximation: 25 vs 25 values
// floor(x/2), x = 2..26, against the same plus 3: U = 444, tie term 594,
// var = 625/12 * (51 - 594/2450) = 2643.62, z = (131.5 - 0.5)/51.416 = 2.54784,
// p = 0.0108393.
TEST(MannWhitney, HandChecked) {
    const UTest clear = mann_whitney({1, 2, 3, 4}, {5, 6, 7, 8}, 95);
    EXPECT_TRUE(clear.exact);
    EXPECT_DOUBLE_EQ(clear.u, 16);
    EXPECT_NEAR(clear.p, 2.0 / 70, 1e-12);
    EXPECT_TRUE(clear.significant);
    EXPECT_DOUBLE_EQ(clear.shift, 4);
    EXPECT_FALSE(mann_whitney({1, 2, 3, 4}, {5, 6, 7, 8}, 99).significant);

    const UTest ties = mann_whitney({1, 2, 2, 3}, {2, 3, 4, 5}, 95);
    EXPECT_TRUE(ties.exact);
    EXPECT_DOUBLE_EQ(ties.u, 13.5);
    EXPECT_NEAR(ties.p, 0.2, 1e-12);
    EXPECT_FALSE(ties.significant);

    std::vector<double> b, c;
    for (int x = 2; x <= 26; ++x) {
        b.push_back(x / 2);
        c.push_back(x / 2 + 3);
    }
    const UTest large = mann_whitney(b, c, 95);
    EXPECT_FALSE(large.exact);
    EXPECT_DOUBLE_EQ(large.u, 444);
    EXPECT_NEAR(large.p, 0.0108393, 1e-6);
    EXPECT_TRUE(large.significant);
    EXPECT_FALSE(mann_whitney(b, c, 99).significant);

    const UTest mixed = mann_whitney({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}, 95);
    EXPECT_DOUBLE_EQ(mixed.u, 15);  // cand ranks 2+4+6+8+10 = 30, minus 15
    EXPECT_GT(mixed.p, 0.5);
    EXPECT_FALSE(mixed.significant);
    EXPECT_TRUE(mixed.warning.empty());
}

TEST(MannWhitney, WarnsWhenNCannotProveAnything) {
    const UTest u = mann_whitney({1, 2, 3}, {7, 8, 9}, 95);
    EXPECT_NEAR(u.min_p, 0.1, 1e-12);  // 2 / C(6,3)
    EXPECT_FALSE(u.significant);
    EXPECT_NE(u.warning.find("N = 3 vs 3"), std::string::npos);
    // With ties too: never significant, however far apart.
    const UTest tied = mann_whitney({1, 1, 3}, {7, 9, 9}, 95);
    EXPECT_TRUE(tied.exact);
    EXPECT_FALSE(tied.significant);
    EXPECT_NEAR(tied.p, 0.1, 1e-12);
}

// The plot of Debian's ministat for these two files, copied from its output.
TEST(Ministat, PlotAndTableMatchMinistat) {
    const std::vector<DataSet> sets = {{"a.txt", {1, 2, 3, 4, 5}}, {"b.txt", {3, 4, 5, 6, 7.5}}};
    EXPECT_EQ(render_ministat(sets),
              "x a.txt\n"
              "+ b.txt\n"
              "+--------------------------------------------------------------------------+\n"
              "|x          x          *           *          *          +                +|\n"
              "|     |________________A___|_____________|____MA___________________|       |\n"
              "+--------------------------------------------------------------------------+\n"
              "    N           Min           Max        Median           Avg        Stddev\n"
              "x   5             1             5             3             3     1.5811388\n"
              "+   5             3           7.5             5           5.1     1.7464249\n"
              "No difference proven at 95.0% confidence\n");
    MinistatOptions quiet;
    quiet.quiet = true;
    quiet.plot = false;
    quiet.verdicts = false;
    EXPECT_EQ(render_ministat(sets, quiet),
              "x   5             1             5             3             3     1.5811388\n"
              "+   5             3           7.5             5           5.1     1.7464249\n");
}

TEST(Ministat, ReadsAColumnAndNamesBadLines) {
    std::istringstream in("# run  rate\n1 10.5\n\n2 11.5 # note\n3\t12.5\n");
    const DataSet ds = read_data_set(in, "rates.txt", 2);
    EXPECT_EQ(ds.values, (std::vector<double>{10.5, 11.5, 12.5}));  // sorted, as ministat
    std::istringstream infinite("1\n2\ninf\n");
    EXPECT_THROW(read_data_set(infinite, "inf.txt"), std::runtime_error);
    std::istringstream bad("1\n2\nthree\n");
    try {
        read_data_set(bad, "x.txt");
        FAIL() << "no error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("x.txt:3: 'three' is not a finite number"), std::string::npos)
            << e.what();
    }
}
