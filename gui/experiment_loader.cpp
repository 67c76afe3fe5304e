#include "gui/experiment_loader.h"

#include "analysis/verdicts/sequential.h"
#include "gui/display_text.h"

#include "db/queries.h"
#include "db/schema.h"

namespace pathscope::gui {

LoadedExperiment load_experiment(const std::string& path, const std::string& experiment,
                                 const std::string& by) {
    LoadedExperiment out;
    try {
        std::vector<db::RunData> runs;
        {
            auto db = db::open_store(path, db::Database::Mode::read_only);
            // The grid judges figures: no cell's stacks or traces are read.
            const db::LoadOptions figures{.stacks_and_traces = false};
            for (const auto& info : db::experiment_runs(*db, experiment))
                runs.push_back(db::load_run(*db, info.id, figures));
        }  // the connection closes here: no read transaction outlives the load
        out.comparison = std::make_shared<analysis::ExperimentComparison>(
            analysis::compare_experiment(runs, by, {},
                                        analysis::judged_confidence(runs, kExperimentConfidence)));
    } catch (const std::exception& e) {
        out.error = display_lines(e.what());
    }
    return out;
}

}  // namespace pathscope::gui
