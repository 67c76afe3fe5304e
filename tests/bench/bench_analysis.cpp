// What analysis costs, in one run:
//  1. a flame tree difference of two 100,000-node trees (random call trees,
//     5,000 function names), without trials (the stated threshold) and with
//     5 trials a side (Student's t at every node), against building one of
//     the trees from its folded text, measured in the same run;
//  1b. the stack views' trees (top-down, bottom-up, caller/callee) of a run
//     of 1,000,000 samples over 100,000 distinct stacks, and of a comparison
//     of two such runs, against building the run's flame tree;
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
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "capture/profile_text.h"
#include "analysis/trees/call_tree.h"
#include "analysis/trees/flame_diff.h"
#include "analysis/trees/flame_tree.h"
#include "analysis/render/report.h"
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

// `distinct` stacks (each extends a random earlier one by a frame, names
// drawn from 3,000 functions, some recursing) and `samples` samples spread
// over them unevenly: the stacks and weights a store holds for a long
// sampled capture.
struct SampledStacks {
    std::vector<std::vector<std::string>> stacks;
    std::vector<double> weights;
};
SampledStacks random_samples(size_t distinct, size_t samples, uint32_t seed) {
    std::mt19937 rng(seed);
    SampledStacks out;
    out.stacks.push_back({"main"});
    while (out.stacks.size() < distinct) {
        std::vector<std::string> s = out.stacks[rng() % out.stacks.size()];
        if (s.size() >= 40) continue;
        const uint32_t f = rng() % 3000;
        s.push_back(f < 30 && !s.empty() ? s.back() : "ns" + std::to_string(f % 40) + "::fn_" + std::to_string(f));
        out.stacks.push_back(std::move(s));
    }
    out.weights.assign(distinct, 1.0);  // every stack sampled at least once
    std::geometric_distribution<size_t> hot(0.00005);
    for (size_t i = distinct; i < samples; ++i) out.weights[std::min(hot(rng), distinct - 1) * 7919 % distinct] += 1;
    return out;
}

analysis::FlameTree sampled_tree(const SampledStacks& s, int trials) {
    analysis::FlameTree t(trials, "samples");
    std::vector<double> per_trial(static_cast<size_t>(trials), 0.0);
    for (size_t i = 0; i < s.stacks.size(); ++i)
        for (int k = 0; k < trials; ++k) {
            const double w = std::floor(s.weights[i] / trials + (k == 0 ? std::fmod(s.weights[i], trials) : 0));
            if (w <= 0) continue;
            t.add(s.stacks[i], w, k);
            per_trial[static_cast<size_t>(k)] += w;
        }
    for (int k = 0; k < trials; ++k) t.set_trial_scale(k, per_trial[static_cast<size_t>(k)]);
    return t;
}

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

    // 1b. The stack views' trees.
    {
        const SampledStacks run = random_samples(100000, 1000000, 5);
        // The candidate: the same program, each stack's samples moved by up to 20%.
        SampledStacks other = run;
        std::mt19937 move(6);
        for (double& w : other.weights) w = std::round(w * (0.8 + 0.4 * (move() % 1000) / 1000.0));
        analysis::FlameTree tree = sampled_tree(run, 1);
        const double flame = median_seconds(runs, [&] { tree = sampled_tree(run, 1); });
        analysis::CallViews views;
        const double td = median_seconds(runs, [&] {
            views.top_down = std::make_shared<const analysis::CallTree>(analysis::CallTree::top_down(tree));
        });
        const double bu = median_seconds(runs, [&] {
            views.bottom_up = std::make_shared<const analysis::CallTree>(analysis::CallTree::bottom_up(*views.top_down));
        });
        const double cc = median_seconds(runs, [&] {
            views.callers = std::make_shared<const analysis::CallerCallee>(views.top_down);
        });
        const double all = median_seconds(runs, [&] { views = analysis::build_call_views(tree); });
        const double links = median_seconds(runs, [&] {
            views.callers->neighbours(views.top_down->name_id(static_cast<size_t>(views.top_down->child(0, 0))));
        });
        const analysis::FlameTree b5 = sampled_tree(run, 5), c5 = sampled_tree(other, 5);
        analysis::CallViews pair;
        const double compared = median_seconds(runs, [&] { pair = analysis::build_call_views(b5, c5); });
        double samples = 0;
        for (double w : run.weights) samples += w;
        std::printf("\nstack views' trees, median of %d\n", runs);
        std::printf("  %zu distinct stacks, %.0f samples: flame tree %zu nodes, bottom-up %zu nodes, "
                    "%zu functions\n",
                    run.stacks.size(), samples, tree.size(), views.bottom_up->size(),
                    views.callers->functions().size());
        std::printf("  %-52s %9.1f ms\n", "flame tree from the stacks (the reference)", flame * 1e3);
        std::printf("  %-52s %9.1f ms  %5.2fx\n", "top-down tree", td * 1e3, td / flame);
        std::printf("  %-52s %9.1f ms  %5.2fx\n", "bottom-up tree (from the top-down)", bu * 1e3, bu / flame);
        std::printf("  %-52s %9.1f ms  %5.2fx\n", "caller/callee aggregates", cc * 1e3, cc / flame);
        std::printf("  %-52s %9.1f ms  %5.2fx\n", "all three (build_call_views)", all * 1e3, all / flame);
        std::printf("  %-52s %9.1f ms\n", "callers and callees of main", links * 1e3);
        std::printf("  %-52s %9.1f ms  %5.2fx\n", "all three, comparison 5 vs 5 trials", compared * 1e3,
                    compared / flame);
        std::fflush(stdout);
    }

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
