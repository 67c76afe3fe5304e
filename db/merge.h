// Bringing stores from several capture machines together.
#pragma once

#include <string>
#include <vector>

namespace pathscope::db {

struct MergeResult {
    int copied = 0;   ///< runs new to the output store
    int skipped = 0;  ///< runs it already had (same uuid)
};

/// Copies every run of each store in `inputs` that `output` does not have yet
/// (runs are matched by uuid, so merging twice adds nothing), with all their
/// rows; interned frames and stacks are re-interned. Creates `output` if
/// needed. Each input is checked like any store (application id, version).
MergeResult merge_stores(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace pathscope::db
