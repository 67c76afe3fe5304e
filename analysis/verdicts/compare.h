// A verdict per metric between two runs. Two runs of one experiment (its
// cells, interleaved) are judged on their blocks' differences: paired t, or
// Wilcoxon signed-rank for the skewed per-call percentiles; two unrelated
// runs as ministat does: Student's t, or Mann-Whitney U for the skewed ones.
// The verdicts of one view (a comparison, a report, an experiment, a gate)
// are one family: their p-values are adjusted together (Benjamini-Hochberg)
// and every interval is printed at the family's level, so that a verdict and
// its interval always agree. Each verdict names its test, confidence and N,
// and says better, worse, no difference, too few trials or unreliable.
#pragma once

#include <string>
#include <vector>

#include "analysis/trees/flame_diff.h"
#include "analysis/stats/paired.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/stats/stats.h"

namespace pathscope::analysis {

struct Verdict {
    Metric base, cand;
    Summary base_summary, cand_summary;
    std::string test;  ///< kStudentT, kPairedT, kMannWhitneyU or kSignedRank
    TTest t;           ///< Student's t
    UTest u;           ///< Mann-Whitney U
    PairedTest paired;          ///< paired t (and beside a signed-rank verdict)
    SignedRankTest signed_rank;  ///< Wilcoxon signed-rank (and beside a paired t)
    size_t pairs = 0;  ///< paired tests: the blocks both runs have
    bool possible = false;
    bool significant = false;
    double p = 1;  ///< the test's two-sided p
    /// Benjamini-Hochberg's adjusted p over the family (p itself when alone).
    double q = 1;
    size_t family = 1;       ///< verdicts adjusted together
    double confidence = 95;  ///< the level of the printed interval (the family's)
    double percent = 0;      ///< (cand - base) / base, in %
    /// t tests: the interval the verdict was made from, difference +/-
    /// half_width (the data's unit), and the same over the base mean (not
    /// ministat's relative interval, which `stats` prints: that one can
    /// disagree with the verdict). se and df make it at any level.
    double difference = 0, half_width = 0;
    double percent_half_width = 0;
    double se = 0, df = 0;
    bool no_variance = false;  ///< every value of both sides the same: no interval
    std::string outcome;       ///< kBetter, kWorse, kNoDifference, kTooFewTrials, kUnreliable
    std::string unreliable;    ///< why, when unreliable: the disturbed trial and its figure
    std::string warning;
    std::string note;  ///< how the values were judged, when not as their unit says
    /// One of the headline figures (headline_names), judged in their own family.
    bool headline = false;

    bool t_family() const;  ///< Student's or paired t: an interval in the data's unit
};

/// One metric judged alone (a family of one) at `confidence`.
Verdict judge_metric(const Metric& base, const Metric& cand, double confidence);

/// Adjusts a family of verdicts together: Benjamini-Hochberg over their p,
/// every interval at level 1 - alpha R / m (R: the verdicts it rejects, at
/// least 1; m: the family), so that an interval excludes 0 exactly when its
/// adjusted verdict is significant; then each outcome.
void adjust_family(const std::vector<Verdict*>& family, double confidence);

/// The headline figures: the rate (rx rate, or tx rate for a run that
/// received nothing) and "all stages". Every view judges them as a family of
/// their own, apart from the other figures it shows, so that the gate,
/// compare, a report and the GUI give each of them one verdict and one
/// interval: how many other figures a view shows never widens theirs.
std::vector<std::string> headline_names(const std::vector<Metric>& base);

/// Every metric the two runs share, judged in two families: the headline
/// figures (headline_names), and all the others.
std::vector<Verdict> compare_metrics(const std::vector<Metric>& base,
                                     const std::vector<Metric>& cand, double confidence);

/// Marks the stage rows of a stage diff (its root, "all stages", and each
/// stage under it) within noise or changed by the stages' verdicts among
/// `verdicts` (group "stage cycles"), and says so in its method: the stage
/// table, the flame graphs and the Path page then say what the verdicts say.
/// A row without a verdict, and every deeper node, keeps the tree's own rule.
void mark_stages_by_verdicts(FlameDiff& stages, const std::vector<Verdict>& verdicts);

/// The change as a percentage of the base mean: "+5.1% +/-1.2%" (t tests:
/// the verdict's interval, with as many decimals as it takes for the
/// printed interval to hold 0 exactly when the verdict says no difference),
/// "+5.0% no variance", "-0.3%" (rank tests), "n/a".
std::string format_change(const Verdict& v);
/// The same interval in the data's unit: "+0.123 +/-0.045", or "" when the
/// verdict has none.
std::string format_difference(const Verdict& v);
/// A side's mean and spread as the comparison tables print them:
/// "4.306 ±0.66", or "-" for a side without values.
std::string format_mean(const Summary& s);
/// "too few trials", "unreliable", "better", ...: the outcome as a table cell.
std::string verdict_word(const Verdict& v);
/// How a view's verdicts were judged, for a legend: "95% confidence, false
/// discovery rate controlled ... the 2 headline figures (intervals at
/// 97.50%) and the 60 others (intervals at 99.92%) ...".
std::string family_note(const std::vector<Verdict>& verdicts, double confidence);
/// The verdict table for a terminal or a mailing list: fits in 80 columns.
std::string render_verdicts_text(const std::vector<Verdict>& verdicts, double confidence);

}  // namespace pathscope::analysis
