// pathscope list / show / merge: reading and combining stores.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "analysis/run_view.h"
#include "cli/args.h"
#include "cli/verbs.h"
#include "db/merge.h"
#include "db/queries.h"
#include "db/schema.h"

namespace pathscope::cli {

const char* const kListUsage =
    "usage: pathscope list [--db FILE]\n"
    "\n"
    "Lists the runs in the store (default pathscope.db): id, label, status\n"
    "(running, complete or aborted), trials, kind, host and start time.\n";

const char* const kShowUsage =
    "usage: pathscope show RUN [--db FILE] [--no-histograms]\n"
    "\n"
    "Prints one stored run: metadata, trials, the stage table, the receive ledger,\n"
    "drops by reason, the queue table, perf counters, the hottest sampled functions\n"
    "and text histograms of per-call cycles. RUN is a run id or a label.\n";

const char* const kMergeUsage =
    "usage: pathscope merge A.db B.db ... -o OUT.db\n"
    "\n"
    "Copies every run of the input stores into OUT.db (created if new). Runs are\n"
    "matched by their unique id, so merging the same store twice adds nothing.\n";

int cmd_list(const std::vector<std::string>& argv) {
    const Args a = parse_args(argv, {"--db"}, {}, kListUsage);
    if (!a.positional.empty()) usage_error("list takes no arguments", kListUsage);
    // Read-write, so that runs whose capture died are marked aborted first.
    auto db = db::open_store(db_path(a), db::Database::Mode::read_write);
    const auto runs = db::list_runs(*db);
    if (runs.empty()) {
        std::cout << db_path(a) << ": no runs yet (pathscope run --db " << db_path(a) << ")\n";
        return 0;
    }
    int width = 5;
    for (const auto& r : runs) width = std::max(width, std::min(48, static_cast<int>(r.label.size())));
    std::printf("%5s  %-*s  %-9s %6s  %-11s %-14s %s\n", "id", width, "label", "status", "trials",
                "kind", "host", "started (UTC)");
    for (const auto& r : runs) {
        const auto trials =
            db->scalar("SELECT count(*) FROM trials WHERE run_id = " + std::to_string(r.id));
        std::printf("%5lld  %-*s  %-9s %3lld/%-2d  %-11s %-14s %s\n", static_cast<long long>(r.id),
                    width, r.label.c_str(), r.status.c_str(), static_cast<long long>(trials),
                    r.trials, r.kind.c_str(), r.host.c_str(), r.started_at.c_str());
    }
    return 0;
}

int cmd_show(const std::vector<std::string>& argv) {
    const Args a = parse_args(argv, {"--db"}, {"--no-histograms"}, kShowUsage);
    if (a.positional.size() != 1) usage_error("show needs one RUN (an id or a label)", kShowUsage);
    auto db = db::open_store(db_path(a), db::Database::Mode::read_only);
    const db::RunInfo info = db::find_run(*db, a.positional[0]);
    analysis::RunViewOptions opt;
    opt.histograms = !a.has("--no-histograms");
    std::cout << analysis::render_run(db::load_run(*db, info.id), opt);
    return 0;
}

int cmd_merge(const std::vector<std::string>& argv) {
    const Args a = parse_args(argv, {"-o", "--output"}, {}, kMergeUsage);
    const std::string out = a.get("-o", a.get("--output"));
    if (out.empty()) usage_error("merge needs -o OUT.db", kMergeUsage);
    if (a.positional.empty()) usage_error("merge needs at least one input store", kMergeUsage);
    const auto r = db::merge_stores(a.positional, out);
    std::cout << "merged " << a.positional.size() << " store(s) into " << out << ": " << r.copied
              << " run(s) copied, " << r.skipped << " already there\n";
    return 0;
}

}  // namespace pathscope::cli
