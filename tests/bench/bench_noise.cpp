// Whether pathscope's verdicts hold on a busy machine: A/A comparisons (the
// same settings both sides: engine.extra_work = 0 against +0) and A/B
// comparisons with a known small slowdown (engine.extra_work chosen to add
// about --slowdown percent to the baseline's cycles per packet), each an
// experiment of two cells run as `pathscope run SCENARIO --ab ...
// --until-decided` runs it: blocks in ABBA order, paired t on the blocks,
// looks with alpha spending, disturbed trials re-run (capture.retry_disturbed).
// Every comparison is judged on "all stages" (cycles per received packet),
// at 95% over all its looks. Each mode runs quiet, then with a CPU hog
// (stress-ng --cpu 1) pinned to the CPU the worker does not use.
//
// It prints, per mode and kind, how many comparisons came out in the right
// direction, the wrong one (confident and wrong: never wanted), "no
// difference" (undecided at the cap), "unreliable" and "too few trials",
// with the blocks each took and the mode's wall time. A/A: any confident
// verdict is a false positive.
//
//   bench_noise [--comparisons N] [--duration S] [--max-blocks B]
//               [--slowdown PCT] [--modes quiet,hog] [--scenario PATH]
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/verdicts/compare.h"
#include "analysis/verdicts/experiment.h"
#include "analysis/figures/metric_names.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/verdicts/sequential.h"
#include "capture/recorder.h"
#include "capture/run.h"
#include "capture/scenario.h"
#include "tests/bench/bench_clock.h"

using namespace pathscope;
namespace fs = std::filesystem;
using bench::Clock;
using bench::seconds_since;

namespace {

constexpr const char* kAxis = "engine.extra_work";
constexpr const char* kMetric = "all stages";

struct Options {
    int comparisons = 20;
    double duration = 0.2;
    /// Blocks at most: beside a hog, 24 blocks resolved 2.8% in 12 of 20
    /// experiments (paired differences' sd about 7% of the mean: the
    /// interval at the last look is about +/-2.9%); 48 bring it to about
    /// +/-2%. A/A experiments always run to the cap.
    int max_blocks = 48;
    double slowdown = 3;
    std::vector<std::string> modes = {"quiet", "hog"};
    std::string scenario = std::string(PATHSCOPE_SOURCE_DIR) + "/samples/forward-replay.toml";
};

/// One comparison's outcome on kMetric.
struct Outcome {
    std::string verdict;
    size_t blocks = 0;
    double percent = 0;
    unsigned replaced = 0;
};

/// Tally of one mode and kind.
struct Tally {
    std::map<std::string, int> verdicts;
    double blocks = 0, percent = 0;
    unsigned replaced = 0;
    int n = 0;
    double wall_s = 0;
};

std::vector<std::string> settings(const Options& o) {
    return {"engine.duration=" + std::to_string(o.duration), "capture.trials=\"auto\"",
            "capture.max_trials=" + std::to_string(o.max_blocks), "capture.retry_disturbed=3"};
}

std::string store_path() {
    return (fs::temp_directory_path() / ("bench_noise_" + std::to_string(getpid()) + ".db")).string();
}

void remove_store(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
}

/// How the bench records into a fresh store at `db` (no warnings printed).
capture::RecordOptions record_options(const Options& o, const std::string& db) {
    remove_store(db);
    capture::RecordOptions opt;
    opt.db_path = db;
    opt.label = "bench_noise";
    opt.scenario_path = o.scenario;
    opt.warning = [](const std::string&) {};
    return opt;
}

/// An experiment of the two values of kAxis, judged on kMetric.
Outcome compare(const Options& o, const std::string& a, const std::string& b) {
    const std::string db = store_path();
    capture::RecordOptions opt = record_options(o, db);
    opt.matrix = {{kAxis, {a, b}}};
    opt.decide_by = kAxis;
    opt.decide_metrics = {kMetric};
    const auto results = capture::record_matrix(o.scenario, settings(o), opt);
    remove_store(db);
    std::vector<db::RunData> runs;
    Outcome out;
    for (const auto& r : results) {
        runs.push_back(r.run);
        out.replaced += r.replaced;
    }
    const auto e = analysis::compare_experiment(runs, kAxis, {kMetric},
                                                analysis::judged_confidence(runs, 95));
    if (e.rows.empty() || e.rows[0].verdicts.empty() || e.rows[0].verdicts[0].empty())
        throw std::runtime_error("the experiment has no verdict on " + std::string(kMetric));
    const analysis::Verdict& v = e.rows[0].verdicts[0][0];
    out.verdict = v.outcome;
    out.percent = v.percent;
    out.blocks = std::min(v.base_summary.n, v.cand_summary.n);
    return out;
}

/// What a 5-trial run of the baseline gives: its cycles per packet, the CPU
/// its worker ran on, and the CPU model.
struct Probe {
    double cycles = 0;
    int worker_cpu = -1;
    std::string cpu_model;
};

Probe probe(const Options& o) {
    const std::string db = store_path();
    const capture::RecordOptions opt = record_options(o, db);
    const auto sc = capture::load_scenario(
        o.scenario, {"engine.duration=" + std::to_string(o.duration), "capture.trials=5"});
    const auto r = capture::record_run(sc, opt);
    remove_store(db);
    Probe p;
    p.cpu_model = r.run.info.cpu_model;
    const auto m = analysis::run_metrics(r.run);
    const analysis::Metric* all = analysis::find_metric(m, analysis::kStageCycles, kMetric);
    if (!all) throw std::runtime_error("the probe run has no '" + std::string(kMetric) + "'");
    p.cycles = analysis::run_figure(all->values).mean;
    for (const auto& t : r.run.rows.threads)
        if (t.role == db::kWorkerThread) p.worker_cpu = t.cpu;
    return p;
}

/// stress-ng spinning on `cpu` until stopped; its pid.
pid_t start_hog(int cpu) {
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        const std::string where = std::to_string(cpu);
        execlp("stress-ng", "stress-ng", "--cpu", "1", "--taskset", where.c_str(), "--quiet",
               static_cast<char*>(nullptr));
        std::fprintf(stderr, "bench_noise: cannot run stress-ng (Debian: apt install stress-ng)\n");
        _exit(127);
    }
    usleep(500'000);
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid)
        throw std::runtime_error("stress-ng did not start (Debian: apt install stress-ng)");
    return pid;
}

void stop_hog(pid_t pid) {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        if (a == "--comparisons") o.comparisons = std::stoi(next());
        else if (a == "--duration") o.duration = std::stod(next());
        else if (a == "--max-blocks") o.max_blocks = std::stoi(next());
        else if (a == "--slowdown") o.slowdown = std::stod(next());
        else if (a == "--scenario") o.scenario = next();
        else if (a == "--modes") {
            o.modes.clear();
            const std::string s = next();
            for (size_t p = 0; p <= s.size();) {
                const size_t c = std::min(s.find(',', p), s.size());
                o.modes.push_back(s.substr(p, c - p));
                p = c + 1;
            }
        } else if (a == "--help" || a == "-h") {
            std::printf(
                "bench_noise [--comparisons N] [--duration S] [--max-blocks B] [--slowdown PCT]\n"
                "            [--modes quiet,hog] [--scenario PATH]\n"
                "A/A and A/B experiments (engine.extra_work) judged as run --ab --until-decided\n"
                "judges them, quiet and with stress-ng on the worker's other CPU.\n"
                "  --comparisons N  experiments of each kind and mode (default 20)\n"
                "  --duration S     each trial's seconds (default 0.2)\n"
                "  --max-blocks B   blocks at most, capture.max_trials (default 48)\n"
                "  --slowdown PCT   the A/B slowdown, percent of the baseline's cycles (default 3)\n"
                "  --modes M,...    quiet, hog or both (default quiet,hog)\n"
                "  --scenario PATH  default samples/forward-replay.toml\n");
            std::exit(0);
        } else {
            throw std::runtime_error("unknown argument " + a + " (see --help)");
        }
    }
    for (const auto& m : o.modes)
        if (m != "quiet" && m != "hog")
            throw std::runtime_error("--modes: " + m + " not in {quiet,hog}");
    return o;
}

}  // namespace

int main(int argc, char** argv) try {
    const Options o = parse(argc, argv);
    const Probe base = probe(o);
    std::printf("bench_noise on %s (%ld CPUs): %d A/A and %d A/B comparisons a mode, trials of "
                "%.2f s, at most %d blocks, judged on '%s' at 95%%\n",
                base.cpu_model.c_str(), sysconf(_SC_NPROCESSORS_ONLN), o.comparisons,
                o.comparisons, o.duration, o.max_blocks, kMetric);
    const double cycles = base.cycles;
    const long extra = std::max(1L, std::lround(cycles * o.slowdown / 100));
    const int cpu = base.worker_cpu;
    const int other = cpu == 0 ? 1 : 0;
    std::printf("baseline %.1f cycles/rx packet; A/B adds engine.extra_work = %ld cycles/packet "
                "(%.1f%%); the worker ran on CPU %d, the hog spins on CPU %d\n",
                cycles, extra, 100.0 * static_cast<double>(extra) / cycles, cpu, other);
    std::fflush(stdout);
    std::map<std::string, Tally> tallies;  // "mode kind"
    // Ctrl-C or SIGTERM ends the trial under way (the capture's own stop):
    // the bench then stops too, and prints the table of what it ran.
    bool stopped = false;
    for (const auto& mode : o.modes) {
        if (stopped) break;
        const pid_t hog = mode == "hog" ? start_hog(other) : 0;
        for (const char* kind : {"A/A", "A/B"}) {
            if (stopped) break;
            Tally& t = tallies[mode + " " + kind];
            const auto t0 = Clock::now();
            for (int i = 0; i < o.comparisons && !stopped; ++i) {
                const bool ab = std::string(kind) == "A/B";
                const Outcome r = compare(o, "0", ab ? std::to_string(extra) : "+0");
                if ((stopped = capture::StopSignals::received() != 0)) {
                    std::fprintf(stderr, "  stopped by %s: the table holds the comparisons that ended\n",
                                 capture::stop_name(capture::StopSignals::received()).c_str());
                    break;
                }
                std::string v = r.verdict;
                if (v == analysis::kWorse) v = ab ? "right" : "false positive";
                else if (v == analysis::kBetter) v = ab ? "WRONG" : "false positive";
                t.verdicts[v]++;
                t.blocks += static_cast<double>(r.blocks);
                t.percent += r.percent;
                t.replaced += r.replaced;
                t.n++;
                std::fprintf(stderr, "  %s %s %d/%d: %s (%+.2f%%, %zu blocks, %u re-run)\n",
                             mode.c_str(), kind, i + 1, o.comparisons, r.verdict.c_str(), r.percent,
                             r.blocks, r.replaced);
            }
            t.wall_s = seconds_since(t0);
        }
        if (hog) stop_hog(hog);
    }
    std::printf("\n%-6s %-4s %6s %6s %6s %8s %11s %9s %8s %9s %10s %8s\n", "mode", "kind", "right",
                "wrong", "false+", "no diff", "unreliable", "too few", "blocks", "re-runs",
                "mean chg", "wall");
    for (const auto& mode : o.modes)
        for (const char* kind : {"A/A", "A/B"}) {
            Tally& t = tallies[mode + " " + kind];
            if (t.n == 0) continue;  // not reached before a stop
            auto n = [&](const char* k) { return t.verdicts.count(k) ? t.verdicts[k] : 0; };
            std::printf("%-6s %-4s %6d %6d %6d %8d %11d %9d %8.1f %9u %+9.2f%% %7.0fs\n",
                        mode.c_str(), kind, n("right"), n("WRONG"), n("false positive"),
                        n(analysis::kNoDifference), n(analysis::kUnreliable),
                        n(analysis::kTooFewTrials), t.blocks / t.n, t.replaced, t.percent / t.n,
                        t.wall_s);
        }
    std::printf(
        "right/wrong: A/B found worse (right) or better (wrong) with confidence; false+: A/A "
        "found either; no diff: undecided at the cap; blocks: mean blocks (trials a cell) "
        "used; re-runs: disturbed trials replaced; mean chg: mean estimated change of '%s'\n",
        kMetric);
    return stopped ? 130 : 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_noise: %s\n", e.what());
    return 1;
}
