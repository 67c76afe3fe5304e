// A capture run: every trial of a scenario on a fresh engine, snapshots every
// interval, perf_event counting and sampling on the worker thread, packet
// traces, all handed to the store's writer thread as batches.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/verdicts/sequential.h"
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
    /// What the run goes on without (sampling the kernel refused), said once.
    std::function<void(const std::string&)> warning;
    /// record_matrix: the axes to run instead of the scenario's [matrix]
    /// (run --ab KEY=A,B: one axis of two values).
    std::vector<MatrixAxis> matrix;
    /// An experiment of "auto" trials (capture.trials = "auto", run
    /// --until-decided): the setting its verdicts judge ("": its only axis,
    /// or its last) and the metrics ("": the rate and "all stages").
    std::string decide_by;
    std::vector<std::string> decide_metrics;
    /// record_matrix: stages from run --stage, added to every cell's scenario.
    std::vector<engine::StageConfig> stages;
    /// After each look of an "auto" experiment.
    std::function<void(const analysis::Look&)> look;
};

struct RecordResult {
    /// What was stored: the run, its trials' totals, facts, stacks and
    /// packet traces (the interval rows are not kept here).
    db::RunData run;
    int stop_signal = 0;  ///< SIGINT or SIGTERM that stopped it early, or 0
    std::string error;    ///< a store error that ended the run early
    /// A later trial (or another cell of the experiment) could not start;
    /// the run is aborted with this as its note.
    std::string setup_error;
    /// Disturbed trials that a re-run replaced (capture.retry_disturbed).
    unsigned replaced = 0;
};

/// Runs and records `scenario`, SIGINT and SIGTERM stopping it early (see
/// StopSignals). Throws, before anything is stored, on a scenario or store
/// that cannot be used at all, a sampling rate above the kernel's limit, or
/// a first trial whose engine cannot be set up (a device that refuses the
/// queue count, a pool too small). Errors after the run has started end it
/// early and are in RecordResult::error or setup_error, with everything
/// committed before kept. A stop before the first trial started stores
/// nothing: the result's run has no id then.
RecordResult record_run(const Scenario& scenario, const RecordOptions& options);
/// What only the machine can refuse, checked before anything starts or is
/// printed: a sampling rate above the kernel's limit, a replay file that
/// cannot be read. record_run and record_matrix check it too.
void check_before_recording(const Scenario& scenario);

/// Runs every cell of the scenario's [matrix] (each the scenario with the
/// cell's settings over `overrides`) as its own run, all tagged with one new
/// experiment id and each with its cell's settings. Trials interleave: trial
/// 1 of every cell, then trial 2 of every cell, and so on. Throws
/// ScenarioError naming the cell whose settings do not load. A stop
/// (SIGINT, SIGTERM) ends the experiment: the result holds the cells that
/// ran. A cell that cannot start ends it too: the cells that ran are
/// aborted with that reason, or, when none has, it throws. Within a block
/// the cells run in order, and in reverse order in every other block
/// (A B, B A, A B, ...: ABBA), so that a linear drift of the machine
/// cancels in the cells' paired differences.
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
