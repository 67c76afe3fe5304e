// Read queries over the store, for the CLI, reports and the GUI.
#pragma once

#include <string>
#include <vector>

#include "db/records.h"
#include "db/sqlite.h"

namespace pathscope::db {

/// Every run, oldest first.
std::vector<RunInfo> list_runs(const Database& db);

/// The run that `ref` names: a numeric id, or a label that names exactly one
/// run. Throws DbError listing the choices when the label is ambiguous or unknown.
RunInfo find_run(const Database& db, const std::string& ref);

/// A run and all of its rows (histogram buckets, stacks with their frames).
struct RunData {
    RunInfo info;
    Batch rows;
};
RunData load_run(const Database& db, int64_t run_id);

}  // namespace pathscope::db
