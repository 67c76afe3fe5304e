// pathscope import / export: captures and profiles in and out of the store.
#include <algorithm>
#include <iostream>

#include "analysis/csv_export.h"
#include "analysis/flame_tree.h"
#include "analysis/run_metrics.h"
#include "analysis/run_view.h"
#include "capture/pcap_import.h"
#include "capture/pcapng_writer.h"
#include "capture/profile_import.h"
#include "cli/args.h"
#include "cli/verbs.h"
#include "db/queries.h"
#include "db/schema.h"

namespace pathscope::cli {

const char* const kImportUsage =
    "usage: pathscope import pcap|folded|perf FILE [--db FILE] [--label NAME]\n"
    "\n"
    "  pcap    a pcap or pcapng capture: stores its summary (packets, bytes,\n"
    "          flows, protocols) and runs every packet through the engine's\n"
    "          parser, so the store shows the drop reasons it would count.\n"
    "          Ethernet, raw IPv6, BSD loopback and Linux cooked captures are\n"
    "          read; a damaged file is refused with the byte offset of the bad\n"
    "          record.\n"
    "  folded  FlameGraph's folded stacks ('a;b;c 123' a line)\n"
    "  perf    'perf script' output of a 'perf record -g' profile\n"
    "\n"
    "Profiles are stored as runs of sampled stacks: report and compare them\n"
    "like captured runs, or export them again as folded or speedscope.\n";

const char* const kExportUsage =
    "usage: pathscope export RUN --format FORMAT -o FILE [--db FILE] [--tree stacks|stages]\n"
    "                            [--table TABLE]\n"
    "\n"
    "  pcapng      the sampled packet traces; every packet carries a comment with\n"
    "              its cycles at each stage (tshark -r FILE -T fields -e frame.comment)\n"
    "  folded      FlameGraph's folded stacks: the sampled call stacks, or with\n"
    "              --tree stages the stages weighted by their exact cycles\n"
    "  speedscope  speedscope's JSON: the stage cycles and the sampled stacks, one\n"
    "              profile each (open in https://www.speedscope.app)\n"
    "  csv         one table of the run: --table trials (default), intervals,\n"
    "              stages, queues, drops or perf\n"
    "\n"
    "RUN is a run id or a label; -o - writes to standard output.\n";

int cmd_import(const std::vector<std::string>& argv) {
    const Args a = parse_args(argv, {"--db", "--label"}, {}, kImportUsage);
    if (a.positional.size() != 2)
        usage_error("import needs a kind (pcap, folded or perf) and a FILE", kImportUsage);
    const std::string& kind = a.positional[0];
    if (kind != "pcap" && kind != "folded" && kind != "perf")
        usage_error("cannot import '" + kind + "' (pcap, folded or perf)", kImportUsage);
    const db::RunData run =
        kind == "pcap" ? capture::import_pcap(a.positional[1], db_path(a), a.get("--label"))
                       : capture::import_profile(a.positional[1], kind, db_path(a),
                                                 a.get("--label"));
    analysis::RunViewOptions view;
    view.histograms = false;
    std::cout << analysis::render_run(run, view) << "\nstored as run " << run.info.id << " in "
              << db_path(a) << "\n";
    return 0;
}

int cmd_export(const std::vector<std::string>& argv) {
    const Args a = parse_args(argv, {"--db", "--format", "-o", "--output", "--tree", "--table"},
                              {}, kExportUsage);
    if (a.positional.size() != 1)
        usage_error("export needs one RUN (an id or a label)", kExportUsage);
    const std::string format = a.get("--format", "pcapng");
    const std::string out = a.get("-o", a.get("--output"));
    if (format != "pcapng" && format != "folded" && format != "speedscope" && format != "csv")
        usage_error("unknown --format '" + format + "' (pcapng, folded, speedscope or csv)",
                    kExportUsage);
    if (out.empty()) usage_error("export needs -o FILE (or -o - for standard output)", kExportUsage);
    const std::string tree = a.get("--tree", "stacks");
    if (tree != "stacks" && tree != "stages")
        usage_error("--tree takes stacks or stages, not '" + tree + "'", kExportUsage);
    const std::string table = a.get("--table", "trials");
    const auto& tables = analysis::csv_tables();
    if (std::find(tables.begin(), tables.end(), table) == tables.end())
        usage_error("--table takes trials, intervals, stages, queues, drops or perf, not '" +
                        table + "'",
                    kExportUsage);

    auto db = db::open_store(db_path(a), db::Database::Mode::read_only);
    const db::RunData run = db::load_run(*db, db::find_run(*db, a.positional[0]).id);
    const std::string what = "run " + std::to_string(run.info.id);
    auto done = [&](const std::string& summary) {
        (out == "-" ? std::cerr : std::cout) << "wrote " << summary << " of " << what << " to "
                                             << out << "\n";
        return 0;
    };
    if (format == "pcapng") {
        if (run.rows.traces.empty())
            throw std::runtime_error(what + " has no packet traces (capture.traces_per_s was 0, "
                                            "or it is an import)");
        return done(std::to_string(capture::write_pcapng(run, out)) + " packet traces");
    }
    if (format == "csv") {
        write_output(out, analysis::to_csv(run, table));
        return done("the " + table + " table");
    }
    const analysis::FlameTree stages = analysis::stage_tree(run);
    const analysis::FlameTree stacks = analysis::stack_tree(run);
    if (format == "folded") {
        if (tree == "stacks" && stacks.size() <= 1)
            throw std::runtime_error(what + " has no sampled stacks; use --tree stages for its "
                                            "stage cycles");
        const analysis::FlameTree& t = tree == "stages" ? stages : stacks;
        write_output(out, analysis::to_folded(t));
        return done(std::to_string(t.size() - 1) + " frames of " + tree);
    }
    std::vector<analysis::NamedTree> profiles;
    if (stages.size() > 1) profiles.push_back({"stage cycles", &stages});
    if (stacks.size() > 1)
        profiles.push_back({analysis::main_stack_event(run) + " samples", &stacks});
    if (profiles.empty()) throw std::runtime_error(what + " has neither stage counters nor stacks");
    write_output(out, analysis::to_speedscope(profiles, "pathscope " + what + " " + run.info.label));
    return done(std::to_string(profiles.size()) + " speedscope profiles");
}

}  // namespace pathscope::cli
