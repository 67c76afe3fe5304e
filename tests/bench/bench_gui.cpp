// The desktop program's costs, side by side in one run (offscreen platform):
//   - a 100,000-node flame graph: layout, first paint, and a zoom's repaint;
//   - opening a store of 1,000 runs until the run browser shows them;
//   - the live view: from a capture's commit to the page showing it, and the
//     capture's receive rate with the GUI watching against without.
//
//   QT_QPA_PLATFORM=offscreen bench_gui [--runs 5]
#include <QApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QTableView>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>

#include "analysis/flame_layout.h"
#include "db/queries.h"
#include "db/schema.h"
#include "db/writer.h"
#include "gui/main_window.h"
#include "gui/models/run_list_model.h"
#include "gui/run_loader.h"
#include "gui/widgets/flame_graph_widget.h"
#include "tests/bench/bench_clock.h"

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

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    int runs = 5;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    const fs::path dir = fs::temp_directory_path() / ("pathscope_bench_gui_" + std::to_string(getpid()));
    fs::create_directories(dir);

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
            std::printf("flame graph: %zu nodes, %zu rectangles drawn at the root (merge < 0.1%%)\n",
                        diff->nodes.size(), l.rects.size());
    }
    std::printf("  layout, tiny frames merged (the default)  %8.2f ms   goal < 50 ms\n", median(layout));
    std::printf("  layout, every node a rectangle            %8.2f ms   goal < 50 ms\n", median(full));
    std::printf("  layout + first paint (1400x800)           %8.2f ms\n", median(first));
    std::printf("  zoom: layout + repaint                    %8.2f ms   goal < 16 ms\n", median(zoom));

    // 2. A store of 1,000 runs.
    const std::string many = (dir / "many.db").string();
    {
        auto db = db::open_store(many, db::Database::Mode::read_write);
        db::BatchWriter w(*db);
        for (int i = 0; i < 1000; ++i) {
            db::RunInfo info;
            info.label = "run" + std::to_string(i);
            info.host = "bench";
            info.status = "complete";
            info.trials = 3;
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
        if (w.runs()->rowCount() != 1000) std::printf("  (!) %d runs listed\n", w.runs()->rowCount());
    }
    std::printf("store of 1,000 runs: open and show the run browser %8.2f ms   goal < 1000 ms\n",
                median(open));

    // 3. Live view: from the moment a poll sees a commit to the page showing it.
    const std::string live = (dir / "live.db").string();
    {
        QProcess capture;
        capture.start(QStringLiteral(PATHSCOPE_CLI),
                      {"run", "--db", QString::fromStdString(live), "--label", "live",
                       "--duration", "4", "--no-histograms", "--set", "capture.sample_hz=0"});
        capture.waitForStarted();
        while (gui::list_store(live).runs.empty()) QApplication::processEvents(QEventLoop::AllEvents, 20);
        gui::MainWindow w;
        w.open_store(QString::fromStdString(live));
        w.select_run("live");
        w.wait_until_loaded();
        std::vector<double> shown;
        while (capture.state() == QProcess::Running) {
            const auto t0 = bench::Clock::now();
            if (w.poll_store()) {
                w.wait_until_loaded();
                shown.push_back(ms(t0));
            }
            QApplication::processEvents(QEventLoop::AllEvents, 50);
        }
        capture.waitForFinished();
        std::printf("live view: %zu commits seen; poll + reload + show: median %.1f ms, max %.1f ms\n"
                    "  (+ up to the poll period, %d ms: worst case %.0f ms)   goal < 500 ms\n",
                    shown.size(), median(shown),
                    shown.empty() ? 0 : *std::max_element(shown.begin(), shown.end()),
                    gui::MainWindow::kLivePollMs,
                    gui::MainWindow::kLivePollMs +
                        (shown.empty() ? 0 : *std::max_element(shown.begin(), shown.end())));
    }
    std::vector<double> alone, watched;
    for (int r = 0; r < std::min(runs, 3); ++r) {
        alone.push_back(capture_rate((dir / "alone.db").string(), false));
        watched.push_back(capture_rate((dir / "watched.db").string(), true));
    }
    std::printf("capture rx rate, median of %zu: alone %.3f Mpps, GUI watching %.3f Mpps: %.2fx\n",
                alone.size(), median(alone) / 1e6, median(watched) / 1e6,
                median(alone) > 0 ? median(watched) / median(alone) : 0.0);
    fs::remove_all(dir);
    return 0;
}
