// pathscope list / show / merge: reading and combining stores.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "analysis/verdicts/experiment.h"
#include "analysis/render/run_view.h"
#include "analysis/text/safe_text.h"
#include "analysis/figures/workers.h"
#include "cli/cli_support.h"
#include "db/merge.h"
#include "db/queries.h"
#include "db/schema.h"

namespace pathscope::cli {

namespace {

int list(const std::string& path) {
    // Read-only: listing a store never changes it (an older one is read
    // through a migrated copy; a dead capture's run shows as aborted, and
    // the next capture into the store marks it so).
    auto db = open_existing_store(path, db::Database::Mode::read_only);
    const auto runs = db::list_runs(*db);
    if (runs.empty()) {
        std::cout << db::redacted(path) << ": no runs yet (pathscope run" << db_argument(path)
                  << ")\n";
        return 0;
    }
    // Runs outside any experiment first, then each experiment's cells together.
    std::vector<const db::RunInfo*> single;
    std::vector<std::string> experiments;
    std::map<std::string, std::vector<const db::RunInfo*>> cells;
    for (const auto& r : runs) {
        if (r.experiment.empty()) {
            single.push_back(&r);
            continue;
        }
        if (!cells.count(r.experiment)) experiments.push_back(r.experiment);
        cells[r.experiment].push_back(&r);
    }
    // A cell by what tells it from its experiment's other cells ("bind=true connect=false cache=on").
    std::map<std::string, std::vector<std::string>> cell_texts;
    for (const auto& r : runs) cell_texts[r.experiment].push_back(r.cell);
    auto name_of = [&](const db::RunInfo& r) {
        if (r.experiment.empty()) return analysis::printable(r.label);
        return "  " + analysis::printable(analysis::cell_difference(r.cell, cell_texts[r.experiment]));
    };
    int width = 5, kind_width = 11;
    for (const auto& r : runs) {
        width = std::max(width, std::min(72, static_cast<int>(name_of(r).size())));
        kind_width = std::max(kind_width, static_cast<int>(r.kind.size()));
    }
    std::printf("%5s  %-*s  %-9s %6s  %-*s %-14s %s\n", "id", width, "label", "status", "trials",
                kind_width, "kind", "host", "started (UTC)");
    auto recorded = db::trials_recorded(*db);
    auto row = [&](const db::RunInfo& r) {
        // An import ran no trials: "0/1" would read as a capture that stored none.
        char trials[32] = "  -   ";
        if (db::runs_trials(r.kind))
            std::snprintf(trials, sizeof trials, "%3d/%-2d", recorded[r.id], r.trials);
        std::printf("%5lld  %-*s  %-9s %s  %-*s %-14s %s\n", static_cast<long long>(r.id), width,
                    name_of(r).c_str(), r.status.c_str(), trials, kind_width,
                    r.kind.c_str(), analysis::printable(r.host).c_str(),
                    analysis::printable(r.started_at).c_str());
    };
    for (const auto* r : single) row(*r);
    for (const auto& e : experiments) {
        const auto& members = cells[e];
        const std::string scenario = analysis::printable(
            std::filesystem::path(members.front()->scenario_path).filename().string());
        std::printf("experiment %s: %zu cells of %s, trials interleaved\n", analysis::printable(e).c_str(),
                    members.size(), scenario.c_str());
        for (const auto* r : members) row(*r);
        std::string by;
        const std::string& cell = members.front()->cell;
        if (!cell.empty()) by = cell.substr(0, cell.find('='));
        std::printf("       compare: pathscope compare%s --experiment %s --by %s\n",
                    analysis::printable(db_argument(path)).c_str(), analysis::printable(e).c_str(),
                    analysis::printable(by).c_str());
    }
    return 0;
}

struct ShowArgs {
    std::string db, run;
    bool no_histograms = false;
    int worker = -1;  ///< -1: every worker merged
    bool workers = false;
};

int show(const ShowArgs& a) {
    auto db = open_existing_store(a.db, db::Database::Mode::read_only);
    const db::RunInfo info = resolve_run(*db, a.run);
    analysis::RunViewOptions opt;
    opt.histograms = !a.no_histograms;
    opt.worker_rows = a.workers;
    db::RunData run = db::load_run(*db, info.id);
    if (a.worker >= 0) {
        const auto ids = analysis::run_workers(run);
        if (!std::binary_search(ids.begin(), ids.end(), a.worker))
            throw UsageError("--worker " + std::to_string(a.worker) + ": " +
                             analysis::workers_text(run) + "; leave --worker out for all of them");
        run = analysis::worker_view(run, a.worker);
    }
    std::cout << analysis::render_run(run, opt);
    return 0;
}

int merge(const std::vector<std::string>& inputs, const std::string& out) {
    namespace fs = std::filesystem;
    const bool server_out = db::is_server_store(out);
    for (const auto& in : inputs) {
        if (db::is_server_store(in)) {
            if (in == out) throw UsageError("the output is also an input; merge into another store");
            continue;
        }
        if (!fs::exists(in)) throw std::runtime_error(in + ": no such store");
        if (!server_out && fs::exists(out) && fs::equivalent(in, out))
            throw UsageError("the output " + out + " is also an input; merge into a new file");
    }
    const bool fresh = !server_out && !fs::exists(out);
    try {
        const auto r = db::merge_stores(inputs, out);
        std::cout << "merged " << inputs.size() << " store(s) into " << db::redacted(out) << ": "
                  << r.copied << " run(s) copied, " << r.skipped << " already there\n";
    } catch (...) {
        if (fresh)  // a failed merge leaves no half-made output behind
            for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(out + suffix);
        throw;
    }
    return 0;
}

int push(const std::string& file, const std::string& to) {
    if (!db::is_server_store(to))
        throw UsageError("--to " + db::redacted(to) +
                         ": push uploads to a server store, a postgresql:// URL (pathscope merge "
                         "copies between files)");
    if (db::is_server_store(file))
        throw UsageError(db::redacted(file) + ": push uploads a local store file");
    const auto src = open_existing_store(file, db::Database::Mode::read_only);
    auto out = db::open_store(to, db::Database::Mode::read_write);
    const auto r = db::copy_runs(*src, *out, [&](int done, int total, const db::RunInfo& run) {
        std::cerr << "  " << done << "/" << total << "  run " << run.id << " \""
                  << analysis::printable(run.label) << "\"\n";
    });
    std::cout << "pushed " << file << " to " << out->path() << ": " << r.copied
              << " run(s) uploaded, " << r.skipped << " already there\n";
    return 0;
}

}  // namespace

void add_store_verbs(CLI::App& app, Verbs& verbs) {
    {
        auto path = std::make_shared<std::string>();
        CLI::App* v = app.add_subcommand("list", "list the runs in a store");
        v->footer(
            "Lists the runs in the store: id, label, status (running, complete or\n"
            "aborted), trials recorded of those planned, kind, host and start time.");
        add_db_option(v, *path);
        verbs.add(v, [path] { return list(*path); });
    }
    {
        auto a = std::make_shared<ShowArgs>();
        CLI::App* v = app.add_subcommand(
            "show", "print one stored run: stages, ledger, queues, perf, histograms");
        v->footer(
            "Prints one stored run: metadata, trials, the worker's load, the stage table\n"
            "(busy calls, cycles per packet over busy calls, idle share), the receive\n"
            "ledger, drops by reason, the queue table, perf counters, the hottest sampled\n"
            "functions and text histograms of per-call cycles. A run of several workers\n"
            "(engine.workers) shows their sums, and each worker's ledger; --worker N\n"
            "shows one worker alone, --workers a row per worker under each stage.");
        v->add_option("RUN", a->run, "a run id, a label (its latest run) or label@N")->required();
        add_db_option(v, a->db);
        v->add_flag("--no-histograms", a->no_histograms, "leave out the per-call histograms");
        v->add_option("--worker", a->worker,
                      "show worker N alone: its stages, edges, per-call histograms and ledger")
            ->type_name("N")
            ->check(CLI::NonNegativeNumber);
        v->add_flag("--workers", a->workers,
                    "a row per worker under each stage of the stage table (runs of several "
                    "workers)");
        verbs.add(v, [a] { return show(*a); });
    }
    {
        struct MergeArgs {
            std::vector<std::string> inputs;
            std::string out;
        };
        auto a = std::make_shared<MergeArgs>();
        CLI::App* v = app.add_subcommand("merge", "bring stores from several machines into one");
        v->footer(
            "Copies every run of the input stores into OUT.db (created if new). Runs are\n"
            "matched by their unique id, so merging the same store twice adds nothing.");
        v->add_option("STORE", a->inputs, "the stores to merge")->required();
        v->add_option("-o,--output", a->out, "the store to merge into")
            ->required()
            ->type_name("OUT.db");
        verbs.add(v, [a] { return merge(a->inputs, a->out); });
    }
    {
        struct PushArgs {
            std::string file, to;
        };
        auto a = std::make_shared<PushArgs>();
        CLI::App* v = app.add_subcommand(
            "push", "upload the runs of a local store to a team's server store");
        v->footer(
            "Uploads every run of FILE that the server store does not have yet (runs are\n"
            "matched by their unique id), each in a transaction of its own: pushing twice\n"
            "uploads nothing the second time, and a push cut short (the connection broke,\n"
            "the server restarted) uploads the rest when run again. For capture machines\n"
            "that record offline into a file, e.g.\n"
            "  pathscope push pathscope.db --to postgresql://writer@lab-db/pathscope\n"
            "The password is best kept out of the command line: libpq reads ~/.pgpass and\n"
            "PGPASSWORD. pathscope never prints or stores it.");
        v->add_option("FILE", a->file, "the local store to upload")->required();
        v->add_option("--to", a->to, "the server store: postgresql://[USER@]HOST[:PORT]/DATABASE")
            ->required()
            ->type_name("URL");
        verbs.add(v, [a] { return push(a->file, a->to); });
    }
}

}  // namespace pathscope::cli
