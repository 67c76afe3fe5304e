// An experiment's comparison (compare_experiment) as text, Markdown, HTML,
// JSON and ministat's blocks: what `compare --experiment` and the GUI's
// Experiments page print.
#pragma once

#include <string>

#include "analysis/verdicts/experiment.h"

namespace pathscope::analysis {

std::string render_experiment_text(const ExperimentComparison& e);
std::string render_experiment_markdown(const ExperimentComparison& e);
std::string render_experiment_html(const ExperimentComparison& e);
std::string render_experiment_json(const ExperimentComparison& e);
/// ministat's output for every cell and metric: the runs of `by`'s values,
/// baseline first, exactly as `pathscope report BASE CAND` shows two runs
/// (legend of run labels and unit, plot, vitals, Student's t verdicts), each
/// under a heading "CELL: METRIC (ministat, UNIT)". A cell with fewer than
/// 3 trials a side, or a value without a run, is said instead.
std::string render_experiment_ministat(const ExperimentComparison& e);

}  // namespace pathscope::analysis
