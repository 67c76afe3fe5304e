// pathscope-gui under the offscreen platform: every model and proxy through
// QAbstractItemModelTester, and the real widgets driven as a user would:
// clicking a named frame zooms into it and the breadcrumb walks back; a
// search highlights exactly the matching frames and reports their share;
// sorting reorders the stage table; clicking a stage opens it in the flame
// graph; foreign, newer, truncated and random files are refused clearly.
// The model and page tests run on a file and on a server store (CMake's
// SERVER_STORE list, tests/support/qt_store_backends.h).
#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QSet>
#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <random>

#include "analysis/trees/flame_tree.h"
#include "analysis/figures/run_summary.h"
#include "db/schema.h"
#include "db/writer.h"
#include "gui/main_window.h"
#include "gui/models/experiment_grid_model.h"
#include "gui/models/run_list_model.h"
#include "gui/models/stage_table_model.h"
#include "gui/models/verdict_table_model.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/flame_page.h"
#include "gui/pages/queues_page.h"
#include "gui/pages/time_series_page.h"
#include "gui/pages/traces_page.h"
#include "gui/widgets/flame_graph_widget.h"
#include "gui/widgets/experiment_filter.h"
#include "gui/widgets/histogram_widget.h"
#include "gui/widgets/path_graph_widget.h"
#include "gui/pages/path_page.h"
#include "tests/support/qt_store_backends.h"

using namespace pathscope;
using namespace pathscope::gui;
namespace fs = std::filesystem;

namespace {

// A tree with known shares: main 100 = walk 70 (lookup 40, rx 30) + idle 30.
std::shared_ptr<analysis::FlameDiff> sample_diff() {
    analysis::FlameTree t(1, "cycles");
    t.add({"main", "walk", "lookup"}, 40);
    t.add({"main", "walk", "rx"}, 30);
    t.add({"main", "idle"}, 30);
    return std::make_shared<analysis::FlameDiff>(analysis::diff_trees(t, t));
}

// A real store with runs of two trials each: three stages, idle polling on
// eth_rx, drops, queues, per-call histograms and sampled packet traces.
// `lookup` sets ip6_lookup's cycles (a candidate can be made faster).
void add_run(const std::string& path, const std::string& label, uint64_t lookup = 64000,
             int trials = 2, const std::string& experiment = "", const std::string& cell = "") {
    db::RunInfo info;
    info.label = label;
    info.host = db::host_name();
    info.trials = trials;
    info.experiment = experiment;
    info.cell = cell;
    db::RunWriter w(path, info);
    db::Batch b;
    b.facts.emplace_back(db::kVariantsFact, "route_cache=on txq_hash=flow");
    for (int t = 0; t < trials; ++t) {
        const uint64_t jitter = static_cast<uint64_t>(t) * 97;
        db::TrialRow tr;
        tr.trial = t;
        tr.seconds = 1;
        tr.received = 3200;
        tr.forwarded = 3190;
        tr.dropped = 10;
        tr.window_received = 3200;
        tr.rx_pps = 3200 + static_cast<double>(jitter);
        tr.forwarded_pps = 3190;
        tr.walks = 1000;
        tr.idle_walks = 900;
        b.trials.push_back(tr);
        b.stages.push_back({t, -1, "eth_rx", 0, 1000, 3200, 122000 + jitter, 900, 90000});
        b.stages.push_back({t, -1, "ip6_lookup", 1, 100, 3200, lookup + jitter, 0, 0});
        b.stages.push_back({t, -1, "eth_tx", 2, 100, 3190, 10000 + jitter, 0, 0});
        b.drops.push_back({t, "ip6_hop_limit", "ip6_forward", "receive", 10});
        b.perf.push_back({t, "perf::task-clock", true, 320000, 1000, 1000, ""});
        b.perf.push_back({t, "perf::cycles", false, 0, 0, 0, "not supported"});
        b.queues.push_back({t, -1, "wire", 0, "rx", 3160, 202240, 99, 900, 0});
        b.queues.push_back({t, -1, "wire", 1, "rx", 40, 2560, 2, 998, 0});
        db::HistogramRow h{t, db::kStageCallCycles, "ip6_lookup", "cycles", 0, 0, 0, 0, {}};
        analysis::Histogram hist;
        for (int i = 0; i < 100; ++i) hist.add(lookup / 100 + static_cast<uint64_t>(i % 37));
        h.count = hist.count();
        h.sum = hist.sum();
        h.min = hist.min();
        h.max = hist.max();
        for (uint32_t k = 0; k < hist.counts().size(); ++k)
            if (hist.counts()[k]) h.buckets.emplace_back(k, hist.counts()[k]);
        b.histograms.push_back(h);
        std::vector<uint8_t> frame(64, 0);
        frame[12] = 0x86;
        frame[13] = 0xdd;
        frame[14] = 0x60;
        frame[19] = 10;  // payload length
        frame[20] = 17;  // UDP
        b.traces.push_back({t, 0, 0.25, "wire", 64, frame, {{"eth_rx", 40}, {"ip6_lookup", 20}},
                            "forwarded"});
        b.traces.push_back({t, 1, 0.5, "wire", 64, frame, {{"eth_rx", 40}, {"drop", 5}},
                            "dropped: ip6_hop_limit"});
        // Four intervals a trial; ip6_lookup costs twice as much in trial 1.
        for (int seq = 0; seq < 4; ++seq) {
            b.intervals.push_back({t, seq, 0.25 * (seq + 1), 800, 0, 800, 0, 0});
            b.stages.push_back({t, seq, "eth_rx", 0, 30, 800, 8000 + 500, 5, 500});
            b.stages.push_back({t, seq, "ip6_lookup", 1, 25, 800, 16000u * (t + 1), 0, 0});
            // Sampled stacks per interval: 2 + seq samples of one stack.
            b.stacks.push_back({t, "perf::cpu-clock", {{"main", "app"}, {"walk", "app"}},
                                static_cast<uint64_t>(2 + seq), seq});
        }
    }
    w.submit(b);
    w.finish("complete");
}

/// A run on the Linux kernel (hand-made): sampled stages (calls are
/// samples, no packets), no queues, histograms, traces or edges.
void add_kernel_run(const std::string& path, const std::string& label) {
    db::RunInfo info;
    info.label = label;
    info.host = db::host_name();
    info.trials = 2;
    db::RunWriter w(path, info);
    db::Batch b;
    b.facts.emplace_back(db::kVariantsFact, "path=send socket.bind=false socket.connect=true");
    b.facts.emplace_back(db::kTargetFact, "linux 6.18");
    for (int t = 0; t < 2; ++t) {
        db::TrialRow tr;
        tr.trial = t;
        tr.seconds = 1;
        tr.received = tr.delivered = tr.window_received = tr.sends = tr.sent = 1000;
        tr.rx_pps = tr.delivered_pps = tr.sent_pps = 1000;
        b.trials.push_back(tr);
        b.stages.push_back({t, -1, "ip6_lookup", 0, 100, 0, 100000, 0, 0});
        b.stages.push_back({t, -1, "udp6_output", 1, 300, 0, 300000, 0, 0});
        b.stages.push_back({t, -1, "unmapped", 2, 4, 0, 4000, 0, 0});
        b.drops.push_back({t, "NO_SOCKET", "udp6_input", "kfree_skb", 3});
    }
    w.submit(std::move(b));
    w.finish("complete");
}

std::string sample_store(const fs::path& dir) {
    const std::string path = test::new_test_store(dir, "gui.db");
    add_run(path, "gui-run");
    return path;
}

}  // namespace

class GuiTest : public QObject {
    Q_OBJECT
    fs::path dir_;

    // A fresh sample store, open with its run loaded.
    bool open_sample(MainWindow& w) {
        if (!w.open_store(QString::fromStdString(sample_store(dir_))).isEmpty()) return false;
        if (!w.select_run("gui-run")) return false;
        w.wait_until_loaded();
        return true;
    }

  private slots:
    void initTestCase() {
        dir_ = fs::temp_directory_path() / ("pathscope_gui_" + std::to_string(getpid()));
        fs::create_directories(dir_);
    }
    void cleanupTestCase() { fs::remove_all(dir_); }
    void init() { PATHSCOPE_QT_NEED_STORE(); }

    void modelsPassTheModelTester() {
        MainWindow w;
        QCOMPARE(w.open_store(QString::fromStdString(sample_store(dir_))), QString());
        QAbstractItemModelTester runs(w.runs(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxy(w.run_proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(w.runs()->rowCount(), 1);
        QCOMPARE(w.runs()->row_of("gui-run"), 0);
        QCOMPARE(w.runs()->row_of("gui-run@1"), 0);
        QCOMPARE(w.runs()->row_of("gui-run@2"), -1);
        QCOMPARE(w.runs()->row_of("1"), 0);
        QVERIFY(w.select_run("gui-run"));
        w.wait_until_loaded();
        QAbstractItemModelTester stages(w.stages(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester sorted(w.stage_proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(w.stages()->rowCount(), 4);  // three stages and "all stages"
        w.run_filter()->setText("no such run");
        QCOMPARE(w.run_proxy()->rowCount(), 0);
        w.run_filter()->setText("GUI-RUN");
        QCOMPARE(w.run_proxy()->rowCount(), 1);
    }

    void aLinuxRunSaysWhatItLacks() {
        const std::string path = test::new_test_store(dir_, "kernel.db");
        add_kernel_run(path, "kernel-run");
        MainWindow w;
        QCOMPARE(w.open_store(QString::fromStdString(path)), QString());
        QVERIFY(w.select_run("kernel-run"));
        w.wait_until_loaded();
        StageTableModel* m = w.stages();
        QCOMPARE(m->headerData(StageTableModel::BusyCalls, Qt::Horizontal, Qt::DisplayRole).toString(),
                 QString("samples"));
        QCOMPARE(m->index(0, StageTableModel::BusyCalls).data().toString(), QString("200"));  // both trials
        // The kernel counts no packets per stage: absent, never 0.
        for (int c : {StageTableModel::Packets, StageTableModel::PacketsPerCall,
                      StageTableModel::CyclesPerCall, StageTableModel::CyclesPerPacket})
            QCOMPARE(m->index(0, c).data().toString(), QString("-"));
        // 100 samples a trial x 1000 cycles over 1000 packets, +/- sqrt(100 + 100) / 2.
        QCOMPARE(m->index(0, StageTableModel::CyclesPerPathPacket).data().toString(),
                 QString::fromUtf8("100.0 \u00b1 7.1"));
        QVERIFY2(w.header()->text().contains("absent on the Linux target"), qPrintable(w.header()->text()));
        QVERIFY(!w.path_page()->graph()->graph() || w.path_page()->graph()->graph()->nodes.empty());
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    }

    void stageTableShowsBusyWorkAndSorts() {
        MainWindow w;
        QVERIFY(open_sample(w));
        StageSortProxy* p = w.stage_proxy();
        auto cell = [&](int row, int col) { return p->index(row, col).data().toString(); };
        // Graph order first.
        QCOMPARE(cell(0, StageTableModel::Stage), QString("eth_rx"));
        // eth_rx: 2 x 32,000 busy cycles over 6,400 packets, idle kept apart.
        QCOMPARE(cell(0, StageTableModel::CyclesPerPacket), QString("10.0"));  // (64,000 + 97) / 6,400
        QCOMPARE(cell(0, StageTableModel::BusyCalls), QString("200"));
        QCOMPARE(cell(3, StageTableModel::Stage), QString("all stages"));
        QCOMPARE(cell(3, StageTableModel::CyclesPerPathPacket), QString("33.2"));  // 10 + 20 + 3.2
        QVERIFY(w.warning()->isVisibleTo(&w));
        // perf counters per packet: 2 x 320,000 ns over 6,400 packets.
        QVERIFY2(w.perf()->text().contains("perf::task-clock 100.000 ns/pkt"),
                 qPrintable(w.perf()->text()));
        QVERIFY(w.perf()->text().contains("perf::cycles -"));
        QVERIFY(w.warning()->text().contains("starved"));
        // Clicking a header sorts; "all stages" stays last either way.
        w.stage_view()->sortByColumn(StageTableModel::CyclesPerPathPacket, Qt::DescendingOrder);
        QCOMPARE(cell(0, StageTableModel::Stage), QString("ip6_lookup"));
        QCOMPARE(cell(3, StageTableModel::Stage), QString("all stages"));
        w.stage_view()->sortByColumn(StageTableModel::CyclesPerPathPacket, Qt::AscendingOrder);
        QCOMPARE(cell(0, StageTableModel::Stage), QString("eth_tx"));
        QCOMPARE(cell(3, StageTableModel::Stage), QString("all stages"));
    }

    void clickingAStageOpensItInTheFlameGraph() {
        MainWindow w;
        QVERIFY(open_sample(w));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QModelIndex lookup = w.stage_proxy()->index(1, 0);
        QCOMPARE(lookup.data().toString(), QString("ip6_lookup"));
        const QRect r = w.stage_view()->visualRect(lookup);
        QTest::mouseClick(w.stage_view()->viewport(), Qt::LeftButton, {}, r.center());
        QCOMPARE(w.pages()->currentWidget(), static_cast<QWidget*>(w.flame_page()));
        QCOMPARE(w.flame_page()->graph()->breadcrumb(), (QStringList{"all", "ip6_lookup"}));
    }

    void clickingAFrameZoomsAndTheBreadcrumbWalksBack() {
        FlamePage page;
        page.set_diff(sample_diff(), false, "cycles", "test");
        page.resize(800, 300);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        FlameGraphWidget* g = page.graph();
        const int walk = g->find_node("walk");
        QVERIFY(walk > 0);
        QCOMPARE(g->nodeAt(g->rect_of(walk).center()), walk);
        QTest::mouseClick(g, Qt::LeftButton, {}, g->rect_of(walk).center());
        QCOMPARE(g->zoom_root(), walk);
        QCOMPARE(g->breadcrumb(), (QStringList{"all", "main", "walk"}));
        QVERIFY(page.breadcrumb_text().contains("<b>walk</b>"));
        // lookup now spans 40/70 of the width.
        const double lookup_share = double(g->rect_of(g->find_node("lookup")).width() + 1) / g->width();
        QVERIFY(std::abs(lookup_share - 40.0 / 70) < 0.01);
        QVERIFY(g->back());
        QCOMPARE(g->zoom_root(), 0);
        QVERIFY(g->forward());
        QCOMPARE(g->zoom_root(), walk);
        // A live run's next update (a new tree with the same frames) keeps
        // the zoom; a tree without the frame shows the whole again.
        g->set_diff(sample_diff(), false, "cycles");
        QCOMPARE(g->breadcrumb(), (QStringList{"all", "main", "walk"}));
        analysis::FlameTree other(1, "cycles");
        other.add({"main", "idle"}, 5);
        g->set_diff(std::make_shared<analysis::FlameDiff>(analysis::diff_trees(other, other)), false,
                    "cycles");
        QCOMPARE(g->zoom_root(), 0);
    }

    void searchHighlightsExactlyTheMatchesAndTheirShare() {
        FlamePage page;
        page.set_diff(sample_diff(), false, "cycles", "test");
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        FlameGraphWidget* g = page.graph();
        page.search("o", false);  // lookup only ("main", "walk", "rx", "idle" hold no 'o')
        int matched = 0;
        for (size_t i = 0; i < g->matches().size(); ++i) matched += g->matches()[i];
        QCOMPARE(matched, 1);
        QVERIFY(g->matches()[static_cast<size_t>(g->find_node("lookup"))]);
        QVERIFY(std::abs(g->search_share() - 0.40) < 1e-9);
        QCOMPARE(page.share_text(), QString("40.0% matched"));
        page.search("LOOK", false);  // plain text ignores case, as the HTML report's search
        QVERIFY(std::abs(g->search_share() - 0.40) < 1e-9);
        page.search("^(rx|idle)$", true);
        QVERIFY(std::abs(g->search_share() - 0.60) < 1e-9);
        page.search("walk|lookup", true);  // lookup inside walk counts once
        QVERIFY(std::abs(g->search_share() - 0.70) < 1e-9);
        page.search("(", true);  // an unfinished regex matches nothing, no crash
        QCOMPARE(g->search_share(), 0.0);
    }

    void tracesQueuesAndDropsAreLinked() {
        MainWindow w;
        QVERIFY(open_sample(w));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TracesPage* traces = w.traces_page();
        QAbstractItemModelTester tm(traces->proxy()->sourceModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester tp(traces->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(traces->proxy()->rowCount(), 4);
        // Clicking the drop reason on the Stages page filters the traces to it.
        QTableWidget* drops = w.drops();
        QCOMPARE(drops->rowCount(), 1);
        QCOMPARE(drops->item(0, 0)->text(), QString("ip6_hop_limit"));
        QTest::mouseClick(drops->viewport(), Qt::LeftButton, {},
                          drops->visualItemRect(drops->item(0, 0)).center());
        QCOMPARE(w.pages()->currentWidget(), static_cast<QWidget*>(traces));
        QCOMPARE(traces->proxy()->rowCount(), 2);
        for (int r = 0; r < 2; ++r)
            QCOMPARE(traces->proxy()->index(r, TraceTableModel::Outcome).data().toString(),
                     QString("dropped: ip6_hop_limit"));
        // The selected packet's headers are decoded.
        QVERIFY(traces->headers()->toPlainText().contains("IPv6:"));
        QVERIFY(traces->headers()->toPlainText().contains("UDP: port"));
        // Queues: queue 1 under 5% of an even share while queue 0 carries the rest.
        const auto& skew = w.queues_page()->bars()->skew();
        QCOMPARE(skew.size(), size_t(1));
        QVERIFY(skew[0].skewed);
    }

    void comparisonShowsVerdictsAndADifferentialFlameGraph() {
        const std::string path = test::new_test_store(dir_, "pair.db");
        add_run(path, "before", 64000, 3);
        add_run(path, "after", 32000, 3);  // ip6_lookup half as costly
        MainWindow w;
        QCOMPARE(w.open_store(QString::fromStdString(path)), QString());
        QVERIFY(w.select_pair("before", "after"));
        w.wait_until_loaded();
        ComparePage* c = w.compare_page();
        QVERIFY(c->report());
        QCOMPARE(w.pages()->currentWidget(), static_cast<QWidget*>(c));
        QAbstractItemModelTester vm(c->verdicts(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        int lookup = -1;
        for (int r = 0; r < c->verdicts()->rowCount(); ++r)
            if (c->verdicts()->index(r, VerdictTableModel::Metric).data().toString() == "ip6_lookup")
                lookup = r;
        QVERIFY(lookup >= 0);
        QCOMPARE(c->verdicts()->index(lookup, VerdictTableModel::Verdict).data().toString(),
                 QString("better"));
        QCOMPARE(c->verdicts()->index(lookup, VerdictTableModel::Test).data().toString(),
                 QString("Student's t"));
        QVERIFY(c->verdicts()->index(lookup, 0).data(Qt::BackgroundRole).isValid());
        // Differential: ip6_lookup shrank beyond noise (blue), eth_tx within it.
        FlameGraphWidget* g = c->flame()->graph();
        const int node = g->find_node("ip6_lookup");
        QVERIFY(node > 0);
        QVERIFY(!g->diff()->nodes[static_cast<size_t>(node)].noise);
        QVERIFY(g->diff()->nodes[static_cast<size_t>(node)].delta < 0);
        QCOMPARE(c->histogram()->series().size(), size_t(2));
        // Export through the CLI's renderers, and the view as SVG.
        const QString md = QString::fromStdString((dir_ / "cmp.md").string());
        QCOMPARE(w.export_report(md), QString());
        std::ifstream in(md.toStdString());
        const std::string text((std::istreambuf_iterator<char>(in)), {});
        QVERIFY(text.find("after (run 2) against before (run 1)") != std::string::npos);
        const QString svg = QString::fromStdString((dir_ / "view.svg").string());
        w.resize(1000, 700);
        QCOMPARE(w.export_view(svg), QString());
        std::ifstream sv(svg.toStdString());
        const std::string svg_text((std::istreambuf_iterator<char>(sv)), {});
        QVERIFY(svg_text.find("<svg") != std::string::npos);
    }

    void experimentCellsAreFoundByTheirIdAndCompared() {
        const std::string path = test::new_test_store(dir_, "experiment.db");
        add_run(path, "plain", 64000, 3);
        add_run(path, "m [engine.route_cache=on]", 64000, 3, "e1f00d", "engine.route_cache=on");
        add_run(path, "m [engine.route_cache=off]", 32000, 3, "e1f00d", "engine.route_cache=off");
        MainWindow w;
        QCOMPARE(w.open_store(QString::fromStdString(path)), QString());
        QCOMPARE(w.run_proxy()->rowCount(), 3);
        w.run_filter()->setText("e1f00d");  // the experiment's id finds its cells only
        QCOMPARE(w.run_proxy()->rowCount(), 2);
        QCOMPARE(w.run_proxy()->index(0, RunListModel::Cell).data().toString(), QString("cache=on"));
        QVERIFY(w.select_pair("2", "3"));
        w.wait_until_loaded();
        QVERIFY(w.compare_page()->report());
        const QString header = w.header()->text();
        QVERIFY2(header.contains("experiment e1f00d, cell engine.route_cache=off"), qPrintable(header));
        QVERIFY2(header.contains("route_cache=on txq_hash=flow"), qPrintable(header));
    }

    void theRunBrowserTellsAMatrixsCellsApart() {
        // A 2 x 2 x 2 matrix whose eight runs share a label, beside two plain runs.
        const std::string path = test::new_test_store(dir_, "matrix.db");
        add_run(path, "before", 64000, 2);
        const char* bools[] = {"false", "true"};
        const char* cache[] = {"on", "off"};
        for (int i = 0; i < 8; ++i)
            add_run(path, "udp6-tx-bind-connect", 64000, 2, "a1b2c3d4e5f6",
                    std::string("socket.bind=") + bools[i / 4] + "\nsocket.connect=" +
                        bools[(i / 2) % 2] + "\nengine.route_cache=" + cache[i % 2]);
        add_run(path, "after", 64000, 2);
        MainWindow w;
        QCOMPARE(w.open_store(QString::fromStdString(path)), QString());
        QSortFilterProxyModel* p = w.run_proxy();
        QAbstractItemModelTester tester(p, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(p->rowCount(), 10);
        QSet<QString> cells;
        for (int row = 0; row < p->rowCount(); ++row)
            if (!p->index(row, RunListModel::Experiment).data().toString().isEmpty())
                cells.insert(p->index(row, RunListModel::Cell).data().toString());
        QCOMPARE(cells.size(), 8);
        QVERIFY(cells.contains("bind=true connect=false cache=on"));
        QCOMPARE(p->index(2, RunListModel::Cell).data(Qt::ToolTipRole).toString(),
                 QString("socket.bind=false socket.connect=false engine.route_cache=off"));
        // The experiment filter shows its cells only, and with the text filter too.
        QVERIFY(w.experiment_filter()->choose("a1b2c3d4e5f6"));
        QCOMPARE(p->rowCount(), 8);
        w.run_filter()->setText("cache=off");
        QCOMPARE(p->rowCount(), 4);
        w.run_filter()->clear();
        QVERIFY(w.experiment_filter()->choose(""));
        QCOMPARE(p->rowCount(), 10);
        // Labels elide in the middle; id, label, cell and experiment are in
        // view at the default window size.
        QCOMPARE(w.run_view()->textElideMode(), Qt::ElideMiddle);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QHeaderView* h = w.run_view()->horizontalHeader();
        const int right = h->sectionViewportPosition(RunListModel::Experiment) +
                          h->sectionSize(RunListModel::Experiment);
        QVERIFY2(right <= w.run_view()->viewport()->width(),
                 qPrintable(QString("experiment column ends at %1 of %2 px")
                                .arg(right).arg(w.run_view()->viewport()->width())));
        // A label names its latest run, as the CLI's find_run.
        QCOMPARE(w.runs()->run(w.runs()->row_of("udp6-tx-bind-connect"))->id, int64_t(9));
        QCOMPARE(w.runs()->run(w.runs()->row_of("udp6-tx-bind-connect@2"))->id, int64_t(3));
        QCOMPARE(w.runs()->row_of("udp6-tx-bind-connect@9"), -1);
        QCOMPARE(w.runs()->row_of("x@0"), -1);
    }

    void theExperimentGridColoursEachVerdict() {
        // One row, one metric, four values against the baseline: one verdict each.
        auto e = std::make_shared<analysis::ExperimentComparison>();
        e->experiment = "e1";
        e->by = "engine.route_cache";
        e->values = {"on", "off", "a", "b", "c"};
        e->metrics = {"tx rate"};
        e->units = {"Mpps"};
        analysis::ExperimentRow row;
        row.others = "socket.bind=true socket.connect=false";
        row.run_ids = {1, 2, 3, 4, 0};
        row.verdicts.resize(1);
        for (const char* o : {"better", "worse", "no difference", "no test"}) {
            analysis::Verdict v;
            v.possible = std::string(o) != "no test";
            v.outcome = o;
            v.percent = 5;
            row.verdicts[0].push_back(v);
        }
        e->rows.push_back(row);
        ExperimentGridModel grid;
        QAbstractItemModelTester tester(&grid, QAbstractItemModelTester::FailureReportingMode::QtTest);
        grid.set_comparison(e);
        QCOMPARE(grid.rowCount(), 1);
        QCOMPARE(grid.columnCount(), 4);
        const auto bg = [&](int c) { return grid.index(0, c).data(Qt::BackgroundRole).value<QColor>(); };
        QVERIFY(bg(0).green() > bg(0).red());                                      // better
        QVERIFY(bg(1).red() > bg(1).green());                                      // worse
        QVERIFY(bg(2).red() == bg(2).green() && bg(2).green() == bg(2).blue());    // within noise
        QVERIFY(!grid.index(0, 3).data(Qt::BackgroundRole).isValid());             // no test
        QVERIFY(grid.index(0, 1).data().toString().endsWith("worse"));
        QCOMPARE(grid.index(0, 3).data(ExperimentGridModel::CandRunRole).toLongLong(), 0);
        QVERIFY(grid.headerData(0, Qt::Horizontal).toString().contains("engine.route_cache=off vs on"));
        QVERIFY(grid.headerData(0, Qt::Horizontal).toString().contains("tx rate (Mpps)"));
    }

    void aTimeRangeShowsOnlyItsStageCycles() {
        MainWindow w;
        QVERIFY(open_sample(w));
        TimeSeriesPage* ts = w.time_series_page();
        QCOMPARE(ts->series().points.size(), size_t(8));
        QCOMPARE(ts->series().trial_starts.size(), size_t(2));
        QVERIFY(std::abs(ts->series().trial_starts[1] - 1.0) < 1e-9);
        // The whole run: (4 x 24,000 + 4 x 40,000) busy cycles over 6,400 packets.
        FlameGraphWidget* g = ts->flame()->graph();
        QVERIFY(std::abs(g->total() - 40.0) < 1e-9);
        // Trial 1 only: 40,000 over 800 packets an interval.
        ts->select_range(1.0, 2.0);
        ts->wait_for_range();
        QVERIFY(std::abs(g->total() - 50.0) < 1e-9);
        QVERIFY(ts->range_text().contains("4 intervals"));
        ts->select_range(0.0, 0.5);  // the first two intervals of trial 0
        ts->wait_for_range();
        QVERIFY(std::abs(g->total() - 30.0) < 1e-9);
        // Sampled stacks of a range: its samples only (2 + 3 in trial 0's
        // first two), shown as shares of them, as the Flame graph page shows
        // a run's: the same shares over the whole run.
        ts->show_stacks(true);
        ts->wait_for_range();
        QVERIFY(std::abs(g->total() - 1.0) < 1e-9);
        QVERIFY(ts->flame()->title().contains("5 samples"));
        ts->select_range(0.0, 2.0);  // all: 2 x (2 + 3 + 4 + 5)
        ts->wait_for_range();
        QVERIFY(std::abs(g->total() - 1.0) < 1e-9);
        QVERIFY(ts->flame()->title().contains("28 samples"));
        QCOMPARE(g->find_node("walk") > 0, true);
        const analysis::FlameDiff& range = *g->diff();
        const analysis::FlameDiff& run = *w.stacks_page()->graph()->diff();
        for (size_t i = 1; i < run.nodes.size(); ++i)
            for (size_t k = 1; k < range.nodes.size(); ++k)
                if (run.path(i) == range.path(k))
                    QVERIFY(std::abs(run.nodes[i].base - range.nodes[k].base) < 1e-12);
    }

    void badFilesAreRefusedClearly() {
        MainWindow w;
        const fs::path store = sample_store(dir_);
        // Foreign: an SQLite file of another application.
        const std::string foreign = (dir_ / "foreign.db").string();
        {
            db::Database raw(foreign, db::Database::Mode::read_write);
            raw.exec("PRAGMA application_id = 1234; CREATE TABLE t(x)");
        }
        QVERIFY(w.open_store(QString::fromStdString(foreign)).contains("not a pathscope store"));
        // Newer: a store written by a later schema.
        const std::string newer = (dir_ / "newer.db").string();
        fs::copy_file(store, newer, fs::copy_options::overwrite_existing);
        {
            db::Database raw(newer, db::Database::Mode::read_write);
            raw.exec("PRAGMA user_version = 99");
        }
        QVERIFY(w.open_store(QString::fromStdString(newer)).contains("newer pathscope"));
        // Truncated: a real store cut inside its first page.
        const std::string cut = (dir_ / "cut.db").string();
        {
            std::ifstream in(store, std::ios::binary);
            std::string bytes((std::istreambuf_iterator<char>(in)), {});
            std::ofstream(cut, std::ios::binary) << bytes.substr(0, 1000);
        }
        QVERIFY(!w.open_store(QString::fromStdString(cut)).isEmpty());
        // Random bytes.
        const std::string noise = (dir_ / "noise.db").string();
        {
            std::mt19937 rng(7);
            std::ofstream out(noise, std::ios::binary);
            for (int i = 0; i < 8192; ++i) out.put(static_cast<char>(rng()));
        }
        QVERIFY(!w.open_store(QString::fromStdString(noise)).isEmpty());
        QVERIFY(!w.open_store(QString::fromStdString((dir_ / "missing.db").string())).isEmpty());
        // The window still works afterwards.
        QCOMPARE(w.open_store(QString::fromStdString(store.string())), QString());
    }
};

QTEST_MAIN(GuiTest)
#include "gui_test.moc"
