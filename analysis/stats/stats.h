// Statistics for before/after verdicts: ministat's Student's t (same pooled s,
// same interval, same wording) and Mann-Whitney U for skewed data such as
// per-call latencies. Every result carries its test, confidence and N.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pathscope::analysis {

/// ministat's vital statistics of one data set (sample standard deviation);
/// summarize() leaves missing values (NaN) out, and n counts the rest.
struct Summary {
    size_t n = 0;
    double min = 0, max = 0, median = 0, mean = 0, stddev = 0;
};
Summary summarize(const std::vector<double>& values);
/// A summary known only from its figures (a published N, mean and stddev).
Summary summary_of(size_t n, double mean, double stddev);

/// The confidence levels ministat offers: 80, 90, 95, 98, 99 and 99.5 (%).
const std::vector<double>& confidence_levels();
bool is_confidence_level(double percent);

/// Two-sided critical value of Student's t at `percent` confidence with `df`
/// degrees of freedom, as ministat's table gives it: three decimals, and the
/// normal limit beyond 100 degrees of freedom.
double t_critical(double percent, int df);

/// Two-sided critical value of Student's t at any confidence (percent, in
/// (0, 100)): ministat's table at its own levels (so that every interval at
/// 95% is ministat's to the digit), the exact quantile (Boost.Math) at any
/// other level, such as a Benjamini-Hochberg or alpha-spending level.
double t_critical_any(double percent, double df);
/// Two-sided p of Student's t statistic `t` with `df` degrees of freedom.
double t_two_sided_p(double t, double df);
/// Two-sided critical value of the standard normal distribution.
double normal_critical(double percent);

/// Student's t with pooled variance, candidate minus baseline.
struct TTest {
    double confidence = 95;
    size_t n_base = 0, n_cand = 0;
    double difference = 0, half_width = 0;        ///< in the data's unit
    double percent = 0, percent_half_width = 0;  ///< of the baseline mean
    double pooled_s = 0;
    bool possible = false;    ///< false when a side has fewer than 2 values
    bool significant = false;
    double p = 1;             ///< two-sided p (exact t distribution)
    std::string warning;      ///< set when N is too small to trust the verdict
};
/// At one of ministat's levels exactly as ministat computes it; at any
/// other level with the exact quantile (t_critical_any).
TTest student_t(const Summary& base, const Summary& cand, double confidence);

/// ministat's verdict lines: "Difference at 95.0% confidence\n\t... +/- ...".
std::string ministat_verdict(const TTest& t);

/// Mann-Whitney U (Wilcoxon rank-sum), two-sided; exact for small samples
/// without ties, else the normal approximation with tie and continuity
/// correction.
struct UTest {
    double confidence = 95;
    size_t n_base = 0, n_cand = 0;
    double u = 0;           ///< U of the candidate sample
    double p = 1;           ///< two-sided
    double min_p = 1;       ///< the smallest p these sample sizes can reach
    bool exact = false;
    bool possible = false;  ///< false when a side is empty
    bool significant = false;
    double shift = 0;       ///< Hodges-Lehmann estimate of cand - base
    std::string warning;
};
UTest mann_whitney(const std::vector<double>& base, const std::vector<double>& cand,
                   double confidence);

/// Standard normal distribution function.
double normal_cdf(double z);

}  // namespace pathscope::analysis
