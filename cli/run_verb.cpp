// pathscope run: record a scenario into the store and print what it measured.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "analysis/run_view.h"
#include "capture/recorder.h"
#include "cli/args.h"
#include "cli/verbs.h"

namespace pathscope::cli {

const char* const kRunUsage =
    "usage: pathscope run [SCENARIO] [--db FILE] [--label NAME] [--trials N]\n"
    "                     [--duration SECONDS] [--interval SECONDS] [--set KEY=VALUE]...\n"
    "                     [--no-histograms]\n"
    "\n"
    "Runs the IPv6/UDP engine on the ports, routes, applications and workload that\n"
    "SCENARIO (a TOML file) describes, once per trial on a fresh engine, and records\n"
    "the run into the store: counters every interval, per-trial totals, drops by\n"
    "reason, per-queue counters, cycle histograms, perf_event counts and sampled\n"
    "call stacks of the worker thread, and sampled packet traces. Then it prints the\n"
    "per-stage table (calls, packets, cycles/packet, drops), the receive ledger\n"
    "(received = delivered + forwarded + replied + drops) and the rest.\n"
    "Ctrl-C ends the run early; it is kept, marked aborted.\n"
    "\n"
    "  SCENARIO             default: samples/default.toml (built-in generator on a\n"
    "                       net_ring port, 40,000 routes, forwarding to net_null)\n"
    "  --db FILE            the store (default: pathscope.db here; created if new)\n"
    "  --label NAME         how the run is named in list/show/compare (default: the\n"
    "                       scenario's file name and the --set settings)\n"
    "  --trials N           capture.trials: repetitions (default 1)\n"
    "  --duration SECONDS   engine.duration: length of each trial (default 2)\n"
    "  --interval SECONDS   capture.interval: snapshot interval (default 0.1)\n"
    "  --set KEY=VALUE      override any scenario setting, e.g. --set engine.burst=64,\n"
    "                       --set port.wire.rx_queues=2, --set capture.sample_hz=0\n"
    "  --no-histograms      leave the per-call cycle histograms out of the printout\n";

namespace {

std::string default_scenario() {
    if (std::filesystem::exists("samples/default.toml")) return "samples/default.toml";
    return std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml";
}

}  // namespace

int cmd_run(const std::vector<std::string>& argv) {
    const Args a =
        parse_args(argv, {"--db", "--label", "--trials", "--duration", "--interval", "--set"},
                   {"--no-histograms"}, kRunUsage);
    if (a.positional.size() > 1)
        usage_error(
            "more than one scenario given ('" + a.positional[0] + "', '" + a.positional[1] + "')",
            kRunUsage);
    const std::string scenario_path = a.positional.empty() ? default_scenario() : a.positional[0];
    std::vector<std::string> sets = a.all("--set");
    // The shorthand options are --set settings too, so they are stored as such.
    if (a.has("--trials"))
        sets.push_back("capture.trials=" +
                       std::to_string(parse_count("--trials", a.get("--trials"), kRunUsage)));
    if (a.has("--duration")) {
        parse_seconds("--duration", a.get("--duration"), kRunUsage);
        sets.push_back("engine.duration=" + a.get("--duration"));
    }
    if (a.has("--interval")) {
        parse_seconds("--interval", a.get("--interval"), kRunUsage);
        sets.push_back("capture.interval=" + a.get("--interval"));
    }
    const capture::Scenario sc = capture::load_scenario(scenario_path, sets);

    capture::RecordOptions opt;
    opt.db_path = db_path(a);
    opt.label = a.get("--label");
    opt.scenario_path = scenario_path;
    const bool tty = isatty(STDERR_FILENO);
    std::fprintf(stderr, "pathscope run: %s, %u trial(s) of %.1f s into %s (Ctrl-C stops early)\n",
                 scenario_path.c_str(), sc.capture.trials, sc.engine.duration_s,
                 opt.db_path.c_str());
    unsigned last_trial = 0;
    opt.progress = [&](const capture::RecordProgress& p) {
        if (tty) {
            std::fprintf(
                stderr, "\r  trial %u/%u  %5.1f / %.1f s  received %llu packets  %llu rows stored ",
                p.trial, p.trials, p.t, p.duration, static_cast<unsigned long long>(p.received),
                static_cast<unsigned long long>(p.rows));
        } else if (p.trial != last_trial) {
            std::fprintf(stderr, "  trial %u/%u running\n", p.trial, p.trials);
        }
        last_trial = p.trial;
    };
    const capture::RecordResult r = capture::record_run(sc, opt);
    if (tty) std::fprintf(stderr, "\r%90s\r", "");
    analysis::RunViewOptions view;
    view.histograms = !a.has("--no-histograms");
    std::cout << analysis::render_run(r.run, view);
    std::cout << "\nstored as run " << r.run.info.id << " (\"" << r.run.info.label << "\") in "
              << opt.db_path << (r.interrupted ? ", marked aborted (Ctrl-C)" : "") << "\n";
    if (!r.error.empty()) {
        std::cerr << "pathscope run: the store failed during the run: " << r.error
                  << "\n  every batch committed before it is kept; the run will show as aborted\n";
        return 1;
    }
    for (const auto& t : r.run.rows.trials)
        if (t.received != t.delivered + t.forwarded + t.replied + t.dropped) return 1;
    return 0;
}

}  // namespace pathscope::cli
