// The live view on a real capture: `pathscope run` writes a store in another
// process while the GUI's window polls it (PRAGMA data_version); new
// intervals must show within a second of their commit.
#include <QElapsedTimer>
#include <QProcess>
#include <QTest>
#include <filesystem>

#include "gui/main_window.h"
#include "gui/run_loader.h"

using namespace pathscope::gui;
namespace fs = std::filesystem;

class LiveViewTest : public QObject {
    Q_OBJECT
  private slots:
    void newIntervalsShowWithinASecond() {
        const fs::path dir = fs::temp_directory_path() / ("pathscope_live_" + std::to_string(getpid()));
        fs::create_directories(dir);
        const QString db = QString::fromStdString((dir / "live.db").string());
        QProcess capture;
        capture.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        capture.start(QStringLiteral(PATHSCOPE_CLI),
                      {"run", "--db", db, "--label", "live", "--duration", "6", "--no-histograms",
                       "--set", "capture.sample_hz=0"});
        QVERIFY(capture.waitForStarted());
        // Wait for the run to be in the store (the EAL takes a moment).
        QElapsedTimer waited;
        waited.start();
        while (list_store(db.toStdString()).runs.empty() && waited.elapsed() < 20000) QTest::qWait(50);
        MainWindow w;
        QCOMPARE(w.open_store(db), QString());
        QVERIFY(w.select_run("live"));
        w.wait_until_loaded();
        QVERIFY(w.run_data());
        // The engine starts (EAL, 40,000 routes) before its first interval.
        while (w.run_data()->rows.intervals.empty() && waited.elapsed() < 30000) {
            if (w.poll_store()) w.wait_until_loaded();
            QTest::qWait(20);
        }
        const size_t before = w.run_data()->rows.intervals.size();
        QVERIFY(before > 0);
        QElapsedTimer t;
        t.start();
        qint64 seen = -1;
        while (t.elapsed() < 3000) {
            if (w.poll_store()) {
                w.wait_until_loaded();
                if (w.run_data()->rows.intervals.size() > before) {
                    seen = t.elapsed();
                    break;
                }
            }
            QTest::qWait(20);
        }
        qInfo("new intervals shown %lld ms after the last were (%zu before)", seen, before);
        QVERIFY2(seen >= 0 && seen < 1000, "no new interval within a second");
        QCOMPARE(QString::fromStdString(w.run_data()->info.status), QString("running"));
        capture.terminate();  // SIGTERM ends it; the store keeps what it committed
        if (!capture.waitForFinished(10000)) capture.kill();
        capture.waitForFinished();
        fs::remove_all(dir);
    }
};

QTEST_MAIN(LiveViewTest)
#include "live_view_test.moc"
