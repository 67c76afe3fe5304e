// An experiment judged by one setting, computed off the GUI thread exactly
// as `pathscope compare --experiment ID --by SETTING` does: the cells' runs
// read through their own read-only connection (their figures' rows only:
// no stacks, no traces), then analysis::compare_experiment with the
// default metrics and confidence.
#pragma once

#include <QString>
#include <memory>
#include <string>

#include "analysis/verdicts/experiment.h"

namespace pathscope::gui {

/// compare --experiment's default confidence, in percent.
inline constexpr double kExperimentConfidence = 95;

struct LoadedExperiment {
    unsigned generation = 0;  ///< which request this answers (the page drops stale ones)
    QString error;            ///< the store's or the comparison's own message
    std::shared_ptr<const analysis::ExperimentComparison> comparison;
};

/// Loads experiment `experiment` of the store at `path` and judges `by`.
LoadedExperiment load_experiment(const std::string& path, const std::string& experiment,
                                 const std::string& by);

}  // namespace pathscope::gui
