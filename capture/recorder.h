// A capture run: every trial of a scenario on a fresh engine, snapshots every
// interval, perf_event counting and sampling on the worker thread, packet
// traces, all handed to the store's writer thread as batches.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "capture/scenario.h"
#include "db/queries.h"

namespace pathscope::capture {

struct RecordProgress {
    unsigned trial = 0, trials = 0;
    double t = 0, duration = 0;  ///< seconds into the trial, of
    uint64_t received = 0;       ///< packets received so far in this trial
    uint64_t rows = 0;           ///< rows the writer has committed
    unsigned cell = 1, cells = 1;  ///< which cell of a matrix (1 of 1: a single run)
};

struct RecordOptions {
    std::string db_path = "pathscope.db";
    std::string label;  ///< default: the scenario's file name and the --set list
    std::string scenario_path;
    std::function<void(const RecordProgress&)> progress;
};

struct RecordResult {
    db::RunData run;  ///< what was stored, without the interval rows
    bool interrupted = false;
    std::string error;  ///< a store error that ended the run early
};

/// Runs and records `scenario`. Throws on a scenario or store that cannot be
/// used at all; errors after the run has started end it early and are in
/// RecordResult::error, with everything committed before kept.
RecordResult record_run(const Scenario& scenario, const RecordOptions& options);

/// Runs every cell of the scenario's [matrix] (each the scenario with the
/// cell's settings over `overrides`) as its own run, all tagged with one new
/// experiment id and each with its cell's settings. Trials interleave: trial
/// 1 of every cell, then trial 2 of every cell, and so on. Throws
/// ScenarioError naming the cell whose settings do not load.
std::vector<RecordResult> record_matrix(const std::string& scenario_path,
                                        const std::vector<std::string>& overrides,
                                        const RecordOptions& options);

/// A new run's facts about this machine and build: host, CPU model, TSC Hz
/// (needs the EAL), pathscope version and git revision, and this process's pid.
db::RunInfo machine_run_info();

/// Stores an import (a capture file or a profile) as one complete run of
/// `kind` ("pcap-import", "folded-import", ...) labelled `label`, or the
/// file's name when empty; returns it as stored.
db::RunData store_import(const std::string& kind, const std::string& file,
                         const std::string& label, db::Batch rows, const std::string& db_path);

}  // namespace pathscope::capture
