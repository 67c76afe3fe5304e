// Read queries over the store, for the CLI, reports and the GUI.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "db/records.h"
#include "db/connection.h"

namespace pathscope::db {

/// Every run, oldest first.
std::vector<RunInfo> list_runs(const Database& db);

/// A browser's listing: the runs with an id above `after` and those in
/// `also`, oldest first, without their scenario text (the bulk of a run's
/// row; load_run has it).
std::vector<RunInfo> list_runs_brief(const Database& db, int64_t after = 0,
                                     const std::vector<int64_t>& also = {});

/// How many trials each run has stored, by run id (one query for all).
std::map<int64_t, int> trials_recorded(const Database& db);

/// The run that `ref` names: a numeric id; a label, which means its latest
/// run (`note`, when given, then says which id was taken of several); or
/// label@N, the N-th run with that label, oldest first. Throws DbError
/// naming the store and how to list its runs when none matches.
RunInfo find_run(const Database& db, const std::string& ref, std::string* note = nullptr);

/// A run reference as find_run reads it: a numeric id, or a label and
/// which of its runs (`nth` counts from 1, oldest first; 0: the latest).
struct RunRef {
    int64_t id = 0;  ///< 0: `label` names the run
    std::string label;
    size_t nth = 0;
};
/// Parses `ref`; throws DbError for label@0.
RunRef parse_run_ref(const std::string& ref);
/// find_run's rule over runs already listed (oldest first): the index of
/// the run `ref` names, or -1. Needs no connection (the GUI's run list).
ptrdiff_t pick_run(const std::vector<RunInfo>& runs, const RunRef& ref);

/// The runs (cells) of the experiment `ref` names: its id, a unique
/// prefix of it (4 characters or more), or any run of it (id, label,
/// label@N). Oldest first. Throws DbError naming what matched nothing.
std::vector<RunInfo> experiment_runs(const Database& db, const std::string& ref);

/// A number that changes whenever another connection commits to the store
/// (PRAGMA data_version): a live view polls it to see new rows. Each call
/// is its own implicit transaction, so polling never holds a read open.
int64_t data_version(const Database& db);

struct LoadOptions {
    /// Each stack row gets its frames (for exports and merges); off, rows
    /// point into RunData::stack_index only (a viewer of a million samples).
    bool expand_stacks = true;
    /// The sampled stacks and packet traces, which only the views of one
    /// run draw; off, a run is read for its figures alone (an experiment's
    /// grid judges every cell's figures, and a sampled cell's stacks are
    /// most of its rows).
    bool stacks_and_traces = true;
};

/// Run `run_id` and all of its rows (histogram buckets, stacks with their frames).
RunData load_run(const Database& db, int64_t run_id, const LoadOptions& opt = {});

/// Where a reader of a growing run has got to: the last key read of each
/// kind of row. Rows are written in key order (a trial's intervals, then its
/// totals), so what lies past the cursor is exactly what was committed since.
/// The stacks a reader has placed so far: the StackIndex that
/// merge_run_rows has built from every delta read with the cursor, and
/// where each store stack and frame is in it. A delta then reads and places
/// only the stacks it has not seen (a live profile samples the same stacks
/// again and again), and merging it is an append.
struct PlacedStacks {
    StackIndex index;                               ///< nodes and frames so far
    std::unordered_map<int64_t, int32_t> node_of;   ///< store stack id -> node
    std::unordered_map<int64_t, int32_t> frame_of;  ///< store frame id -> frame
};

struct RunCursor {
    bool started = false;
    int interval_trial = -1, interval_seq = -1;  ///< per-interval rows (seq >= 0)
    int trials_done = -1;                        ///< the last trial whose totals were read
    int trace_trial = -1;
    int64_t trace_seq = -1;
    PlacedStacks stacks;
};

/// What run `run_id` gained since `cursor` (everything, for a fresh cursor),
/// read in one transaction so a writer's batch is seen whole; advances the
/// cursor. The run's info and facts come whole each time. A trial that
/// completed since brings all its stacks again (a trial's last samples join
/// its last interval when it ends): replace_stack_trials names them, and
/// merge_run_rows drops the old ones first.
struct RunDelta {
    /// Its stack_index holds only the stacks and frames new to the cursor,
    /// numbered after those read before it (nodes_before, frames_before):
    /// a fresh cursor's delta is a whole RunData, a later one is whole only
    /// merged into the rows read before it.
    RunData data;
    size_t nodes_before = 0, frames_before = 0;
    std::vector<int> replace_stack_trials;
    /// No row past the cursor (facts come whole each time, so they do not count).
    bool empty() const { return data.rows.rows() == data.rows.facts.size(); }
};
RunDelta load_run_since(const Database& db, int64_t run_id, RunCursor& cursor,
                        const LoadOptions& opt = {});

/// Adds a delta to the rows read before with the same cursor and
/// LoadOptions: info and facts replaced, rows and new stacks appended.
/// Throws std::logic_error for a delta that does not follow `into`.
void merge_run_rows(RunData& into, RunDelta&& delta);

}  // namespace pathscope::db
