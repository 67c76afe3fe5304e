// What a page needs of a run, computed off the GUI thread: the run's rows,
// its summary and its flame trees. Each load opens its own read-only
// connection to the store, used only on the thread that opened it.
#pragma once

#include <QString>
#include <memory>
#include <string>
#include <vector>

#include "analysis/flame_diff.h"
#include "analysis/path_graph.h"
#include "analysis/report.h"
#include "analysis/run_summary.h"
#include "db/records.h"

namespace pathscope::gui {

struct StoreListing {
    QString error;  ///< the store's own message (foreign, newer, damaged, not SQLite)
    std::vector<db::RunInfo> runs;
    std::vector<int> trials_recorded;
};

/// The runs of the store at `path`, or the error that refuses it.
StoreListing list_store(const std::string& path);

struct LoadedRun {
    unsigned generation = 0;  ///< which request this answers (the GUI drops stale ones)
    QString error;
    std::shared_ptr<const db::RunData> data;  ///< every row, for the pages that draw them
    analysis::RunSummary summary;
    std::shared_ptr<const analysis::FlameDiff> stages;  ///< busy cycles per received packet
    std::shared_ptr<const analysis::FlameDiff> stacks;  ///< shares of the samples; null when none
    QString stack_event;
    /// The packet path (Path page; coloured by change for a comparison) and
    /// whether packets balance at each of its stages.
    std::shared_ptr<const analysis::PathGraph> path;
    bool path_balanced = true;
    /// A comparison (load_pair): candidate against base, everything the CLI's
    /// report holds.
    std::shared_ptr<const analysis::Report> report;
};

/// Loads run `id` of the store at `path`.
LoadedRun load_run(const std::string& path, int64_t id);

/// Loads two runs and compares `cand` against `base` (the summary and trees
/// are the candidate's).
LoadedRun load_pair(const std::string& path, int64_t base, int64_t cand);

}  // namespace pathscope::gui
