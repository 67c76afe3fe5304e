// Names that the analysis hands to its renderers, the CLI and the GUI, and
// that they look up: one constant each, never a literal repeated.
#pragma once

namespace pathscope::analysis {

// Metric groups.
inline constexpr const char* kThroughput = "throughput";
inline constexpr const char* kStageCycles = "stage cycles";
inline constexpr const char* kCallLatency = "call latency";
inline constexpr const char* kPerfGroup = "perf";

/// The whole path's row of a stage table: the sum of the stage rows.
inline constexpr const char* kAllStages = "all stages";
/// Busy cycles over received packets: stage rows in this unit add up.
inline constexpr const char* kCyclesPerRxPacket = "cyc/rx pkt";

// Statistical tests, as verdicts name them.
inline constexpr const char* kStudentT = "Student's t";
inline constexpr const char* kMannWhitneyU = "Mann-Whitney U";

}  // namespace pathscope::analysis
