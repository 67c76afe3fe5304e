// Keep going until decided: an experiment whose trials are "auto" adds
// blocks (a trial of every cell) and looks at its verdicts after each, from
// the first look on; it stops once every verdict is decided (its interval
// excludes 0, or is narrower than the target on either side) or at the cap.
// Each look tests at its own share of alpha (multiple_tests.h: alpha
// spending), so that looking again and again keeps the false-positive rate
// at the nominal level; within a look the verdicts are one family
// (Benjamini-Hochberg). The last look's level is stored with the runs, and
// every later view of them judges at it.
#pragma once

#include <string>
#include <vector>

#include "analysis/verdicts/experiment.h"
#include "analysis/stats/multiple_tests.h"
#include "db/records.h"

namespace pathscope::analysis {

struct SequentialPlan {
    std::string by;                    ///< the setting judged (compare --experiment --by)
    std::vector<std::string> metrics;  ///< empty: the run's rate and "all stages"
    double confidence = 95;            ///< the nominal level over all looks
    size_t first_look = 3;
    size_t max_blocks = 20;
    double target_half_width = 1.0;  ///< % of the baseline mean
    AlphaSpending spending() const;
};

struct Look {
    size_t blocks = 0;
    double level = 95;  ///< the confidence this look tests at (%)
    bool decided = false;
    ExperimentComparison comparison;
    /// Each verdict as progress prints it: "bind=false: tx rate +3.1% +/-1.2% worse".
    std::vector<std::string> lines;
    size_t undecided = 0;
};

/// Judges `runs` (the experiment's cells so far, `blocks` blocks each) at the
/// look after block `blocks`.
Look look_at(const std::vector<db::RunData>& runs, const SequentialPlan& plan, size_t blocks);

/// The fact stored with each run of a decided experiment (db::kDecisionFact),
/// and the confidence a view of two runs judges at: the runs' stored level
/// when both carry the same experiment's decision, else `requested`.
std::string decision_fact(const SequentialPlan& plan, const Look& last);
double judged_confidence(const db::RunData& base, const db::RunData& cand, double requested);
/// The same for an experiment's runs.
double judged_confidence(const std::vector<db::RunData>& runs, double requested);

}  // namespace pathscope::analysis
