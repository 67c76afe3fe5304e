// The GUI's store reader: a load asked for is skipped once a newer one is
// wanted, a load under way stops inside its queries when Cancel (or a newer
// ask) comes, and the reader is free again at once; the same bodies on a
// real SQLite file and on a real PostgreSQL server store, each with half a
// million sample rows, so that a whole load takes long enough to be stopped
// half way (a server's query is cancelled on the server). On a server the
// cancel is also tested without timing: the load waits on another
// connection's table lock when Cancel comes.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <filesystem>

#include "db/queries.h"
#include "db/schema.h"
#include "gui/run_loader.h"
#include "tests/support/pg_cluster.h"
#include "tests/support/qt_store_backends.h"
#include "tests/support/profile_store.h"

using namespace pathscope;
namespace fs = std::filesystem;


// Connections opened while it lives wait `ms` for another's lock.
struct LongerLockWait {
    int was = db::busy_timeout_ms.load();
    explicit LongerLockWait(int ms) { db::busy_timeout_ms = ms; }
    ~LongerLockWait() { db::busy_timeout_ms = was; }
};

// A store reader on a thread of its own, as the desktop program runs it,
// with a store open (or the error that refused it).
struct ReaderThread {
    QThread thread;
    gui::StoreReader* reader = new gui::StoreReader;
    QString error;
    explicit ReaderThread(const std::string& store) {
        reader->moveToThread(&thread);
        QObject::connect(&thread, &QThread::finished, reader, &QObject::deleteLater);
        thread.start();
        QMetaObject::invokeMethod(
            reader, [&] { error = reader->open(QString::fromStdString(store)).error; },
            Qt::BlockingQueuedConnection);
    }
    ~ReaderThread() {
        thread.quit();
        thread.wait();
    }
};

class StoreReaderTest : public QObject {
    Q_OBJECT
    fs::path dir_;
    std::string path_, server_;
    int64_t id_ = 0, server_id_ = 0;

    // The server store, or a skip (a failure under CI=true) without one.
    bool have_server() {
        auto& pg = test::PgCluster::shared();
        if (server_.empty() && pg.why_not().empty()) {
            server_ = pg.new_database("reader");
            // Fewer stacks than the file's (interning costs a round trip a
            // stack on a server), sampled in more intervals: the same
            // 500,000 sample rows, as long to load.
            server_id_ = test::write_profile_store(server_, "big", 20'000, 25);
        }
        return !server_.empty();
    }

  private slots:
    void initTestCase() {
        qRegisterMetaType<gui::LoadedRun>();
        dir_ = fs::temp_directory_path() / ("pathscope_reader_" + std::to_string(getpid()));
        fs::create_directories(dir_);
        path_ = (dir_ / "big.db").string();
        id_ = test::write_profile_store(path_, "big", 50'000, 10);  // 500,000 sample rows
    }
    void cleanupTestCase() { fs::remove_all(dir_); }

    void aStaleAskIsSkipped() { stale_ask(path_, id_); }
    void cancelStopsALoadHalfWay() { cancel(path_, id_); }
    void aStaleAskIsSkippedOnAServerStore() {
        if (!have_server()) skip_without_server();
        stale_ask(server_, server_id_);
    }

    // A server load held up by another connection's lock on the sample rows,
    // then cancelled: inside its query whatever the machine's speed (the
    // server's twin of cancelStopsALoadHalfWay, which times a file's load).
    void cancelStopsALoadWaitingOnTheServer() {
        auto& pg = test::PgCluster::shared();
        if (!pg.why_not().empty()) skip_without_server();
        const std::string url = pg.new_database("cancel");
        const int64_t id = test::write_profile_store(url, "small", 100, 2);
        // The reader waits on a lock far longer than this test waits for the
        // cancel (5 s by default, which would end the load by itself).
        const LongerLockWait longer(60'000);
        db::Database holder(url, db::Database::Mode::read_write);
        holder.exec("BEGIN");
        holder.exec("LOCK TABLE stack_samples IN ACCESS EXCLUSIVE MODE");

        ReaderThread on(url);
        QVERIFY2(on.error.isEmpty(), qPrintable(on.error));
        gui::StoreReader* reader = on.reader;
        QSignalSpy loaded(reader, &gui::StoreReader::loaded);
        QSignalSpy cancelled(reader, &gui::StoreReader::cancelled);
        reader->want(1);
        QMetaObject::invokeMethod(reader, [reader, id] { reader->load(1, 0, id); });
        // The server says when the load waits on the lock (a third
        // connection: a transaction sees one snapshot of pg_stat_activity).
        db::Database watcher(url, db::Database::Mode::read_only);
        const auto waiting = [&] {
            return watcher.scalar("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                                  "'Lock' AND datname = current_database()");
        };
        QTRY_VERIFY_WITH_TIMEOUT(waiting() == 1, 10'000);
        reader->want(2);  // what Cancel does
        // (PQcancel returns once the server has it: the signal may come first.)
        // Well before the reader's lock_timeout (60 s here): a load that was
        // not interrupted would still be waiting.
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 10'000);
        QCOMPARE(cancelled.at(0).at(0).toUInt(), 1u);
        QCOMPARE(loaded.count(), 0);
        QCOMPARE(waiting(), 0);  // the server stopped the query, not only the reader
        holder.exec("ROLLBACK");
        // The reader is free again: the next load reads the whole run.
        QMetaObject::invokeMethod(reader, [reader, id] { reader->load(2, 0, id); });
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60'000);
        const auto run = loaded.at(0).at(0).value<gui::LoadedRun>();
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        QCOMPARE(run.data->rows.stacks.size(), size_t(200));
    }

    // A load asked of a reader with no store answers, with the reason.
    void aLoadWithoutAStoreSaysSo() {
        gui::StoreReader reader;
        QSignalSpy loaded(&reader, &gui::StoreReader::loaded);
        reader.want(1);
        reader.load(1, 0, 1);
        QCOMPARE(loaded.count(), 1);
        const auto run = loaded.at(0).at(0).value<gui::LoadedRun>();
        QCOMPARE(run.generation, 1u);
        QVERIFY2(run.error.contains("no store is open"), qPrintable(run.error));
    }

    // Polls that cannot read the store say why (once, while they fail), and
    // say when they read again; a busy store or an interrupt stays quiet.
    void aFailingPollSaysWhy() {
        const std::string path = (dir_ / "polled.db").string();
        test::write_profile_store(path, "small", 10, 1);
        gui::StoreReader reader;
        QVERIFY(reader.open(QString::fromStdString(path)).error.isEmpty());
        QSignalSpy failed(&reader, &gui::StoreReader::poll_failed);
        QVERIFY(!reader.poll());  // nothing changed
        QCOMPARE(failed.count(), 0);
        // Another process damages the store: the runs table is gone.
        db::Database other(path, db::Database::Mode::read_write);
        other.exec("ALTER TABLE runs RENAME TO runs_gone");
        QVERIFY(!reader.poll());
        QVERIFY(!reader.poll());
        QCOMPARE(failed.count(), 1);  // said once
        const QString said = failed.at(0).at(0).toString();
        QVERIFY2(said.contains("runs"), qPrintable(said));
        other.exec("ALTER TABLE runs_gone RENAME TO runs");
        QVERIFY(reader.poll());
        QCOMPARE(failed.count(), 2);
        QCOMPARE(failed.at(1).at(0).toString(), QString());  // reading again
    }

  private:
    void skip_without_server() {
        PATHSCOPE_QT_SKIP(QByteArray::fromStdString("no PostgreSQL test cluster: " +
                                                    test::PgCluster::shared().why_not()));
    }

    void stale_ask(const std::string& path, int64_t id_) {
        gui::StoreReader reader;
        QVERIFY(reader.open(QString::fromStdString(path)).error.isEmpty());
        QSignalSpy loaded(&reader, &gui::StoreReader::loaded);
        reader.want(2);
        reader.load(1, 0, id_);  // asked for before 2 was: nothing is read
        QCOMPARE(loaded.count(), 0);
        reader.load(2, 0, id_);
        QCOMPARE(loaded.count(), 1);
        const auto run = loaded.at(0).at(0).value<gui::LoadedRun>();
        QCOMPARE(run.generation, 2u);
        QVERIFY(run.error.isEmpty());
        QCOMPARE(run.data->rows.stacks.size(), size_t(500'000));
    }

    void cancel(const std::string& path, int64_t id_) {
        ReaderThread on(path);
        QVERIFY2(on.error.isEmpty(), qPrintable(on.error));
        gui::StoreReader* reader = on.reader;
        QSignalSpy loaded(reader, &gui::StoreReader::loaded);
        QSignalSpy cancelled(reader, &gui::StoreReader::cancelled);
        // A whole load, for the time it takes: the second of two, as the
        // cancelled one will be (a server's first load also plans its
        // statements and reads its disk, and takes several times as long).
        qint64 whole_ms = 0;
        for (unsigned g = 1; g <= 2; ++g) {
            QElapsedTimer whole;
            whole.start();
            reader->want(g);
            QMetaObject::invokeMethod(reader, [reader, id = id_, g] { reader->load(g, 0, id); });
            // (counted, not waited for: the other thread may emit before a wait starts)
            QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), static_cast<int>(g), 60'000);
            whole_ms = whole.elapsed();
        }
        // The same load, cancelled a tenth of the way in.
        reader->want(3);
        QMetaObject::invokeMethod(reader, [reader, id = id_] { reader->load(3, 0, id); });
        QTest::qWait(static_cast<int>(whole_ms / 10));
        QElapsedTimer stop;
        stop.start();
        reader->want(4);  // what Cancel does
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 60'000);
        const qint64 stop_ms = stop.elapsed();
        QCOMPARE(cancelled.at(0).at(0).toUInt(), 3u);
        QCOMPARE(loaded.count(), 2);  // only the first two
        qInfo("a whole load took %lld ms; cancelled a tenth of the way in, it had stopped within %lld ms (looked at every 50 ms)",
              whole_ms, stop_ms);
        // Stopped inside the load's query, not at its end: the rest of the
        // load would have taken nine tenths of a whole one, most of it in
        // the query that reads the samples (a load that only looked
        // between its steps stopped after about half a whole load).
        QVERIFY2(stop_ms < whole_ms / 4,
                 qPrintable(QString("stopped %1 ms after Cancel, a whole load takes %2 ms")
                                .arg(stop_ms)
                                .arg(whole_ms)));
    }
};

QTEST_MAIN(StoreReaderTest)
#include "store_reader_test.moc"
