// The Path page from a real capture: the store of `pathscope run` (default
// scenario) loaded as the desktop program loads it (run_loader), drawn by the
// real widget. The edges it draws balance at every stage (in = out + drops),
// every stage it draws sits right of what feeds it, and clicking a stage's
// box emits that stage and opens it in the flame graph. On a file store and,
// as "/postgres", on a server store.
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <filesystem>
#include <map>

#include "gui/main_window.h"
#include "gui/pages/flame_page.h"
#include "gui/pages/path_page.h"
#include "gui/run_loader.h"
#include "gui/widgets/flame_graph_widget.h"
#include "gui/widgets/path_graph_widget.h"
#include "tests/support/qt_store_backends.h"

using namespace pathscope;
using namespace pathscope::gui;
namespace fs = std::filesystem;

class PathPageTest : public QObject {
    Q_OBJECT
  private:
    fs::path dir_;
    std::string db_;

  private slots:
    void initTestCase() {
        dir_ = fs::temp_directory_path() / ("pathscope_path_page_" + std::to_string(getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        PATHSCOPE_QT_NEED_STORE();
        db_ = test::new_test_store(dir_, "path.db");
        QProcess p;
        p.start(QStringLiteral(PATHSCOPE_CLI),
                {"run", "--db", QString::fromStdString(db_), "--label", "path", "--trials", "2",
                 "--duration", "0.5", "--no-histograms"});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
    }
    void cleanupTestCase() { fs::remove_all(dir_); }

    void edgesBalanceAtEveryNode() {
        const LoadedRun run = load_run(db_, 1);
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        QVERIFY(run.path);
        QVERIFY(run.path_balanced);
        PathGraphWidget w;
        w.resize(1400, 700);
        w.set_graph(run.path);
        const analysis::PathGraph& g = *w.graph();
        // What the widget draws, summed by hand: into and out of each node.
        std::map<int, uint64_t> in, out;
        std::map<int, bool> entered;
        for (const auto& e : g.edges) {
            in[e.to] += e.packets;
            out[e.from] += e.packets;
            entered[e.to] = true;
            QVERIFY(w.edge_width(e) >= 1.0);
        }
        int stages = 0;
        for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) {
            const analysis::PathNode& n = g.nodes[static_cast<size_t>(i)];
            if (n.kind != analysis::PathNode::Kind::stage) continue;
            ++stages;
            const uint64_t came = entered[i] ? in[i] : n.packets;  // a source made its own
            QVERIFY2(came == n.packets, qPrintable(QStringLiteral("%1: in %2, packets %3")
                                                       .arg(QString::fromStdString(n.name)).arg(came).arg(n.packets)));
            QVERIFY2(out[i] == n.packets, qPrintable(QStringLiteral("%1: out %2, packets %3")
                                                         .arg(QString::fromStdString(n.name)).arg(out[i]).arg(n.packets)));
            QVERIFY(n.packets > 0);
            QVERIFY(!w.node_rect(i).isEmpty());
        }
        QVERIFY(stages >= 10);
        // Left to right: every edge but the neighbour table's loop goes right.
        for (const auto& e : g.edges)
            if (g.nodes[static_cast<size_t>(e.from)].name != db::kNeighbourTable)
                QVERIFY(w.node_rect(e.to).left() > w.node_rect(e.from).right());
        // Wider for more packets.
        const auto& first = g.edges.front();
        for (const auto& e : g.edges)
            if (e.packets < first.packets) QVERIFY(w.edge_width(e) < w.edge_width(first));
        // No two boxes overlap.
        for (int a = 0; a < static_cast<int>(g.nodes.size()); ++a)
            for (int b = a + 1; b < static_cast<int>(g.nodes.size()); ++b)
                QVERIFY(!w.node_rect(a).intersects(w.node_rect(b)));
    }

    void clickingAStageEmitsItAndOpensIt() {
        MainWindow win;
        win.resize(1500, 900);
        win.show();
        QVERIFY(QTest::qWaitForWindowExposed(&win));
        QCOMPARE(win.open_store(QString::fromStdString(db_)), QString());
        QVERIFY(win.select_run(QStringLiteral("1")));
        win.wait_until_loaded();
        QVERIFY(win.show_page(QStringLiteral("path")));
        PathGraphWidget* w = win.path_page()->graph();
        QCOMPARE(win.pages()->currentWidget(), static_cast<QWidget*>(win.path_page()));
        QVERIFY(w->graph());
        const int lookup = w->graph()->find("ip6_lookup");
        QVERIFY(lookup >= 0);
        QSignalSpy spy(w, &PathGraphWidget::stage_clicked);
        QTest::mouseClick(w, Qt::LeftButton, {}, w->node_rect(lookup).center().toPoint());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("ip6_lookup"));
        // ... and the stage opens in the flame graph, as a click in the stage table does.
        QCOMPARE(win.pages()->currentWidget(), static_cast<QWidget*>(win.flame_page()));
        // A sink is not a stage: clicking it emits nothing.
        const int wire = w->graph()->find(db::kWireSink);
        QVERIFY(wire >= 0);
        win.show_page(QStringLiteral("path"));
        QTest::mouseClick(w, Qt::LeftButton, {}, w->node_rect(wire).center().toPoint());
        QCOMPARE(spy.count(), 1);
    }
};

QTEST_MAIN(PathPageTest)
#include "path_page_test.moc"
