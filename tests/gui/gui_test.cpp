// pathscope-gui under the offscreen platform: every model and proxy through
// QAbstractItemModelTester, and the real widgets driven as a user would:
// clicking a named frame zooms into it and the breadcrumb walks back; a
// search highlights exactly the matching frames and reports their share;
// sorting reorders the stage table; clicking a stage opens it in the flame
// graph; foreign, newer, truncated and random files are refused clearly.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <random>

#include "analysis/flame_tree.h"
#include "db/schema.h"
#include "db/writer.h"
#include "gui/main_window.h"
#include "gui/models/run_list_model.h"
#include "gui/models/stage_table_model.h"
#include "gui/pages/flame_page.h"
#include "gui/widgets/flame_graph_widget.h"

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

// A real store with one run: three stages, two trials, idle polling on eth_rx.
std::string sample_store(const fs::path& dir) {
    const std::string path = (dir / "gui.db").string();
    db::RunInfo info;
    info.label = "gui-run";
    info.host = db::host_name();
    info.trials = 2;
    db::RunWriter w(path, info);
    db::Batch b;
    for (int t = 0; t < 2; ++t) {
        db::TrialRow tr;
        tr.trial = t;
        tr.seconds = 1;
        tr.received = tr.forwarded = tr.window_received = 3200;
        tr.rx_pps = 3200;
        tr.walks = 1000;
        tr.idle_walks = 900;
        b.trials.push_back(tr);
        b.stages.push_back({t, -1, "eth_rx", 0, 1000, 3200, 122000, 900, 90000});
        b.stages.push_back({t, -1, "ip6_lookup", 1, 100, 3200, 64000, 0, 0});
        b.stages.push_back({t, -1, "eth_tx", 2, 100, 3200, 10000, 0, 0});
    }
    w.submit(b);
    w.finish("complete");
    return path;
}

}  // namespace

class GuiTest : public QObject {
    Q_OBJECT
    fs::path dir_;

  private slots:
    void initTestCase() {
        dir_ = fs::temp_directory_path() / ("pathscope_gui_" + std::to_string(getpid()));
        fs::create_directories(dir_);
    }
    void cleanupTestCase() { fs::remove_all(dir_); }

    void modelsPassTheModelTester() {
        MainWindow w;
        QCOMPARE(w.open_store(QString::fromStdString(sample_store(dir_))), QString());
        QAbstractItemModelTester runs(w.runs(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxy(w.run_proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(w.runs()->rowCount(), 1);
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

    void stageTableShowsBusyWorkAndSorts() {
        MainWindow w;
        w.open_store(QString::fromStdString(sample_store(dir_)));
        QVERIFY(w.select_run("gui-run"));
        w.wait_until_loaded();
        StageSortProxy* p = w.stage_proxy();
        auto cell = [&](int row, int col) { return p->index(row, col).data().toString(); };
        // Graph order first.
        QCOMPARE(cell(0, StageTableModel::Stage), QString("eth_rx"));
        // eth_rx: 2 x 32,000 busy cycles over 6,400 packets, idle kept apart.
        QCOMPARE(cell(0, StageTableModel::CyclesPerPacket), QString("10.0"));
        QCOMPARE(cell(0, StageTableModel::BusyCalls), QString("200"));
        QCOMPARE(cell(3, StageTableModel::Stage), QString("all stages"));
        QCOMPARE(cell(3, StageTableModel::CyclesPerRxPacket), QString("33.1"));  // 10 + 20 + 3.1
        QVERIFY(w.warning()->isVisibleTo(&w));
        QVERIFY(w.warning()->text().contains("starved"));
        // Clicking a header sorts; "all stages" stays last either way.
        w.stage_view()->sortByColumn(StageTableModel::CyclesPerRxPacket, Qt::DescendingOrder);
        QCOMPARE(cell(0, StageTableModel::Stage), QString("ip6_lookup"));
        QCOMPARE(cell(3, StageTableModel::Stage), QString("all stages"));
        w.stage_view()->sortByColumn(StageTableModel::CyclesPerRxPacket, Qt::AscendingOrder);
        QCOMPARE(cell(0, StageTableModel::Stage), QString("eth_tx"));
        QCOMPARE(cell(3, StageTableModel::Stage), QString("all stages"));
    }

    void clickingAStageOpensItInTheFlameGraph() {
        MainWindow w;
        w.open_store(QString::fromStdString(sample_store(dir_)));
        QVERIFY(w.select_run("gui-run"));
        w.wait_until_loaded();
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
        page.search("^(rx|idle)$", true);
        QVERIFY(std::abs(g->search_share() - 0.60) < 1e-9);
        page.search("walk|lookup", true);  // lookup inside walk counts once
        QVERIFY(std::abs(g->search_share() - 0.70) < 1e-9);
        page.search("(", true);  // an unfinished regex matches nothing, no crash
        QCOMPARE(g->search_share(), 0.0);
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
