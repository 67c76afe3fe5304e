// A run of several worker lcores (engine.workers >= 2): which workers it
// has, one worker's view of it, and each worker's receive ledger. The
// store keeps stage and edge counters, per-call histograms and ledgers per
// worker (db::Batch::worker_*); the run's own rows are their sums.
#pragma once

#include <string>
#include <vector>

#include "db/records.h"

namespace pathscope::analysis {

/// The workers of a run, ascending: {0} for a run of one worker.
std::vector<int> run_workers(const db::RunData& run);

/// "run 12 has workers 0-1" (or "run 12 has one worker, 0"): what a
/// request for a worker the run does not have is told.
std::string workers_text(const db::RunData& run);

/// Run `run` as worker `worker` alone saw it: its stage rows, edges,
/// per-call histograms and, per trial, its ledger and window rates in
/// place of the run's; the label says "[worker N]". Every page and report
/// shows one worker by running on this, with the queues it polls and sends
/// on. What is not kept per worker stays the engine's: latencies, path
/// events, perf counters, stacks
/// (only with `with_stacks`) and traces. The intervals' ledgers and drops by
/// reason are left out, not shown as the worker's (its drops are in its
/// ledger; its stage rows keep their intervals).
/// Throws std::out_of_range naming the workers the run has.
db::RunData worker_view(const db::RunData& run, int worker, bool with_stacks = true);

/// One worker's receive ledger over every trial.
struct WorkerLedgerLine {
    int worker = 0;
    int lcore = 0;
    uint64_t received = 0, delivered = 0, forwarded = 0, replied = 0, dropped = 0, sent = 0;
    bool balanced() const { return received == delivered + forwarded + replied + dropped; }
};

/// The ledgers of a run's workers (none for a run of one worker) and
/// whether, trial by trial, they add up to the run's own ledger.
struct WorkerLedgers {
    std::vector<WorkerLedgerLine> lines;  ///< by worker
    bool sum_matches = true;
    std::string mismatch;  ///< the first trial and field that does not add up
    bool all_balanced() const;
};
WorkerLedgers worker_ledgers(const db::RunData& run);

}  // namespace pathscope::analysis
