// What analysis costs, in one run:
//  1. a flame tree difference of two 100,000-node trees (random call trees,
//     5,000 function names), without trials (the stated threshold) and with
//     5 trials a side (Student's t at every node), against building one of
//     the trees from its folded text, measured in the same run;
//  2. a 22x2-trial report: two real 22-trial captures of the default scenario
//     (recorded by the pathscope command), loaded from the store and rendered
//     in every format, against loading the runs alone;
//  3. pathscope stats against Debian's ministat on the same files (22x2
//     numbers, and 1,000,000 x 2), when ministat is installed.
// Medians of --runs repetitions; ratios, since the machine is shared.
//
//   bench_analysis [--runs N] [--nodes N] [--trial-seconds S]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "capture/profile_text.h"
#include "analysis/flame_diff.h"
#include "analysis/flame_tree.h"
#include "analysis/report.h"
#include "db/queries.h"
#include "db/schema.h"
#include "tests/bench/bench_clock.h"

using namespace pathscope;
namespace fs = std::filesystem;
using bench::Clock;
using bench::seconds_since;

namespace {

template <typename F>
double median_seconds(int runs, F&& f) {
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        f();
        t.push_back(seconds_since(t0));
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// A random call tree of about `nodes` nodes as folded text: every new stack
// extends a random earlier one by a frame, so depth and fan-out vary. The
// candidate is the same program after a change: weights move by up to 20%
// and one stack in 20 calls something else.
std::pair<std::string, std::string> random_folded_pair(size_t nodes, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::string> stacks = {"main"};
    stacks.reserve(nodes);
    while (stacks.size() < nodes) {
        const std::string& parent = stacks[rng() % stacks.size()];
        if (std::count(parent.begin(), parent.end(), ';') > 40) continue;
        stacks.push_back(parent + ";fn_" + std::to_string(rng() % 5000));
    }
    std::uniform_real_distribution<double> change(0.8, 1.2);
    std::string base, cand;
    for (const auto& s : stacks) {
        const int w = static_cast<int>(1 + rng() % 1000);
        base += s + " " + std::to_string(w) + "\n";
        const std::string renamed = rng() % 20 ? s : s + "_v2";
        cand += renamed + " " + std::to_string(static_cast<int>(w * change(rng))) + "\n";
    }
    return {base, cand};
}

analysis::FlameTree folded_tree(const std::string& text) {
    std::istringstream in(text);
    return capture::parse_folded(in, "bench");
}

// The same shape in `trials` trials, each weight wobbling by a few percent.
analysis::FlameTree trial_tree(const analysis::FlameTree& t, int trials, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> wobble(0.97, 1.03);
    analysis::FlameTree out(trials, t.unit());
    std::vector<std::string> frames;
    for (size_t i = 1; i < t.size(); ++i) {
        frames.clear();
        for (int n = static_cast<int>(i); n > 0; n = t.parent(n)) frames.push_back(t.name(n));
        std::reverse(frames.begin(), frames.end());
        for (int k = 0; k < trials; ++k) out.add(frames, t.self(i) * wobble(rng), k);
    }
    return out;
}

int run_quiet(const std::string& cmd) { return std::system((cmd + " > /dev/null 2>&1").c_str()); }

}  // namespace

int main(int argc, char** argv) {
    int runs = 5;
    size_t nodes = 100000;
    double trial_seconds = 0.25;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
        if (a == "--nodes") nodes = std::strtoull(argv[i + 1], nullptr, 10);
        if (a == "--trial-seconds") trial_seconds = std::atof(argv[i + 1]);
    }

    // 1. Flame tree difference.
    const auto [base_text, cand_text] = random_folded_pair(nodes, 1);
    analysis::FlameTree base = folded_tree(base_text), cand = folded_tree(cand_text);
    const double build = median_seconds(runs, [&] { base = folded_tree(base_text); });
    size_t diff_nodes = 0;
    const double diff = median_seconds(runs, [&] {
        diff_nodes = analysis::diff_trees(base, cand).nodes.size();
    });
    const analysis::FlameTree base5 = trial_tree(base, 5, 3), cand5 = trial_tree(cand, 5, 4);
    const double diff5 = median_seconds(runs, [&] { analysis::diff_trees(base5, cand5); });
    std::printf("flame tree difference, median of %d\n", runs);
    std::printf("  trees: %zu and %zu nodes, difference %zu nodes\n", base.size(), cand.size(),
                diff_nodes);
    std::printf("  %-52s %9.1f ms\n", "build one tree from folded text (the reference)",
                build * 1e3);
    std::printf("  %-52s %9.1f ms  %5.2fx\n", "difference, one trial a side (threshold)",
                diff * 1e3, diff / build);
    std::printf("  %-52s %9.1f ms  %5.2fx\n", "difference, 5 trials a side (t at every node)",
                diff5 * 1e3, diff5 / build);

    // 2. A 22x2-trial report from real captures.
    const fs::path dir = fs::temp_directory_path() / ("pathscope_bench_analysis_" +
                                                      std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string db_path = (dir / "review.db").string();
    char trials_arg[96];
    std::snprintf(trials_arg, sizeof trials_arg, " --trials 22 --duration %g", trial_seconds);
    const std::string cli = PATHSCOPE_CLI;
    std::printf("\n22x2-trial report (recording two 22-trial runs of %.2f s ...)\n",
                trial_seconds);
    std::fflush(stdout);
    if (run_quiet(cli + " run --db " + db_path + " --label base" + trials_arg) != 0 ||
        run_quiet(cli + " run --db " + db_path + " --label cand --set engine.burst=64" +
                  trials_arg) != 0) {
        std::printf("  could not record the runs (is this root, with DPDK installed?)\n");
        return 1;
    }
    auto db = db::open_store(db_path, db::Database::Mode::read_only);
    db::RunData b, c;
    const double load = median_seconds(runs, [&] {
        b = db::load_run(*db, db::find_run(*db, "base").id);
        c = db::load_run(*db, db::find_run(*db, "cand").id);
    });
    analysis::Report report;
    const double build_report =
        median_seconds(runs, [&] { report = analysis::build_report(b, &c, {}); });
    std::printf("  %zu + %zu trials, %zu + %zu stored rows, %zu verdicts\n", b.rows.trials.size(),
                c.rows.trials.size(), b.rows.rows(), c.rows.rows(), report.verdicts.size());
    std::printf("  %-52s %9.1f ms\n", "load both runs from the store (the reference)", load * 1e3);
    std::printf("  %-52s %9.1f ms  %5.2fx\n", "analysis (metrics, verdicts, trees, diffs)",
                build_report * 1e3, build_report / load);
    const std::pair<const char*, std::string (*)(const analysis::Report&)> formats[] = {
        {"text", analysis::render_report_text},
        {"md", analysis::render_report_markdown},
        {"html", analysis::render_report_html},
        {"json", analysis::render_report_json}};
    double all = load + build_report;
    for (const auto& [name, render] : formats) {
        size_t bytes = 0;
        const double t = median_seconds(runs, [&] { bytes = render(report).size(); });
        all += t;
        char label[64];
        std::snprintf(label, sizeof label, "render %s (%zu bytes)", name, bytes);
        std::printf("  %-52s %9.1f ms  %5.2fx\n", label, t * 1e3, t / load);
    }
    std::printf("  %-52s %9.1f ms  %5.2fx\n", "all four reports from the store", all * 1e3,
                all / load);

    // 3. pathscope stats against ministat.
    std::printf("\npathscope stats against ministat, wall time of the command\n");
    if (run_quiet("command -v ministat") != 0) {
        std::printf("  ministat is not installed (scripts/setup.sh installs it)\n");
    } else {
        std::mt19937 rng(5);
        std::normal_distribution<double> x(1919208.8, 33644.193), y(4035067.9, 21266.017);
        for (size_t n : {size_t{22}, size_t{1000000}}) {
            std::ofstream fx(dir / "x.txt"), fy(dir / "y.txt");
            for (size_t i = 0; i < n; ++i) fx << x(rng) << "\n", fy << y(rng) << "\n";
            fx.close();
            fy.close();
            const std::string files = " " + (dir / "x.txt").string() + " " + (dir / "y.txt").string();
            const double m = median_seconds(runs, [&] { run_quiet("ministat" + files); });
            const double p = median_seconds(runs, [&] { run_quiet(cli + " stats" + files); });
            std::printf("  %zu x 2 numbers: ministat %8.1f ms, pathscope stats %8.1f ms  %5.2fx\n",
                        n, m * 1e3, p * 1e3, p / m);
        }
    }
    fs::remove_all(dir);
    return 0;
}
