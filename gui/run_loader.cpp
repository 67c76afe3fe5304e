#include "gui/run_loader.h"

#include <algorithm>

#include "analysis/run_metrics.h"
#include "db/queries.h"
#include "db/schema.h"

namespace pathscope::gui {

StoreListing list_store(const std::string& path) {
    StoreListing out;
    try {
        auto db = db::open_store(path, db::Database::Mode::read_only);
        out.runs = db::list_runs(*db);
        auto recorded = db::trials_recorded(*db);
        for (const auto& r : out.runs) out.trials_recorded.push_back(recorded[r.id]);
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
        out.runs.clear();
        out.trials_recorded.clear();
    }
    return out;
}

namespace {
void set_path(LoadedRun& out, analysis::PathGraph g, const db::RunData& run) {
    const auto balance = analysis::path_balance(g, run);
    out.path_balanced = std::all_of(balance.begin(), balance.end(), [](const auto& b) { return b.ok(); });
    out.path = std::make_shared<analysis::PathGraph>(std::move(g));
}
}  // namespace

LoadedRun load_run(const std::string& path, int64_t id) {
    LoadedRun out;
    try {
        db::RunData run;
        {
            auto db = db::open_store(path, db::Database::Mode::read_only);
            run = db::load_run(*db, id);
        }  // the connection closes here: no read transaction outlives the load
        out.summary = analysis::summarize_run(run);
        out.data = std::make_shared<db::RunData>(run);
        const analysis::FlameTree stages = analysis::stage_tree(run);
        out.stages = std::make_shared<analysis::FlameDiff>(analysis::diff_trees(stages, stages));
        set_path(out, analysis::path_graph(run), run);
        const std::string event = analysis::main_stack_event(run);
        if (!event.empty()) {
            const analysis::FlameTree stacks = analysis::stack_tree(run, event);
            out.stacks =
                std::make_shared<analysis::FlameDiff>(analysis::diff_trees(stacks, stacks));
            out.stack_event = QString::fromStdString(event);
        }
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
    }
    return out;
}

LoadedRun load_pair(const std::string& path, int64_t base, int64_t cand) {
    LoadedRun out = load_run(path, cand);
    if (!out.error.isEmpty()) return out;
    try {
        db::RunData b;
        {
            auto db = db::open_store(path, db::Database::Mode::read_only);
            b = db::load_run(*db, base);
        }
        set_path(out, analysis::path_graph_compare(b, *out.data), *out.data);
        out.report = std::make_shared<analysis::Report>(
            analysis::build_report(b, out.data.get(), analysis::ReportOptions{}));
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
    }
    return out;
}

}  // namespace pathscope::gui
