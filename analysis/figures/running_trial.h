// A running trial has written intervals but not yet its totals (they come
// when it ends). These rows stand in for them, summed from its intervals so
// far, so that a running run's stage table, queues and figures show what it
// has done up to now instead of nothing.
#pragma once

#include "db/records.h"

namespace pathscope::analysis {

/// For each trial with intervals and no trial row: a trial row (its ledger
/// summed, its window the intervals' span so far, rates over that) and its
/// stage and queue totals (seq -1) summed from the interval rows. Empty
/// when no trial is running.
db::Batch running_trial_rows(const db::RunData& run);

}  // namespace pathscope::analysis
