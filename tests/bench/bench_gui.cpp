// The desktop program's costs, side by side in one run (offscreen platform):
//   - a 100,000-node flame graph: layout, first paint, and a zoom's repaint;
//   - opening a store of 10,000 runs until the run browser shows them;
//   - a run of 1,000,000 stack samples over 100,000 distinct stacks: load
//     until its flame graph is on screen, and its top-down, bottom-up and
//     caller/callee trees;
//   - the live view of a capture sampling at 199 Hz and committing 10 times
//     a second: the GUI thread's longest stall (a 5 ms timer's lateness),
//     and from an interval's commit to the page showing it;
//   - the live view at the profile's scale: a run growing by 100,000 sample
//     rows every 0.25 s to 1,000,000, followed by the window: the same stall
//     and delay;
//   - the capture's receive rate with the GUI watching against without.
//
//   QT_QPA_PLATFORM=offscreen bench_gui [--runs 5] [--only flame|store|profile|live|live1m|rate] [--keep]
#include <QApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QTableView>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "analysis/trees/call_tree.h"
#include "analysis/trees/flame_layout.h"
#include "analysis/figures/run_metrics.h"
#include "db/queries.h"
#include "db/schema.h"
#include "db/writer.h"
#include "gui/main_window.h"
#include "gui/models/run_list_model.h"
#include "gui/run_loader.h"
#include "gui/widgets/flame_graph_widget.h"
#include "tests/bench/bench_clock.h"
#include "tests/support/profile_store.h"

using namespace pathscope;
namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// About `nodes` distinct frames in stacks up to 24 deep, as a large perf profile.
analysis::FlameTree big_tree(size_t nodes) {
    analysis::FlameTree t(1, "samples");
    std::mt19937_64 rng(42);
    std::vector<std::string> stack;
    while (t.size() < nodes) {
        stack.clear();
        const int depth = 3 + static_cast<int>(rng() % 22);
        for (int d = 0; d < depth; ++d)
            stack.push_back("ns" + std::to_string(d) + "::function_" +
                            std::to_string(rng() % (d < 3 ? 4 : 60)));
        t.add(stack, 1 + static_cast<double>(rng() % 50));
    }
    return t;
}

double ms(bench::Clock::time_point t0) { return bench::seconds_since(t0) * 1000; }

// The receive rate of a short capture, read back from its store.
double capture_rate(const std::string& db, bool watched) {
    fs::remove(db);
    QProcess capture;
    capture.start(QStringLiteral(PATHSCOPE_CLI),
                  {"run", "--db", QString::fromStdString(db), "--label", "watched", "--duration",
                   "4", "--no-histograms", "--set", "capture.sample_hz=0"});
    capture.waitForStarted();
    gui::MainWindow w;
    if (watched) {
        while (gui::list_store(db).runs.empty() && capture.state() == QProcess::Running)
            QApplication::processEvents(QEventLoop::AllEvents, 50);
        w.open_store(QString::fromStdString(db));
        w.select_run("watched");
        w.show();
        w.set_live(gui::MainWindow::kLivePollMs);  // as the GUI does by default
    }
    while (!capture.waitForFinished(20)) QApplication::processEvents();
    auto store = db::open_store(db, db::Database::Mode::read_only);
    const db::RunData run = db::load_run(*store, db::find_run(*store, "watched").id);
    return run.rows.trials.empty() ? 0 : run.rows.trials[0].rx_pps;
}

// When each interval of `run` was committed, as seen by a connection of
// its own polling every 2 ms: the reference the GUI's showing is timed from.
class CommitProbe {
  public:
    CommitProbe(std::string path) : path_(std::move(path)), thread_([this] { loop(); }) {}
    ~CommitProbe() {
        stop_ = true;
        thread_.join();
    }
    /// When the store first held `n` intervals (or none).
    std::optional<bench::Clock::time_point> seen(size_t n) {
        std::lock_guard lock(mutex_);
        auto it = seen_.find(n);
        return it == seen_.end() ? std::nullopt : std::optional(it->second);
    }

  private:
    void loop() {
        std::unique_ptr<db::Database> db;
        size_t last = 0;
        while (!stop_) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            try {
                if (!db) db = db::open_store(path_, db::Database::Mode::read_only);
                const size_t n = static_cast<size_t>(db->scalar("SELECT count(*) FROM intervals"));
                const auto now = bench::Clock::now();
                std::lock_guard lock(mutex_);
                for (size_t k = last + 1; k <= n; ++k) seen_.emplace(k, now);
                last = std::max(last, n);
            } catch (const std::exception&) {
                db.reset();  // not created yet
            }
        }
    }
    std::string path_;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::map<size_t, bench::Clock::time_point> seen_;
    std::thread thread_;
};

/// What the window showed of a growing run, and how the GUI thread fared.
struct LiveFigures {
    size_t shown = 0;   ///< intervals on the page at the end
    size_t stacks = 0;  ///< stack rows on the page at the end
    int updates = 0;
    qint64 worst = 0;              ///< the GUI thread's longest stall, ms
    std::vector<double> lateness;  ///< every tick's lateness, ms (sorted)
    std::vector<double> delay;     ///< commit to page, ms, one per interval shown
};

/// Follows `w` (showing the growing run) while `growing()` holds: a 5 ms
/// timer on the GUI thread records how late it fires, and each interval's
/// commit (from `probe`) is timed to the update that showed it.
LiveFigures follow_live(gui::MainWindow& w, CommitProbe& probe,
                        const std::function<bool()>& growing) {
    LiveFigures f;
    QElapsedTimer clock;
    clock.start();
    qint64 last = clock.elapsed();
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        f.worst = std::max(f.worst, now - last - 5);
        f.lateness.push_back(static_cast<double>(now - last - 5));
        last = now;
    });
    tick.start(5);
    f.shown = w.run_data() ? w.run_data()->rows.intervals.size() : 0;
    int updates = w.updates();
    while (growing()) {
        QApplication::processEvents(QEventLoop::AllEvents, 5);
        if (w.updates() == updates) continue;
        updates = w.updates();
        const auto now = bench::Clock::now();
        const size_t n = w.run_data()->rows.intervals.size();
        f.stacks = w.run_data()->rows.stacks.size();
        for (size_t k = f.shown + 1; k <= n; ++k)
            if (auto at = probe.seen(k))
                f.delay.push_back(std::chrono::duration<double, std::milli>(now - *at).count());
        f.shown = std::max(f.shown, n);
    }
    tick.stop();
    f.updates = w.updates();
    std::sort(f.lateness.begin(), f.lateness.end());
    return f;
}

void print_live(const LiveFigures& f) {
    std::printf(
        "  GUI thread's longest stall (5 ms timer's lateness) %6lld ms   goal < 50 ms "
        "(p99 %.0f ms)\n",
        static_cast<long long>(f.worst),
        f.lateness.empty() ? 0.0 : f.lateness[f.lateness.size() * 99 / 100]);
    std::printf(
        "  from an interval's commit to its page: median %.0f ms, max %.0f ms   goal < 500 ms\n",
        median(f.delay), f.delay.empty() ? 0.0 : *std::max_element(f.delay.begin(), f.delay.end()));
}

void live_view(const fs::path& dir) {
    const std::string live = (dir / "live.db").string();
    CommitProbe probe(live);
    QProcess capture;
    capture.start(QStringLiteral(PATHSCOPE_CLI),
                  {"run", "--db", QString::fromStdString(live), "--label", "live", "--duration",
                   "8", "--set", "capture.sample_hz=199", "--set", "capture.interval=0.1"});
    capture.waitForStarted();
    while (gui::list_store(live).runs.empty())
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    gui::MainWindow w;
    w.resize(1400, 860);
    w.show();
    w.open_store(QString::fromStdString(live));
    w.select_run("live");
    w.wait_until_loaded();
    const LiveFigures f =
        follow_live(w, probe, [&] { return capture.state() == QProcess::Running; });
    capture.waitForFinished();
    std::printf(
        "live view of a capture sampling at 199 Hz, committing every 0.1 s: %zu intervals "
        "shown in %d updates, %zu stack rows\n",
        f.shown, f.updates, f.stacks);
    print_live(f);
}

/// The live view at the profile benchmark's scale: a run of 100,000
/// distinct stacks that grows by an interval sampling each of them (100,000
/// rows) every 0.25 s, to 1,000,000 rows, committed by another connection
/// while the window follows it.
void live_million(const fs::path& dir) {
    const std::string path = (dir / "live1m.db").string();
    fs::remove(path);
    constexpr int kIntervals = 10;
    const int64_t id = test::write_profile_store(path, "growing", 100'000, 1);
    {
        auto db = db::open_store(path, db::Database::Mode::read_write);
        // Running, as a capture's run is: its trial has no totals yet (its
        // intervals so far stand in for them on every page).
        db->exec("UPDATE runs SET status = 'running' WHERE id = " + std::to_string(id));
        db->exec("DELETE FROM trials WHERE run_id = " + std::to_string(id));
    }
    CommitProbe probe(path);
    gui::MainWindow w;
    w.resize(1400, 860);
    w.show();
    w.open_store(QString::fromStdString(path));
    w.show_page(QStringLiteral("stacks"));
    w.select_run(QStringLiteral("growing"));
    w.wait_until_loaded();
    std::atomic<bool> writing{true};
    std::thread writer([&] {
        auto db = db::open_store(path, db::Database::Mode::read_write);
        const std::string run = std::to_string(id);
        for (int seq = 1; seq < kIntervals; ++seq) {
            std::this_thread::sleep_for(std::chrono::milliseconds(250));
            db->exec("BEGIN");
            db->exec("INSERT INTO stack_samples (run_id, trial, seq, event, stack, weight) SELECT "
                     "run_id, trial, " + std::to_string(seq) + ", event, stack, weight FROM "
                     "stack_samples WHERE run_id = " + run + " AND seq = 0");
            db->exec("INSERT INTO intervals (run_id, trial, seq, t, received, delivered, "
                     "forwarded, replied, dropped) VALUES (" + run + ", 0, " +
                     std::to_string(seq) + ", " + std::to_string((seq + 1.0) / kIntervals) +
                     ", 100000, 0, 0, 0, 0)");
            db->exec("COMMIT");
        }
        db->exec("UPDATE runs SET status = 'complete' WHERE id = " + run);
        writing = false;
    });
    // Until the writer is done and the window shows every interval (or 30 s).
    const auto t0 = bench::Clock::now();
    const LiveFigures f = follow_live(w, probe, [&] {
        const bool all = w.run_data() && w.run_data()->rows.intervals.size() >= kIntervals;
        return (writing || !all) && bench::seconds_since(t0) < 30;
    });
    writer.join();
    std::printf(
        "live view at the profile's scale: +100,000 sample rows every 0.25 s to %zu stack rows, "
        "%zu of %d intervals shown in %d updates\n",
        f.stacks, f.shown, kIntervals, f.updates);
    print_live(f);
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    int runs = 5;
    std::string only;  // --only flame|store|profile|live|live1m|rate: one part
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::string(argv[i]) == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
        if (std::string(argv[i]) == "--only") only = argv[i + 1];
    }
    const bool keep = std::any_of(argv + 1, argv + argc,
                                  [](const char* a) { return std::string(a) == "--keep"; });
    const auto part = [&](const char* name) { return only.empty() || only == name; };
    const fs::path dir =
        fs::temp_directory_path() / ("pathscope_bench_gui_" + std::to_string(getpid()));
    fs::create_directories(dir);

    if (part("flame")) {
        // 1. Flame graph of 100,000 nodes.
        const analysis::FlameTree tree = big_tree(100'000);
        auto diff = std::make_shared<analysis::FlameDiff>(analysis::diff_trees(tree, tree));
        std::vector<double> layout, full, first, zoom;
        for (int r = 0; r < runs; ++r) {
            auto t0 = bench::Clock::now();
            const analysis::FlameLayout l = analysis::layout_flame(*diff);
            layout.push_back(ms(t0));
            analysis::FlameLayoutOptions every;
            every.min_fraction = 0;  // no merging: every node gets its rectangle
            t0 = bench::Clock::now();
            (void)analysis::layout_flame(*diff, every);
            full.push_back(ms(t0));
            gui::FlameGraphWidget w;
            w.resize(1400, 800);
            t0 = bench::Clock::now();
            w.set_diff(diff, false, "samples");  // lays out
            (void)w.grab();                      // paints
            first.push_back(ms(t0));
            const int child = diff->nodes[0].children.empty() ? 0 : diff->nodes[0].children[0];
            t0 = bench::Clock::now();
            w.zoom_to(child);
            (void)w.grab();
            zoom.push_back(ms(t0));
            if (r == 0)
                std::printf(
                    "flame graph: %zu nodes, %zu rectangles drawn at the root (merge < 0.1%%)\n",
                    diff->nodes.size(), l.rects.size());
        }
        std::printf("  layout, tiny frames merged (the default)  %8.2f ms   goal < 50 ms\n",
                    median(layout));
        std::printf("  layout, every node a rectangle            %8.2f ms   goal < 50 ms\n",
                    median(full));
        std::printf("  layout + first paint (1400x800)           %8.2f ms\n", median(first));
        std::printf("  zoom: layout + repaint                    %8.2f ms   goal < 16 ms\n",
                    median(zoom));
    }
    if (part("store")) {
        // 2. A store of 10,000 runs: a team's, with scenario texts and matrices.
        const std::string many = (dir / "many.db").string();
        {
            auto db = db::open_store(many, db::Database::Mode::read_write);
            db->exec("PRAGMA synchronous = OFF");  // only the bench's set-up
            db::BatchWriter w(*db);
            const std::string scenario(1500, '#');
            for (int i = 0; i < 10'000; ++i) {
                db::RunInfo info;
                info.label = "udp6-tx-bind-connect-" + std::to_string(i / 8);
                info.host = "bench";
                info.status = "complete";
                info.trials = 3;
                info.scenario_text = scenario;
                info.experiment = "e" + std::to_string(i / 8);
                info.cell = std::string("socket.bind=") + (i & 1 ? "true" : "false") +
                            "\nsocket.connect=" + (i & 2 ? "true" : "false") +
                            "\nengine.route_cache=" + (i & 4 ? "on" : "off");
                w.insert_run(info);
                db::Batch b;
                for (int t = 0; t < 3; ++t) {
                    db::TrialRow tr;
                    tr.trial = t;
                    tr.received = 1000;
                    b.trials.push_back(tr);
                }
                w.write(info.id, b);
            }
        }
        std::vector<double> open;
        for (int r = 0; r < runs; ++r) {
            const auto t0 = bench::Clock::now();
            gui::MainWindow w;
            w.open_store(QString::fromStdString(many));
            w.show();
            QApplication::processEvents();
            (void)w.grab();
            open.push_back(ms(t0));
            if (w.runs()->rowCount() != 10'000)
                std::printf("  (!) %d runs listed\n", w.runs()->rowCount());
        }
        std::printf(
            "store of 10,000 runs: open and show the run browser %8.2f ms   goal < 1000 ms\n",
            median(open));
    }
    if (part("profile")) {
        // 3. A long sampled capture: 1,000,000 sample rows over 100,000 stacks.
        const std::string profile = (dir / "profile.db").string();
        const size_t stacks = 100'000;  // each sampled in 10 intervals: 1,000,000 rows
    test::write_profile_store(profile, "profile", stacks, 10);
        std::vector<double> shown_ms, views_ms, tree_ms, rows_ms, pages_ms;
        for (int r = 0; r < std::min(runs, 3); ++r) {
            gui::MainWindow w;
            w.resize(1400, 860);
            w.show();
            w.open_store(QString::fromStdString(profile));
            w.show_page(QStringLiteral("stacks"));
            const auto t0 = bench::Clock::now();
            w.select_run(QStringLiteral("profile"));
            w.wait_until_loaded();
            (void)w.grab();
            shown_ms.push_back(ms(t0));
            auto store = db::open_store(profile, db::Database::Mode::read_only);
            auto t1 = bench::Clock::now();
            auto loaded = std::make_shared<const db::RunData>(
                db::load_run(*store, db::find_run(*store, "profile").id, {.expand_stacks = false}));
            rows_ms.push_back(ms(t1));
            const db::RunData& run = *loaded;
            t1 = bench::Clock::now();
            (void)gui::compute_pages(loaded);
            pages_ms.push_back(ms(t1));
            t1 = bench::Clock::now();
            const analysis::FlameTree tree = analysis::stack_tree(run);
            tree_ms.push_back(ms(t1));
            t1 = bench::Clock::now();
            const analysis::CallViews views = analysis::build_call_views(tree);
            views_ms.push_back(ms(t1));
            if (r == 0)
                std::printf(
                    "profile run: %zu sample rows over %zu distinct stacks, %zu tree nodes\n",
                    run.rows.stacks.size(), stacks, tree.size());
        }
        std::printf("  select until its flame graph is on screen   %8.1f ms   goal < 2000 ms\n",
                    median(shown_ms));
        std::printf("  of which: its rows from the store            %8.1f ms\n", median(rows_ms));
        std::printf("            every page's figures and trees     %8.1f ms\n", median(pages_ms));
        std::printf("  its stack tree from the interned stacks      %8.1f ms\n", median(tree_ms));
        std::printf("  top-down, bottom-up and caller/callee trees  %8.1f ms   goal < 1000 ms\n",
                    median(views_ms));
    }
    if (part("live")) {
        // 4. Live view of a sampling capture (199 Hz, a commit every 0.1 s).
        live_view(dir);
    }
    if (part("live1m")) {
        // 5. The live view of a run growing to 1,000,000 sample rows.
        live_million(dir);
    }

    if (part("rate")) {
        std::vector<double> alone, watched;
        for (int r = 0; r < std::min(runs, 3); ++r) {
            alone.push_back(capture_rate((dir / "alone.db").string(), false));
            watched.push_back(capture_rate((dir / "watched.db").string(), true));
        }
        std::printf(
            "capture rx rate, median of %zu: alone %.3f Mpps, GUI watching %.3f Mpps: %.2fx\n",
            alone.size(), median(alone) / 1e6, median(watched) / 1e6,
            median(alone) > 0 ? median(watched) / median(alone) : 0.0);
    }
    if (keep)
        std::printf("stores kept in %s\n", dir.c_str());
    else
        fs::remove_all(dir);
    return 0;
}
