// Bringing stores from several capture machines together.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "db/connection.h"
#include "db/records.h"

namespace pathscope::db {

struct MergeResult {
    int copied = 0;   ///< runs new to the output store
    int skipped = 0;  ///< runs it already had (same uuid)
};

/// After each run copied: how many so far, of how many, and which.
using CopyProgress = std::function<void(int done, int total, const RunInfo& run)>;

/// Copies every run of `src` that `out` does not have yet (by uuid), each
/// with all its rows in a transaction of its own, interned frames and stacks
/// re-interned: so copying again adds nothing, and a copy cut short (a
/// broken connection) leaves whole runs only and finishes when run again.
/// Either store may be of either back end.
MergeResult copy_runs(const Database& src, Database& out, const CopyProgress& progress = {});

/// Copies every run of each store in `inputs` that `output` does not have yet
/// (runs are matched by uuid, so merging twice adds nothing), with all their
/// rows; interned frames and stacks are re-interned. Creates `output` if
/// needed. Each input is checked like any store (application id, version).
MergeResult merge_stores(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace pathscope::db
