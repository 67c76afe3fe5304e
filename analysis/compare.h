// A verdict per metric between two runs: Student's t for throughput, cycles
// and counters, Mann-Whitney U for the skewed per-call percentiles. Each
// verdict names its test, confidence and N, and says better or worse.
#pragma once

#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "analysis/stats.h"

namespace pathscope::analysis {

struct Verdict {
    Metric base, cand;
    Summary base_summary, cand_summary;
    std::string test;  ///< "Student's t" or "Mann-Whitney U"
    TTest t;           ///< when test is Student's t
    UTest u;           ///< when test is Mann-Whitney U
    bool possible = false;
    bool significant = false;
    double percent = 0;  ///< (cand - base) / base, in %
    /// Student's t only: the interval the verdict was made from,
    /// difference +/- half_width (the data's unit), and the same interval
    /// as a percentage of the base mean (not ministat's relative interval,
    /// which `stats` prints: that one can disagree with the verdict).
    double difference = 0, half_width = 0;
    double percent_half_width = 0;
    bool no_variance = false;  ///< every value of both sides the same: no interval
    std::string outcome;            ///< "better", "worse", "no difference", "no test"
    std::string warning;
    std::string note;  ///< how the values were judged, when not as their unit says
};

std::vector<Verdict> compare_metrics(const std::vector<Metric>& base,
                                     const std::vector<Metric>& cand, double confidence);

/// The change as a percentage of the base mean: "+5.1% +/-1.2%" (Student's
/// t: the verdict's interval, with as many decimals as it takes for the
/// printed interval to hold 0 exactly when the verdict says no difference),
/// "+5.0% no variance", "-0.3%" (Mann-Whitney U), "n/a".
std::string format_change(const Verdict& v);
/// The same interval in the data's unit: "+0.123 +/-0.045", or "" when the
/// verdict has none.
std::string format_difference(const Verdict& v);
/// A side's mean and spread as the comparison tables print them:
/// "4.306 ±0.66", or "-" for a side without values.
std::string format_mean(const Summary& s);
/// The verdict table for a terminal or a mailing list: fits in 80 columns.
std::string render_verdicts_text(const std::vector<Verdict>& verdicts, double confidence);

}  // namespace pathscope::analysis
