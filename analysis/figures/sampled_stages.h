// Stages of a run on the Linux kernel target: estimated from sampled
// kernel stacks (each stage's samples times the sampling period, in TSC
// cycles), not counted per call. Their figures carry a sampling error, and
// what the kernel does not give is absent from every view, never 0.
#pragma once

#include <map>
#include <string>

#include "db/records.h"

namespace pathscope::analysis {

/// Whether a run's stages are sampled kernel CPU time (a Linux run).
inline bool sampled_stages(const db::RunData& run) { return db::kernel_target(run.rows.facts); }

/// One standard error of each stage's cycles per path packet (the run's
/// figure: the trials' mean), from its samples: a trial's stage of n
/// samples is sqrt(n) periods uncertain (Poisson), over the trial's path
/// packets; the mean of T trials is sqrt(sum of their squares) / T.
/// Keyed by stage, and kAllStages for the whole.
std::map<std::string, double> stage_sampling_errors(const db::RunData& run);

/// What a Linux run cannot show, said where a view would show it.
inline constexpr const char* kKernelAbsent =
    "absent on the Linux target (the kernel does not count them, so no view shows 0): per-stage "
    "calls and packets, per-call cycle histograms, per-queue counters, packet traces";

}  // namespace pathscope::analysis
