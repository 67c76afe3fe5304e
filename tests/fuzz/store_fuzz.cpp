// libFuzzer target: a store as someone might mail it, damaged or hostile.
// The input is written as the store file and opened as the product opens
// one: read-only (show, report, export, compare, the GUI), then read-write
// without creating (list: migrations and marking dead runs), then as an
// input of merge. On the read-only connection every read query the CLI and
// the GUI run is run (list, find a run by id and label, experiments, a whole
// run and its live increments with and without expanded stacks), and what
// they return goes through what shows it: the run view, reports in every
// format, CSV tables, the path graph, flame trees and call views, worker
// views, the experiment comparison. SQLite's defences are the product's
// own (db/sqlite.cpp); every statement is bounded by a small QueryBudget so
// a hostile view or a cyclic table ends in an error, not a hang.
//
// A refusal must be a DbError naming the store (or a runtime_error of the
// analysis); a crash, a leak, a hang or another exception is a finding.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/trees/call_tree.h"
#include "analysis/render/csv_export.h"
#include "analysis/render/experiment_report.h"
#include "analysis/trees/flame_tree.h"
#include "analysis/verdicts/path_graph.h"
#include "analysis/figures/queue_skew.h"
#include "analysis/render/report.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"
#include "analysis/render/run_view.h"
#include "analysis/figures/time_series.h"
#include "analysis/figures/workers.h"
#include "db/merge.h"
#include "db/queries.h"
#include "db/schema.h"

using namespace pathscope;
namespace fs = std::filesystem;

namespace {

/// Far more than a seed store needs (a few hundred thousand steps), far
/// less than a second.
constexpr uint64_t kFuzzBudget = 5'000'000;
constexpr size_t kRunsRead = 4;

fs::path g_dir;

fs::path work_dir() {
    if (g_dir.empty()) {
        std::string tmpl = (fs::temp_directory_path() / "store_fuzz.XXXXXX").string();
        if (!mkdtemp(tmpl.data())) {
            std::perror("mkdtemp");
            std::abort();
        }
        g_dir = tmpl;
        db::QueryBudget::default_limit = kFuzzBudget;
        std::atexit([] { fs::remove_all(g_dir); });
    }
    return g_dir;
}

void remove_store(const fs::path& p) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        fs::remove(p.string() + suffix);
}

[[noreturn]] void finding(const std::string& what) {
    std::fprintf(stderr, "store_fuzz: %s\n", what.c_str());
    std::abort();
}

/// Runs `f`; a DbError must name `store`; an analysis may refuse with a
/// runtime_error; anything else is a finding.
template <class F>
void guarded(const char* what, const std::string& store, F&& f) {
    try {
        f();
    } catch (const db::DbError& e) {
        if (std::string(e.what()).find(store) == std::string::npos)
            finding(std::string(what) + ": an error that does not name the store: " + e.what());
    } catch (const std::runtime_error&) {
    } catch (const std::exception& e) {
        finding(std::string(what) + ": threw " + e.what());
    }
}

void show(const db::RunData& run) {
    analysis::RunViewOptions view;
    view.worker_rows = true;
    analysis::render_run(run, view);
    analysis::summarize_run(run);
    analysis::workers_text(run);
    analysis::worker_ledgers(run);
    const auto workers = analysis::run_workers(run);
    for (size_t i = 0; i < workers.size() && i < 2; ++i)
        analysis::render_run(analysis::worker_view(run, workers[i]));
    for (const analysis::Report& r :
         {analysis::build_report(run, nullptr, {}), analysis::build_report(run, &run, {})}) {
        for (auto f : {analysis::ReportFormat::text, analysis::ReportFormat::markdown,
                       analysis::ReportFormat::html, analysis::ReportFormat::json})
            analysis::render_report(r, f);
        analysis::render_hottest_text(r);
    }
    for (const auto& table : analysis::csv_tables()) analysis::to_csv(run, table);
    const analysis::PathGraph g = analysis::path_graph(run);
    analysis::render_dot(g, "fuzz");
    analysis::render_balance(analysis::path_balance(g, run));
    analysis::render_dot(analysis::path_graph_compare(run, run), "fuzz");
    const analysis::FlameTree stacks = analysis::stack_tree(run);
    const analysis::FlameTree stages = analysis::stage_tree(run);
    analysis::to_folded(stacks);
    analysis::to_speedscope({{"stacks", &stacks}, {"stages", &stages}}, "fuzz");
    analysis::build_call_views(stacks);
    analysis::build_call_views(stages, stacks);
    const analysis::TimeSeries ts = analysis::time_series(run);
    analysis::stage_tree_in_range(run, 0, 1e9);
    analysis::stack_tree_in_range(run, analysis::main_stack_event(run), 0, 1e9);
    analysis::queue_skew(run.rows.queues);
    analysis::run_metrics(run);
}

void read_all(const db::Database& db, const std::string& store) {
    std::vector<db::RunInfo> runs;
    guarded("list_runs", store, [&] { runs = db::list_runs(db); });
    guarded("list_runs_brief", store, [&] {
        db::list_runs_brief(db);
        db::list_runs_brief(db, 1, {2, 3});
    });
    guarded("trials_recorded", store, [&] { db::trials_recorded(db); });
    guarded("data_version", store, [&] { db::data_version(db); });
    for (size_t i = 0; i < runs.size() && i < kRunsRead; ++i) {
        const db::RunInfo& info = runs[i];
        guarded("find_run", store, [&] {
            std::string note;
            db::find_run(db, std::to_string(info.id), &note);
            db::find_run(db, info.label, &note);
            db::find_run(db, info.label + "@1", &note);
        });
        if (!info.experiment.empty())
            guarded("experiment", store, [&] {
                std::vector<db::RunData> cells;
                for (const auto& r : db::experiment_runs(db, info.experiment)) {
                    if (cells.size() == 3) break;
                    cells.push_back(db::load_run(db, r.id));
                }
                const std::string by = info.cell.substr(0, info.cell.find('='));
                const auto e = analysis::compare_experiment(cells, by, {}, 95);
                analysis::render_experiment_text(e);
                analysis::render_experiment_markdown(e);
                analysis::render_experiment_html(e);
                analysis::render_experiment_json(e);
                analysis::render_experiment_ministat(e);
            });
        guarded("load_run", store, [&] {
            const db::RunData run = db::load_run(db, info.id);
            show(run);
        });
        guarded("load_run_since", store, [&] {
            // As the live view and the GUI read a run: by increments, stacks
            // left as nodes of the index.
            db::LoadOptions opt;
            opt.expand_stacks = false;
            db::RunCursor cursor;
            db::RunData run = db::load_run_since(db, info.id, cursor, opt).data;
            db::merge_run_rows(run, db::load_run_since(db, info.id, cursor, opt));
            analysis::stack_tree(run);
            analysis::time_series(run);
        });
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const fs::path dir = work_dir();
    const fs::path store = dir / "store.db";
    const fs::path merged = dir / "merged.db";
    remove_store(store);
    remove_store(merged);
    {
        std::ofstream f(store, std::ios::binary);
        f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    const std::string path = store.string();
    guarded("open read-only", path, [&] {
        auto db = db::open_store(path, db::Database::Mode::read_only);
        read_all(*db, path);
    });
    guarded("open read-write", path, [&] {
        auto db = db::open_store(path, db::Database::Mode::read_write, db::Create::never);
        db::list_runs(*db);
    });
    guarded("merge", dir.string(), [&] { db::merge_stores({path}, merged.string()); });
    remove_store(store);
    remove_store(merged);
    return 0;
}
