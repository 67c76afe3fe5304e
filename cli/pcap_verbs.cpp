// pathscope import / export: captures and profiles in and out of the store.
#include <algorithm>
#include <iostream>

#include "analysis/render/csv_export.h"
#include "analysis/trees/flame_tree.h"
#include "analysis/verdicts/path_graph.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/render/run_view.h"
#include "capture/pcap_import.h"
#include "capture/pcapng_writer.h"
#include "capture/profile_import.h"
#include "cli/cli_support.h"
#include "db/queries.h"
#include "db/schema.h"

namespace pathscope::cli {

namespace {

struct ImportArgs {
    std::string kind, file, db, label;
    capture::PerfScriptFilter filter;
};

struct ExportArgs {
    std::string run, db, format = "pcapng", out, tree = "stacks", table = "trials";
    std::string base;  ///< dot: the run the graph is compared against
    double confidence = 95;
};

/// The path graph for Graphviz: the run's, or coloured by its change
/// against a base run. The packet balance at every stage is checked and
/// what does not balance is said.
int export_dot(const db::Database& db, const db::RunData& run, const ExportArgs& a,
               const std::string& what) {
    analysis::PathGraph g;
    std::string title = "pathscope " + what + " " + run.info.label;
    if (!a.base.empty()) {
        const db::RunData base = db::load_run(db, resolve_run(db, a.base).id);
        g = analysis::path_graph_compare(base, run, a.confidence);
        title += " against run " + std::to_string(base.info.id) + " " + base.info.label;
    } else {
        g = analysis::path_graph(run);
    }
    if (g.edges.empty() && db::kernel_target(run.rows.facts))
        throw std::runtime_error(what + " is a Linux run: the kernel does not count the packets "
                                        "that go from one stage to the next, so it has no path graph "
                                        "(its stages, sampled: pathscope show, export --format folded)");
    if (g.edges.empty())
        throw std::runtime_error(what + " has no edge counters (captured before schema 6, or an "
                                        "import): capture it again to draw its path");
    write_output(a.out, analysis::render_dot(g, title));
    const auto balance = analysis::path_balance(g, run);
    const auto bad = std::count_if(balance.begin(), balance.end(), [](const auto& b) { return !b.ok(); });
    if (bad) std::cerr << "warning: packets do not balance at " << bad << " node(s):\n"
                       << analysis::render_balance(balance);
    (a.out == "-" ? std::cerr : std::cout)
        << "wrote the path graph (" << g.nodes.size() << " nodes, " << g.edges.size()
        << " edges, packets " << (bad ? "UNBALANCED" : "balanced at every stage") << ") of "
        << what << " to " << a.out << "\n";
    return 0;
}

int import(const ImportArgs& a) {
    check_label(a.label);
    if (a.kind != "perf" && (!a.filter.comm.empty() || !a.filter.tid.empty()))
        throw UsageError("--comm and --tid filter perf script samples (import perf FILE)");
    db::check_store(a.db);  // before reading a large input
    const db::RunData run =
        a.kind == "pcap" ? capture::import_pcap(a.file, a.db, a.label)
                         : capture::import_profile(a.file, a.kind, a.db, a.label, a.filter);
    analysis::RunViewOptions view;
    view.histograms = false;
    std::cout << analysis::render_run(run, view) << "\nstored as run " << run.info.id << " in "
              << db::redacted(a.db) << "\n";
    return 0;
}

int export_run(const ExportArgs& a) {
    auto db = open_existing_store(a.db, db::Database::Mode::read_only);
    const db::RunData run = db::load_run(*db, resolve_run(*db, a.run).id);
    const std::string& out = a.out;
    const std::string& format = a.format;
    const std::string& tree = a.tree;
    const std::string& table = a.table;
    const std::string what = "run " + std::to_string(run.info.id);
    auto done = [&](const std::string& summary) {
        (out == "-" ? std::cerr : std::cout) << "wrote " << summary << " of " << what << " to "
                                             << out << "\n";
        return 0;
    };
    if (format == "pcapng") {
        if (run.rows.traces.empty() && db::kernel_target(run.rows.facts))
            throw std::runtime_error(what + " is a Linux run: the kernel's packets are not traced "
                                            "through pathscope's stages, so it has no packet "
                                            "traces (capture the veth with tcpdump for its packets)");
        if (run.rows.traces.empty())
            throw std::runtime_error(what + " has no packet traces (capture.traces_per_s was 0, "
                                            "or it is an import)");
        return done(std::to_string(capture::write_pcapng(run, out)) + " packet traces");
    }
    if (!a.base.empty() && format != "dot")
        throw UsageError("--base compares path graphs: use it with --format dot");
    if (format == "dot") return export_dot(*db, run, a, what);
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
        const std::string folded = analysis::to_folded(t);
        write_output(out, folded);
        const auto lines = std::count(folded.begin(), folded.end(), '\n');
        return done(std::to_string(lines) + " folded stacks (" + std::to_string(t.size() - 1) +
                    " tree nodes, from the " +
                    (tree == "stages" ? "stage cycles" : "sampled call stacks") + ")");
    }
    std::vector<analysis::NamedTree> profiles;
    if (stages.size() > 1) profiles.push_back({"stage cycles", &stages});
    if (stacks.size() > 1)
        profiles.push_back({analysis::main_stack_event(run) + " samples", &stacks});
    if (profiles.empty()) throw std::runtime_error(what + " has neither stage counters nor stacks");
    write_output(out, analysis::to_speedscope(profiles, "pathscope " + what + " " + run.info.label));
    return done(std::to_string(profiles.size()) + " speedscope profiles");
}

}  // namespace

void add_import_export_verbs(CLI::App& app, Verbs& verbs) {
    {
        auto a = std::make_shared<ImportArgs>();
        CLI::App* v =
            app.add_subcommand("import", "store a pcap capture, or a folded / perf script profile");
        v->footer(
            "  pcap    a pcap or pcapng capture: stores its summary (packets, bytes,\n"
            "          flows, protocols) and runs every packet through the engine's\n"
            "          parser, so the store shows the drop reasons it would count.\n"
            "          Ethernet, raw IPv6, BSD loopback and Linux cooked captures are\n"
            "          read; a damaged file is refused with the byte offset of the bad\n"
            "          record.\n"
            "  folded  FlameGraph's folded stacks ('a;b;c 123' a line)\n"
            "  perf    'perf script' output of a 'perf record -g' profile\n"
            "Profiles are stored as runs of sampled stacks: report and compare them like\n"
            "captured runs, or export them again as folded or speedscope.");
        v->add_option("KIND", a->kind, "pcap, folded or perf")
            ->required()
            ->check(CLI::IsMember({"pcap", "folded", "perf"}));
        v->add_option("FILE", a->file, "the capture or profile")->required();
        add_db_option(v, a->db);
        v->add_option("--label", a->label, "how the run is named (default: the file's name)");
        v->add_option("--comm", a->filter.comm,
                      "perf: keep only the samples of this command (as perf script prints it)");
        v->add_option("--tid", a->filter.tid, "perf: keep only the samples of this thread id");
        verbs.add(v, [a] { return import(*a); });
    }
    {
        auto a = std::make_shared<ExportArgs>();
        CLI::App* v = app.add_subcommand(
            "export", "write a run as pcapng, folded stacks, speedscope JSON, CSV or a Graphviz path graph");
        v->footer(
            "  pcapng      the sampled packet traces; every packet carries a comment with\n"
            "              its cycles at each stage (tshark -r FILE -T fields -e frame.comment)\n"
            "  folded      FlameGraph's folded stacks: the sampled call stacks, or with\n"
            "              --tree stages the stages weighted by their exact busy cycles\n"
            "  speedscope  speedscope's JSON: the stage cycles and the sampled stacks, one\n"
            "              profile each (open in https://www.speedscope.app)\n"
            "  csv         one table of the run, chosen by --table\n"
            "  dot         the packet path for Graphviz (dot -Tsvg FILE): stages left to\n"
            "              right from receive to transmit, delivery and drop reasons, each\n"
            "              edge as wide as the packets it carried (summed over trials),\n"
            "              each stage coloured by its busy cycles per packet; with --base\n"
            "              RUN coloured by change instead (red grew, blue shrank, grey\n"
            "              within noise: Student's t over trials). Packets are checked to\n"
            "              balance at every stage (in = out + drops)\n"
            "-o - writes to standard output.");
        v->add_option("RUN", a->run, "a run: id, label or label@N")->required();
        add_db_option(v, a->db);
        v->add_option("--format", a->format, "pcapng (default), folded, speedscope, csv or dot")
            ->check(CLI::IsMember({"pcapng", "folded", "speedscope", "csv", "dot"}));
        v->add_option("-o,--output", a->out, "the file to write, or - for standard output")
            ->required()
            ->type_name("FILE");
        v->add_option("--base", a->base, "dot: colour the path by its change against this run")
            ->type_name("RUN");
        v->add_option("--confidence", a->confidence,
                      "dot --base: the noise test's confidence, 80, 90, 95 (default), 98, 99 or 99.5")
            ->check(kConfidence);
        v->add_option("--tree", a->tree, "folded: stacks (default) or stages")
            ->check(CLI::IsMember({"stacks", "stages"}));
        v->add_option("--table", a->table,
                      "csv: trials (default), intervals, stages, queues, drops, perf, events or threads")
            ->check(CLI::IsMember(analysis::csv_tables()));
        verbs.add(v, [a] { return export_run(*a); });
    }
}

}  // namespace pathscope::cli
