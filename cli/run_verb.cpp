// pathscope run: record a scenario into the store and print what it measured.
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "analysis/figures/run_summary.h"
#include "analysis/render/run_view.h"
#include "analysis/text/safe_text.h"
#include "analysis/render/experiment_report.h"
#include "analysis/verdicts/sequential.h"
#include "capture/recorder.h"
#include "capture/permissions.h"
#include "capture/run.h"
#include "capture/scenario_stages.h"
#include "cli/cli_support.h"
#include "db/schema.h"
#include "engine/eal.h"
#include "engine/telemetry.h"

namespace pathscope::cli {

namespace {

std::string default_scenario() {
    if (std::filesystem::exists("samples/default.toml")) return "samples/default.toml";
    const std::string source = std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml";
    if (std::filesystem::exists(source)) return source;
    // Installed (cmake --install, the .deb): share/pathscope/samples beside bin/.
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return (exe.parent_path() / PATHSCOPE_SAMPLES_FROM_BIN / "default.toml").lexically_normal().string();
}

struct RunArgs {
    std::string scenario, db, label, duration, interval;
    unsigned trials = 0;
    std::vector<std::string> sets;
    bool no_histograms = false;
    std::string ab;             ///< KEY=A,B: a two-cell experiment, ABBA
    bool until_decided = false;  ///< capture.trials = "auto"
    std::string by;              ///< the setting an auto experiment decides
    std::vector<std::string> metrics;  ///< ... on these metrics
    std::string stage_map;             ///< linux.stage_map
    std::vector<std::string> stages;   ///< --stage FILE.so:after=STAGE,...
    capture::CodePermissions allowed;  ///< --allow-plugins, --allow-eal-drivers, --allow-file-writes
};

/// --ab KEY=A,B as the one axis of a two-cell matrix.
capture::MatrixAxis ab_axis(const std::string& ab) {
    const auto eq = ab.find('=');
    const auto comma = ab.find(',', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || eq == 0 || comma == std::string::npos ||
        ab.find(',', comma + 1) != std::string::npos || comma == eq + 1 || comma + 1 == ab.size())
        throw UsageError("--ab " + analysis::printable(ab) +
                         ": expected KEY=A,B, two values of one setting, like --ab "
                         "engine.send_accounting=atomic,local");
    return {ab.substr(0, eq), {ab.substr(eq + 1, comma - eq - 1), ab.substr(comma + 1)}};
}

/// Prints each look of an auto experiment on standard error.
void print_look(const analysis::Look& l) {
    if (isatty(STDERR_FILENO)) std::fprintf(stderr, "\r%90s\r", "");  // the progress line
    std::fprintf(stderr, "  look after block %zu (at %.2f%% confidence): %zu of %zu verdicts decided\n",
                 l.blocks, l.level, l.lines.size() - l.undecided, l.lines.size());
    for (const auto& line : l.lines)
        std::fprintf(stderr, "    %s\n", analysis::printable(line).c_str());
}

/// The exit status after a stop: 130 after Ctrl-C, 143 after SIGTERM, as a
/// shell reports a process that those signals killed.
int stop_status(int signal) { return 128 + signal; }

/// Says on standard error what the run goes on without.
void warn(const std::string& text) { std::cerr << "pathscope run: " << analysis::printable_lines(text) << "\n"; }

/// Starts the EAL (as the recording would) and says, in one line, where a
/// DPDK user reads the run live; nothing when the [eal] args say --no-telemetry.
void say_telemetry(const capture::Scenario& sc) {
    if (sc.target == capture::Target::kernel) return;  // no engine, no EAL
    engine::eal_init(sc.engine.eal_args);
    const std::string socket = engine::telemetry_socket_path();
    if (socket.empty()) return;
    std::fprintf(stderr,
                 "pathscope run: live statistics: %s, then /pathscope/stages, /queues, /ledger "
                 "(socket %s)\n",
                 engine::telemetry_client_command(socket).c_str(), socket.c_str());
}

/// A scenario with a [matrix] (or --ab): every cell as its own run, trials interleaved.
int run_matrix(const RunArgs& a, const std::string& scenario_path,
               const std::vector<std::string>& sets, const capture::Scenario& sc,
               const std::vector<engine::StageConfig>& stages) {
    const auto cells = capture::matrix_cells(sc);
    capture::RecordOptions opt;
    opt.stages = stages;
    opt.db_path = a.db;
    opt.label = a.label;
    opt.scenario_path = scenario_path;
    opt.warning = warn;
    if (!a.ab.empty()) opt.matrix = sc.matrix;
    opt.decide_by = a.by;
    opt.decide_metrics = a.metrics;
    opt.look = print_look;
    const bool tty = isatty(STDERR_FILENO);
    std::fprintf(stderr,
                 "pathscope run: %s, a matrix of %zu cells x %s%u trial(s) of %.1f s, trials "
                 "interleaved in blocks (every other block in reverse: ABBA), into %s (Ctrl-C "
                 "stops early)\n",
                 analysis::printable(scenario_path).c_str(), cells.size(),
                 sc.capture.auto_trials ? "until decided, at most " : "", sc.capture.trials,
                 sc.engine.duration_s, db::redacted(opt.db_path).c_str());
    if (sc.capture.auto_trials && sc.capture.trials < 6)
        std::fprintf(stderr,
                     "pathscope run: note: at most %u blocks: a paired test on three to five "
                     "blocks proves only a large change (give --trials 12 or more to find a few "
                     "percent)\n",
                     sc.capture.trials);
    say_telemetry(sc);
    unsigned last_block = 0;
    opt.progress = [&](const capture::RecordProgress& p) {
        if (tty)
            std::fprintf(stderr, "\r  trial %u/%u  cell %u/%u  %5.1f / %.1f s  %llu rows stored ",
                         p.trial, p.trials, p.cell, p.cells, p.t, p.duration,
                         static_cast<unsigned long long>(p.rows));
        else if (p.trial != last_block)
            std::fprintf(stderr, "  block %u/%u running\n", p.trial, p.trials);
        last_block = p.trial;
    };
    const auto results = capture::record_matrix(scenario_path, sets, opt);
    if (tty) std::fprintf(stderr, "\r%90s\r", "");
    if (results.empty()) {  // stopped before the first cell ran
        std::cerr << "pathscope run: stopped before the first cell started; nothing was stored\n";
        return stop_status(capture::StopSignals::received());
    }
    // The experiment's stop (a cell that had run all its trials stays complete).
    const int stop_signal = capture::StopSignals::received();
    bool failed = false, balanced = true, aborted = false;
    size_t fewest = SIZE_MAX;  // the trials of the cell with fewest
    std::string setup_error;
    int width = 4;
    for (const auto& r : results)
        width = std::max(width, static_cast<int>(analysis::printable(r.run.info.cell).size()));
    std::printf("%5s  %-*s %7s %16s %16s %10s\n", "run", width, "cell", "trials", "rx rate (mean)",
                "tx rate (mean)", "disturbed");
    for (const auto& r : results) {
        const analysis::RunSummary s = analysis::summarize_run(r.run);
        const std::vector<analysis::Metric> m = analysis::run_metrics(r.run);
        auto mean = [&](const char* name) {
            const analysis::Metric* x = analysis::find_metric(m, analysis::kThroughput, name);
            return x ? analysis::run_figure(x->values).mean : 0.0;
        };
        std::string cell = r.run.info.cell;
        std::replace(cell.begin(), cell.end(), '\n', ' ');
        cell = analysis::printable(cell);
        const analysis::DisturbanceSummary& d = s.disturbance;
        fewest = std::min(fewest, d.trials);
        const std::string disturbed =
            d.measured ? std::to_string(d.disturbed) + (d.replaced ? " +" + std::to_string(d.replaced) + " re-run" : "")
                       : "-";
        std::printf("%5lld  %-*s %7zu %11.3f Mpps %11.3f Mpps %10s%s\n",
                    static_cast<long long>(r.run.info.id), width, cell.c_str(), d.trials,
                    mean(analysis::kRxRate), mean(analysis::kTxRate), disturbed.c_str(),
                    s.balanced && s.send_balanced ? "" : "  NOT BALANCED");
        if (setup_error.empty()) setup_error = r.setup_error;
        aborted = aborted || r.run.info.status == "aborted";
        failed = failed || !r.error.empty();
        balanced = balanced && s.balanced && s.send_balanced;
        if (!r.error.empty()) std::cerr << "pathscope run: the store failed: " << r.error << "\n";
    }
    const std::string& experiment = results.front().run.info.experiment;
    std::printf("\nstored as experiment %s in %s: runs %lld-%lld, one per cell\n",
                experiment.c_str(), db::redacted(opt.db_path).c_str(),
                static_cast<long long>(results.front().run.info.id),
                static_cast<long long>(results.back().run.info.id));
    if (stop_signal)
        std::printf("stopped by %s: %zu of the %zu cells have trials%s\n",
                    capture::stop_name(stop_signal).c_str(), results.size(), cells.size(),
                    aborted ? "; the runs it cut short are marked aborted" : "");
    std::printf("trials: those that count (a disturbed trial a re-run replaced is kept apart); "
                "disturbed: trials whose worker lost more than %.1f%% of its window\n",
                100 * sc.capture.max_disturbance);
    if (!a.ab.empty() || sc.capture.auto_trials) {
        // The question asked: the setting judged in each cell, here and now.
        std::vector<db::RunData> runs;
        for (const auto& r : results) runs.push_back(r.run);
        const std::string by = !a.by.empty() ? a.by : sc.matrix.back().key;
        const auto e = analysis::compare_experiment(runs, by, a.metrics,
                                                    analysis::judged_confidence(runs, 95));
        std::printf("\n%s", analysis::render_experiment_text(e).c_str());
    }
    // compare --by judges a cell's trials against another's: suggest it only
    // where every cell has the 2 trials a test needs.
    if (fewest >= 2)
        for (const auto& axis : sc.matrix)
            std::printf("  pathscope compare%s --experiment %s --by %s\n", db_argument(opt.db_path).c_str(),
                        experiment.c_str(), axis.key.c_str());
    else
        std::printf("a cell has %zu trial%s: compare --experiment needs 2 a cell to judge anything "
                    "(run it again with --trials 3 or more)\n",
                    fewest, fewest == 1 ? "" : "s");
    if (!setup_error.empty()) {
        std::cerr << "pathscope run: " << setup_error << "\n";
        return 1;
    }
    if (failed || !balanced) return 1;
    return stop_signal ? stop_status(stop_signal) : 0;
}

int run(const RunArgs& a) {
    check_label(a.label);
    const std::string scenario_path = a.scenario.empty() ? default_scenario() : a.scenario;
    std::vector<std::string> sets = a.sets;
    if (a.until_decided) {
        // Its first look is after block 3: a cap below that leaves nothing to decide.
        if (a.trials && a.trials < 3)
            throw UsageError("--until-decided --trials " + std::to_string(a.trials) +
                             ": --trials is the cap on blocks here, and the first look is after "
                             "block 3: give 3 or more (12 or more leaves it several looks)");
        sets.push_back("capture.trials=\"auto\"");
        if (a.trials) sets.push_back("capture.max_trials=" + std::to_string(a.trials));
    } else if (a.trials) {
        sets.push_back("capture.trials=" + std::to_string(a.trials));
    }
    if (!a.duration.empty()) sets.push_back("engine.duration=" + a.duration);
    if (!a.interval.empty()) sets.push_back("capture.interval=" + a.interval);
    if (!a.stage_map.empty())  // a path the user typed: from here, not from the scenario's folder
        sets.push_back("linux.stage_map=\"" + std::filesystem::absolute(a.stage_map).string() + "\"");
    capture::Scenario sc = capture::load_scenario(scenario_path, sets);
    std::vector<engine::StageConfig> stages;  // --stage: the command line names them
    for (const auto& text : a.stages) stages.push_back(capture::parse_stage_option(text));
    sc.engine.stages.insert(sc.engine.stages.end(), stages.begin(), stages.end());
    capture::check_permissions(sc, a.allowed);
    if (!a.ab.empty()) {
        if (!sc.matrix.empty())
            throw UsageError("--ab runs two cells of one setting, and " +
                             analysis::printable(scenario_path) +
                             " has a [matrix] already: give one or the other");
        sc.matrix = {ab_axis(a.ab)};
        for (const auto& v : sc.matrix[0].values)  // each cell's settings load, or say why now
            capture::load_scenario(scenario_path, [&] {
                auto s = sets;
                s.push_back(sc.matrix[0].key + "=" + v);
                return s;
            }());
    }
    if (sc.capture.auto_trials && sc.matrix.empty())
        throw UsageError("capture.trials = \"auto\" decides between an experiment's cells: give "
                         "the scenario a [matrix], or run --ab KEY=A,B");
    if (!a.by.empty() && sc.matrix.empty())
        throw UsageError("--by names the setting an experiment decides: it needs a [matrix] or --ab");
    for (const auto& cell : capture::matrix_cells(sc)) {  // a cell may ask for more than the file
        auto cell_sets = sets;
        cell_sets.insert(cell_sets.end(), cell.begin(), cell.end());
        try {
            capture::Scenario c = capture::load_scenario(scenario_path, cell_sets);
            c.engine.stages.insert(c.engine.stages.end(), stages.begin(), stages.end());
            capture::check_permissions(c, a.allowed);
        } catch (const capture::ScenarioError& e) {
            throw capture::ScenarioError("[matrix] cell " + capture::describe_cell(cell) + ": " + e.what());
        }
    }
    capture::check_before_recording(sc);  // before the start lines: nothing said, then refused
    db::check_store(a.db);  // a store it could not write is refused before the engine starts
    if (!sc.matrix.empty()) return run_matrix(a, scenario_path, sets, sc, stages);

    capture::RecordOptions opt;
    opt.db_path = a.db;
    opt.label = a.label;
    opt.scenario_path = scenario_path;
    opt.warning = warn;
    const bool tty = isatty(STDERR_FILENO);
    std::fprintf(stderr, "pathscope run: %s, %u trial(s) of %.1f s into %s (Ctrl-C stops early)\n",
                 analysis::printable(scenario_path).c_str(), sc.capture.trials, sc.engine.duration_s,
                 db::redacted(opt.db_path).c_str());
    say_telemetry(sc);
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
    if (r.run.info.id == 0) {
        std::cerr << "pathscope run: stopped by " << capture::stop_name(r.stop_signal)
                  << " before the first trial started; nothing was stored\n";
        return stop_status(r.stop_signal);
    }
    analysis::RunViewOptions view;
    view.histograms = !a.no_histograms;
    const analysis::RunSummary summary = analysis::summarize_run(r.run);
    std::cout << analysis::render_run(summary, view);
    if (!r.error.empty()) {
        std::cout << "\nrun " << r.run.info.id << " (\"" << analysis::printable(r.run.info.label) << "\") in "
                  << db::redacted(opt.db_path) << " keeps only what was committed before the store failed\n";
        std::cerr << "pathscope run: the store failed during the run: " << r.error
                  << "\n  nothing more was stored; every batch committed before it is kept, and "
                     "a run the failure cut short shows as aborted\n";
        return 1;
    }
    std::cout << "\nstored as run " << r.run.info.id << " (\"" << analysis::printable(r.run.info.label) << "\") in "
              << db::redacted(opt.db_path)
              << (r.stop_signal ? ", marked aborted (" + capture::stop_name(r.stop_signal) + ")"
                                : (r.setup_error.empty() ? "" : ", marked aborted"))
              << "\n";
    if (!r.setup_error.empty()) {
        std::cerr << "pathscope run: " << r.setup_error << "\n";
        return 1;
    }
    if (!summary.balanced) return 1;
    if (r.stop_signal) return stop_status(r.stop_signal);  // as a shell expects
    if (summary.total.received == 0 && summary.total.sends == 0 && summary.total.sent == 0) {
        std::cerr << "pathscope run: no packet was received or sent; the scenario's workload "
                     "(workload.kind) or [source] gave the engine nothing to do\n";
        return 1;
    }
    return 0;
}

}  // namespace

void add_run_verb(CLI::App& app, Verbs& verbs) {
    auto a = std::make_shared<RunArgs>();
    CLI::App* v = app.add_subcommand(
        "run", "run a scenario, record it into the store, print the stage table");
    v->footer(
        "Runs the IPv6/UDP engine on the ports, routes, applications and workload that\n"
        "SCENARIO (a TOML file) describes, once per trial on a fresh engine, and records\n"
        "the run into the store: counters every interval, per-trial totals, drops by\n"
        "reason, per-queue counters, cycle histograms, perf_event counts and sampled\n"
        "call stacks of the worker thread, and sampled packet traces. Then it prints the\n"
        "stage table, the receive ledger (received = delivered + forwarded + replied +\n"
        "drops) and the rest. Ctrl-C or SIGTERM ends the run early: it is kept, marked\n"
        "aborted, its summary printed (a matrix: the table of the cells that ran), and\n"
        "the exit status is 130 (Ctrl-C) or 143 (SIGTERM). Settings are checked before\n"
        "the store is touched, and a device or memory that refuses the scenario stops\n"
        "the run before one is created.\n"
        "With [target] kind = \"linux\" the scenario runs on the running kernel's own\n"
        "IPv6/UDP path instead (as root): pathscope makes network namespaces and veths,\n"
        "runs sendmmsg/recvmmsg (or request/response) threads through them, and records\n"
        "the kernel's own counters, drop reasons and sampled stacks into the same tables\n"
        "(docs/kernel.md).");
    v->add_option("SCENARIO", a->scenario,
                  "default: samples/default.toml (built-in generator on a net_ring port,\n"
                  "40,000 routes, forwarding to net_null)")
        ->check(CLI::ExistingFile);
    add_db_option(v, a->db);
    v->add_option("--label", a->label,
                  "how the run is named in list/show/compare (default: the scenario's\n"
                  "file name and the --set settings); not a number, no '@'");
    v->add_option("--trials", a->trials, "capture.trials: repetitions (default 1)")
        ->check(setting_check("capture.trials", "N"));
    v->add_option("--duration", a->duration,
                  "engine.duration: length of each trial in seconds (default 2)")
        ->check(setting_check("engine.duration", "SECONDS"));
    v->add_option("--interval", a->interval,
                  "capture.interval: snapshot interval in seconds (default 0.1)")
        ->check(setting_check("capture.interval", "SECONDS"));
    v->add_option("--set", a->sets,
                  "KEY=VALUE: override any scenario setting, e.g. --set engine.burst=64,\n"
                  "--set port.wire.rx_queues=2, --set capture.sample_hz=0")
        ->type_name("KEY=VALUE")
        ->allow_extra_args(false);
    v->add_flag("--no-histograms", a->no_histograms,
                "leave the per-call cycle histograms out of the printout");
    v->add_option("--ab", a->ab,
                  "KEY=A,B: the everyday question, is B better than A? Two cells of one\n"
                  "setting, their trials interleaved A B, B A, A B, ... (ABBA: a linear drift\n"
                  "cancels), judged on the blocks' differences (paired t); e.g. --ab\n"
                  "engine.send_accounting=atomic,local")
        ->type_name("KEY=A,B");
    v->add_flag("--until-decided", a->until_decided,
                "capture.trials = \"auto\": add blocks until every verdict's interval excludes\n"
                "0 or is narrower than capture.target_half_width (1%), at most --trials (or\n"
                "capture.max_trials, 20). It looks after block 3, 6, 12, ... and the last;\n"
                "each look tests at its share of the 5% (O'Brien-Fleming alpha spending: little\n"
                "early, about 4% at the last), so the false-positive rate stays at 5%");
    v->add_option("--stage-map", a->stage_map,
                  "a Linux run ([target] kind = \"linux\"): the stage map (kernel function ->\n"
                  "stage, one \"FUNCTION STAGE\" a line) that sampled kernel stacks are\n"
                  "attributed with (default: samples/kernel-stages.map)")
        ->check(CLI::ExistingFile)
        ->type_name("FILE");
    v->add_option("--by", a->by,
                  "the setting an experiment of --until-decided decides (default: its only\n"
                  "[matrix] key, or the last)")
        ->type_name("SETTING");
    v->add_option("--metric", a->metrics,
                  "a metric --until-decided decides on (repeat for more; default: the run's\n"
                  "rate and \"all stages\")")
        ->type_name("NAME")
        ->allow_extra_args(false);
    v->add_option("--stage", a->stages,
                  "FILE.so:after=STAGE[,before=STAGE][,KEY=VALUE...]: splice the plugin stage\n"
                  "in FILE.so into the edge from STAGE (to its main next stage, or to before=),\n"
                  "with KEY=VALUE as its [stage.config]; repeat for more. Naming it here is\n"
                  "what allows pathscope to load it (see docs/plugins.md)")
        ->type_name("FILE.so:after=STAGE")
        ->allow_extra_args(false);
    v->add_flag("--allow-plugins", a->allowed.plugins,
                "load the shared objects the scenario's [[stage]] tables name: a plugin is\n"
                "code that runs with your rights, so a scenario's are refused without this");
    v->add_flag("--allow-eal-drivers", a->allowed.eal_drivers,
                "pass the scenario's [eal] args -d FILE to DPDK, which loads FILE (refused\n"
                "without this)");
    v->add_flag("--allow-file-writes", a->allowed.file_writes,
                "let the scenario's devices write files (net_pcap tx_pcap=, EAL --trace):\n"
                "refused without this");
    verbs.add(v, [a] { return run(*a); });
}

}  // namespace pathscope::cli
