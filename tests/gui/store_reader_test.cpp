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
#include <random>
#include <set>

#include "db/queries.h"
#include "db/schema.h"
#include "db/writer.h"
#include "gui/run_loader.h"

using namespace pathscope;
namespace fs = std::filesystem;

namespace {

// One run of 50,000 distinct stacks sampled in 10 intervals: 500,000 rows.
int64_t write_profile(const std::string& path) {
    auto db = db::open_store(path, db::Database::Mode::read_write);
    db->exec("PRAGMA synchronous = OFF");
    db::BatchWriter w(*db);
    db::RunInfo info;
    info.label = "big";
    info.status = "complete";
    info.trials = 1;
    w.insert_run(info);
    db::Batch b;
    db::TrialRow tr;
    tr.received = 1000;
    tr.seconds = 1;
    b.trials.push_back(tr);
    std::mt19937_64 rng(3);
    std::set<std::vector<std::string>> seen;
    while (seen.size() < 50'000) {
        std::vector<std::string> frames;
        for (int d = 0; d < 12; ++d) frames.push_back("f" + std::to_string(d) + "_" + std::to_string(rng() % 30));
        if (!seen.insert(frames).second) continue;
        db::StackRow row;
        row.event = db::kCpuTimeEvent;
        row.seq = 0;
        row.weight = 1;
        for (auto& f : frames) row.frames.push_back({f, "m"});
        b.stacks.push_back(std::move(row));
    }
    w.write(info.id, b);
    for (int seq = 1; seq < 10; ++seq)
        db->exec("INSERT INTO stack_samples (run_id, trial, seq, event, stack, weight) SELECT "
                 "run_id, trial, " + std::to_string(seq) + ", event, stack, weight FROM "
                 "stack_samples WHERE seq = 0");
    return info.id;
}

}  // namespace

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
        id_ = write_profile(path_);
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
        QVERIFY2(stop_ms < whole_ms / 2, "the load ran on after Cancel");
        thread.quit();
        thread.wait();
    }
};

QTEST_MAIN(StoreReaderTest)
#include "store_reader_test.moc"
