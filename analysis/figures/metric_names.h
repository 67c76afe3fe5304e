// Names that the analysis hands to its renderers, the CLI and the GUI, and
// that they look up: one constant each, never a literal repeated.
#pragma once

namespace pathscope::analysis {

// Metric groups.
inline constexpr const char* kThroughput = "throughput";
inline constexpr const char* kStageCycles = "stage cycles";
inline constexpr const char* kCallLatency = "call latency";
inline constexpr const char* kPerfGroup = "perf";
/// Latencies in cycles (db::kLatency histograms): a packet's time through
/// the engine per outcome, request/response round trips, timed calls.
inline constexpr const char* kLatencyGroup = "latency";
/// What the engine did besides moving packets (engine/path_events.h), per
/// lookup, per packet or per transaction.
inline constexpr const char* kPathEventsGroup = "path events";

// Throughput metrics.
inline constexpr const char* kRxRate = "rx rate";
inline constexpr const char* kTxRate = "tx rate";
/// Request/response transactions completed a second, over the window.
inline constexpr const char* kRrRate = "rr rate";

// Path event metrics.
inline constexpr const char* kRuleEntriesPerLookup = "rule entries/lookup";
inline constexpr const char* kRulesPerLookup = "rules/lookup";
inline constexpr const char* kTablesPerLookup = "tables/lookup";
inline constexpr const char* kDemuxHitShare = "demux hits";
inline constexpr const char* kTranslationsPerPacket = "translations/pkt";
inline constexpr const char* kBusyShare = "worker busy";
inline constexpr const char* kCyclesPerTransaction = "busy cyc/transaction";

/// The whole path's row of a stage table: the sum of the stage rows.
inline constexpr const char* kAllStages = "all stages";
/// Busy cycles over received packets: stage rows in this unit add up.
inline constexpr const char* kCyclesPerRxPacket = "cyc/rx pkt";
/// The same over the datagrams local sockets sent, for a run that received
/// nothing (a transmit-only run).
inline constexpr const char* kCyclesPerTxPacket = "cyc/tx pkt";
/// The per-path-packet unit of a run: kCyclesPerTxPacket for a run that
/// only sent (PacketBasis::transmit), kCyclesPerRxPacket otherwise.
inline constexpr const char* cycles_per_path_packet(bool transmit) {
    return transmit ? kCyclesPerTxPacket : kCyclesPerRxPacket;
}

/// The unit of a per-call cycle histogram (db::kStageCallCycles): idle
/// polls are left out.
inline constexpr const char* kCyclesPerBusyCall = "cycles per busy call";

// Statistical tests, as verdicts name them.
inline constexpr const char* kStudentT = "Student's t";
inline constexpr const char* kMannWhitneyU = "Mann-Whitney U";
/// On the per-block differences of two interleaved runs (an experiment's cells).
inline constexpr const char* kPairedT = "paired t";
inline constexpr const char* kSignedRank = "Wilcoxon signed-rank";

// Verdict outcomes, as every view names them.
inline constexpr const char* kBetter = "better";
inline constexpr const char* kWorse = "worse";
inline constexpr const char* kNoDifference = "no difference";
/// A test that cannot reject at this N (fewer than 2 values a side, or a
/// rank test whose smallest reachable p is above the level).
inline constexpr const char* kTooFewTrials = "too few trials";
/// A verdict that rests on disturbed trials (the worker lost its CPU).
inline constexpr const char* kUnreliable = "unreliable";

}  // namespace pathscope::analysis
