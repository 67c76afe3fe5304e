// The live view on a real capture: `pathscope run` writes a store in another
// process while the GUI's window follows it: a file store is polled (PRAGMA
// data_version, on the store reader's thread), a server store announces its
// commits (LISTEN/NOTIFY) and the window follows with no poll at all. New
// intervals are appended to what is shown (no model reset), and the running
// trial's intervals so far fill the stage table before the trial ends.
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTableView>
#include <QItemSelectionModel>
#include <QTest>
#include <filesystem>

#include "gui/main_window.h"
#include "gui/models/run_list_model.h"
#include "gui/models/stage_table_model.h"
#include "gui/run_loader.h"
#include "tests/support/pg_cluster.h"
#include "tests/support/qt_store_backends.h"

using namespace pathscope::gui;
namespace fs = std::filesystem;

class LiveViewTest : public QObject {
    Q_OBJECT
  private slots:
    void newIntervalsAppendInPlace() {
        const fs::path dir = fs::temp_directory_path() / ("pathscope_live_" + std::to_string(getpid()));
        fs::create_directories(dir);
        follow(QString::fromStdString((dir / "live.db").string()), false);
        fs::remove_all(dir);
    }
    void aServerStoreIsFollowedByItsAnnouncements() {
        auto& pg = pathscope::test::PgCluster::shared();
        if (!pg.why_not().empty())
            PATHSCOPE_QT_SKIP(QByteArray::fromStdString("no PostgreSQL test cluster: " + pg.why_not()));
        follow(QString::fromStdString(pg.new_database("live")), true);
    }

  private:
    // `announced`: the store tells the window of each commit (a server's
    // LISTEN/NOTIFY), so the test never polls; else it polls as the
    // window's timer would.
    void follow(const QString& db, bool announced) {
        auto poll = [&](MainWindow& w) {
            if (announced) return false;
            return w.poll_store();
        };
        QProcess capture;
        capture.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        capture.start(QStringLiteral(PATHSCOPE_CLI),
                      {"run", "--db", db, "--label", "live", "--duration", "120", "--no-histograms",
                       "--set", "capture.sample_hz=0"});
        QVERIFY(capture.waitForStarted());
        // Wait for the run to be in the store (the EAL takes a moment).
        QElapsedTimer waited;
        waited.start();
        // Every wait below is for the event itself, with a generous limit: a
        // loaded machine may be slow, and that is not what this test checks.
        while (list_store(db.toStdString()).runs.empty() && waited.elapsed() < 60000) QTest::qWait(50);
        MainWindow w;
        QCOMPARE(w.open_store(db), QString());
        QVERIFY(w.select_run("live"));
        w.wait_until_loaded();
        QVERIFY(w.run_data());
        // The engine starts (EAL, 40,000 routes) before its first interval.
        while (w.run_data()->rows.intervals.empty() && waited.elapsed() < 90000) {
            if (poll(w)) w.wait_until_loaded();
            QTest::qWait(20);
        }
        const size_t before = w.run_data()->rows.intervals.size();
        QVERIFY(before > 0);
        // The trial is still running (no totals stored), yet its stages show.
        QCOMPARE(list_store(db.toStdString()).trials_recorded.at(0), 0);
        QVERIFY2(w.stages()->rowCount() > 3, "the running trial's stages are not shown");
        QSignalSpy run_resets(w.runs(), &QAbstractItemModel::modelReset);
        QSignalSpy stage_resets(w.stages(), &QAbstractItemModel::modelReset);
        QSignalSpy stage_changes(w.stages(), &QAbstractItemModel::dataChanged);
        QSignalSpy run_changes(w.runs(), &QAbstractItemModel::dataChanged);
        const int updates = w.updates();
        QElapsedTimer t;
        t.start();
        qint64 seen = -1;
        while (t.elapsed() < 60000) {
            if (poll(w)) w.wait_until_loaded();
            if (w.run_data()->rows.intervals.size() > before) {
                seen = t.elapsed();
                break;
            }
            QTest::qWait(20);
        }
        // How soon is a figure for the log, not a verdict (the engine writes an
        // interval every capture.interval, 0.1 s by default).
        qInfo("new intervals shown %lld ms after the last were (%zu before)", seen, before);
        QVERIFY2(seen >= 0, "no new interval within a minute of polling");
        // Appended in place: the views keep their selection, sort and scroll.
        QVERIFY(w.updates() > updates);
        QCOMPARE(run_resets.count(), 0);
        QCOMPARE(stage_resets.count(), 0);
        QVERIFY(stage_changes.count() > 0);
        QVERIFY(w.run_view()->selectionModel()->hasSelection());
        QCOMPARE(QString::fromStdString(w.run_data()->info.status), QString("running"));
        capture.terminate();  // SIGTERM ends it; the store keeps what it committed
        if (!capture.waitForFinished(10000)) capture.kill();
        capture.waitForFinished();
    }
};

QTEST_MAIN(LiveViewTest)
#include "live_view_test.moc"
