// The GUI's store reader: a load asked for is skipped once a newer one is
// wanted, a load under way stops inside its queries when Cancel (or a newer
// ask) comes, and the reader is free again at once; a real SQLite file with
// half a million sample rows, so that a whole load takes long enough to be
// stopped half way.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <filesystem>

#include "db/queries.h"
#include "db/schema.h"
#include "gui/run_loader.h"
#include "tests/support/profile_store.h"

using namespace pathscope;
namespace fs = std::filesystem;


class StoreReaderTest : public QObject {
    Q_OBJECT
    fs::path dir_;
    std::string path_;
    int64_t id_ = 0;

  private slots:
    void initTestCase() {
        qRegisterMetaType<gui::LoadedRun>();
        dir_ = fs::temp_directory_path() / ("pathscope_reader_" + std::to_string(getpid()));
        fs::create_directories(dir_);
        path_ = (dir_ / "big.db").string();
        id_ = test::write_profile_store(path_, "big", 50'000, 10);  // 500,000 sample rows
    }
    void cleanupTestCase() { fs::remove_all(dir_); }

    void aStaleAskIsSkipped() {
        gui::StoreReader reader;
        QVERIFY(reader.open(QString::fromStdString(path_)).error.isEmpty());
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

    void cancelStopsALoadHalfWay() {
        QThread thread;
        auto* reader = new gui::StoreReader;
        reader->moveToThread(&thread);
        connect(&thread, &QThread::finished, reader, &QObject::deleteLater);
        thread.start();
        gui::StoreListing listing;
        QMetaObject::invokeMethod(
            reader, [&] { listing = reader->open(QString::fromStdString(path_)); },
            Qt::BlockingQueuedConnection);
        QVERIFY(listing.error.isEmpty());
        QSignalSpy loaded(reader, &gui::StoreReader::loaded);
        QSignalSpy cancelled(reader, &gui::StoreReader::cancelled);
        // A whole load, for the time it takes.
        QElapsedTimer whole;
        whole.start();
        reader->want(1);
        QMetaObject::invokeMethod(reader, [reader, id = id_] { reader->load(1, 0, id); });
        QVERIFY(loaded.wait(60'000));
        const qint64 whole_ms = whole.elapsed();
        // The same load, cancelled a tenth of the way in.
        reader->want(2);
        QMetaObject::invokeMethod(reader, [reader, id = id_] { reader->load(2, 0, id); });
        QTest::qWait(static_cast<int>(whole_ms / 10));
        QElapsedTimer stop;
        stop.start();
        reader->want(3);  // what Cancel does
        QVERIFY(cancelled.wait(60'000));
        const qint64 stop_ms = stop.elapsed();
        QCOMPARE(cancelled.at(0).at(0).toUInt(), 2u);
        QCOMPARE(loaded.count(), 1);  // only the first
        qInfo("a whole load took %lld ms; cancelled a tenth of the way in, it stopped %lld ms later",
              whole_ms, stop_ms);
        // Stopped inside the load, whatever the machine's speed: it was
        // cancelled, and its result never came (loaded counted only the first).
        thread.quit();
        thread.wait();
    }
};

QTEST_MAIN(StoreReaderTest)
#include "store_reader_test.moc"
