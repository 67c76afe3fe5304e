// A run of several workers in the store: each worker's stage and edge
// counters and per-call histograms are rows of their own (a worker column);
// every view reads their sums over the workers. These make the one from the
// other, both ways.
#pragma once

#include "db/records.h"

namespace pathscope::db {

/// Rows as the store gave them (stage_counters, edge_counters and
/// histograms carry each row's worker) into what a reader sees: when any
/// row is a worker's other than 0 (a run of several workers), the
/// per-worker rows move to worker_stages, worker_edges and
/// worker_histograms (stage_call_cycles), and `stages`, `edges` and
/// `histograms` get their sums per trial, interval and stage (histograms
/// bucket by bucket), worker kAllWorkers. A run of one worker is left as it is.
void gather_worker_rows(Batch& b);

/// Each key's rows summed over the workers (worker kAllWorkers), in the
/// order of their first row: stages per (trial, seq, stage) with the
/// lowest ord, edges per (trial, seq, from, to), histograms per (trial,
/// kind, subject) bucket by bucket.
std::vector<StageRow> sum_workers(const std::vector<StageRow>& rows);
std::vector<EdgeRow> sum_workers(const std::vector<EdgeRow>& rows);
std::vector<HistogramRow> sum_workers(const std::vector<HistogramRow>& rows);

}  // namespace pathscope::db
