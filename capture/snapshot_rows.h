// Engine snapshots turned into the store's rows: trial totals, and the
// deltas of one snapshot interval.
#pragma once

#include "capture/run.h"
#include "db/records.h"

namespace pathscope::capture {

/// Totals of one trial: its TrialRow (steady-state rates), per-stage and
/// per-queue counters (seq -1), drops by reason and histograms. A snapshot
/// of several workers also gives each worker's stages, edges, per-call
/// histograms and ledger (Batch::worker_*); one worker gives none.
db::Batch trial_rows(int trial, const RunResult& r);

/// What changed between two snapshots of a running trial: one IntervalRow
/// and per-stage and per-queue deltas, all with sequence number `seq`; and
/// each worker's stage and edge deltas when there are several.
db::Batch interval_rows(int trial, int seq, double t, const engine::EngineSnapshot& prev,
                        const engine::EngineSnapshot& cur);

/// A histogram as a store row (its non-empty buckets).
db::HistogramRow histogram_row(int trial, const char* kind, const std::string& subject,
                               const char* unit, const analysis::Histogram& h);

/// Packets per second of a ledger field between two snapshots.
double rate_pps(const engine::EngineSnapshot& a, const engine::EngineSnapshot& b,
                uint64_t engine::Ledger::*field);

}  // namespace pathscope::capture
