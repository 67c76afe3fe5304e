// Tests on blocked (paired) trials: trial i of two interleaved runs ran in
// the same time block, so their difference cancels what the machine did to
// both (a slow drift, a neighbour that came and went). Paired Student's t on
// the per-block differences, with Wilcoxon's signed-rank test beside it for
// data that need not be normal. Both match SciPy (scipy.stats.ttest_rel,
// scipy.stats.wilcoxon with its defaults: zeros dropped, exact below 51
// pairs without ties, else the normal approximation without continuity
// correction); tests/analysis/stats_oracle.py checks them on generated data.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pathscope::analysis {

/// Paired Student's t, candidate minus baseline, over `base[i]`/`cand[i]` pairs.
struct PairedTest {
    double confidence = 95;
    size_t n = 0;                      ///< pairs
    double mean_base = 0, mean_cand = 0;
    double difference = 0;             ///< mean of cand[i] - base[i]
    double sd = 0;                     ///< standard deviation of the differences
    double half_width = 0;             ///< of the interval at `confidence`, in the data's unit
    double t = 0, p = 1;               ///< statistic and two-sided p (n - 1 degrees of freedom)
    bool possible = false;             ///< false with fewer than 2 pairs
    bool significant = false;          ///< the interval excludes 0
    std::string warning;
};
PairedTest paired_t(const std::vector<double>& base, const std::vector<double>& cand,
                    double confidence);

/// Wilcoxon signed-rank on the pairs' differences (zero differences dropped).
struct SignedRankTest {
    size_t n = 0;            ///< pairs with a non-zero difference
    double statistic = 0;    ///< min(W+, W-), as SciPy reports it
    double w_plus = 0;       ///< rank sum of the positive differences
    double p = 1;            ///< two-sided
    double min_p = 1;        ///< the smallest p this many pairs can reach
    bool exact = false;
    bool possible = false;   ///< false when no pair differs
    double shift = 0;        ///< Hodges-Lehmann: median of the Walsh averages of the differences
    std::string warning;
};
SignedRankTest wilcoxon_signed_rank(const std::vector<double>& base,
                                    const std::vector<double>& cand);

}  // namespace pathscope::analysis
