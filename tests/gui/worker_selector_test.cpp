// The worker selector (engine.workers >= 2) under the offscreen platform, on
// real stores (a file, and a server store in the "/postgres" runs): shown on
// the Stages, Flame graph and Histograms pages for a run of two workers,
// hidden for a run of one; choosing worker 1 puts worker 1's figures in the
// stage table (made off the GUI thread), and the check box adds a row per
// worker under each stage.
#include <QCheckBox>
#include <QComboBox>
#include <QTest>
#include <filesystem>

#include "db/schema.h"
#include "db/writer.h"
#include "gui/main_window.h"
#include "gui/models/stage_table_model.h"
#include "gui/widgets/worker_selector.h"
#include "tests/support/qt_store_backends.h"

using namespace pathscope;
using namespace pathscope::gui;
namespace fs = std::filesystem;

namespace {

/// `packets` through eth_rx (40 cycles each) and ip6_input (`cost` each) on
/// worker `worker`, as one trial's totals.
void add_stages(std::vector<db::StageRow>& rows, int worker, uint64_t packets, uint64_t cost) {
    rows.push_back({0, -1, "eth_rx", 0, packets / 4, packets, packets * 40, 0, 0, worker});
    rows.push_back({0, -1, "ip6_input", 1, packets / 4, packets, packets * cost, 0, 0, worker});
}

/// A run of `workers` workers (1 or 2): worker 0 receives 2000 packets at
/// 100 cycles each in ip6_input, worker 1 3000 at 110.
int64_t add_run(const std::string& path, int workers) {
    db::RunInfo info;
    info.label = "workers" + std::to_string(workers);
    info.host = db::host_name();
    info.pid = getpid();
    info.trials = 1;
    db::Batch b;
    const uint64_t received = workers == 2 ? 5000 : 2000;
    b.trials.push_back({0, 1.0, received, 0, received, 0, 0, 0, double(received), double(received), 0});
    add_stages(b.stages, 0, 2000, 100);
    if (workers == 2) {
        b.worker_stages = b.stages;
        add_stages(b.worker_stages, 1, 3000, 110);
        b.stages = {{0, -1, "eth_rx", 0, 1250, 5000, 200000, 0, 0, db::kAllWorkers},
                    {0, -1, "ip6_input", 1, 1250, 5000, 530000, 0, 0, db::kAllWorkers}};
        for (int w = 0; w < 2; ++w) {
            const uint64_t n = w ? 3000 : 2000;
            db::WorkerTrialRow row;
            row.worker = w;
            row.lcore = 2 + w;
            row.received = row.forwarded = row.window_received = row.window_forwarded = n;
            b.worker_trials.push_back(row);
        }
    }
    db::RunWriter w(path, info);
    w.submit(b);
    w.finish("complete");
    return w.run().id;
}

/// The stage table's cycles/pkt of `stage` (its first row).
QString cycles_per_packet(StageTableModel* m, const QString& stage) {
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->stage(r) == stage)
            return m->data(m->index(r, StageTableModel::CyclesPerPacket)).toString();
    return {};
}

}  // namespace

class WorkerSelectorTest : public QObject {
    Q_OBJECT
    fs::path dir_;

    std::string fresh(const std::string& name) { return test::new_test_store(dir_, name); }
    bool open(MainWindow& w, const std::string& path, const QString& run) {
        if (!w.open_store(QString::fromStdString(path)).isEmpty()) return false;
        if (!w.select_run(run)) return false;
        w.wait_until_loaded();
        return true;
    }

  private slots:
    void initTestCase() {
        dir_ = fs::temp_directory_path() / ("pathscope_worker_selector_" + std::to_string(getpid()));
        fs::create_directories(dir_);
    }
    void cleanupTestCase() { fs::remove_all(dir_); }
    void init() { PATHSCOPE_QT_NEED_STORE(); }

    void aRunOfTwoWorkersShowsEitherWorkerOnTheStagesPage() {
        const std::string path = fresh("two.db");
        add_run(path, 2);
        MainWindow w;
        QVERIFY(open(w, path, "workers2"));
        QCOMPARE(w.worker_selectors().size(), size_t(3));
        for (WorkerSelector* s : w.worker_selectors()) {
            QVERIFY(!s->isHidden());
            QVERIFY(s->isEnabled());
            QCOMPARE(s->combo()->count(), 3);  // all workers, worker 0, worker 1
            QCOMPARE(s->combo()->itemText(2), QString("worker 1 (lcore 3)"));
        }
        // All workers: the sums (530000 cycles over 5000 packets).
        QCOMPARE(cycles_per_packet(w.stages(), "ip6_input"), QString("106.0"));
        // Worker 1 on the Flame graph page's selector: the Stages page too.
        w.worker_selectors()[1]->combo()->setCurrentIndex(2);
        QTRY_COMPARE(w.worker_views(), 1);
        QCOMPARE(w.shown_worker(), 1);
        QCOMPARE(cycles_per_packet(w.stages(), "ip6_input"), QString("110.0"));
        for (WorkerSelector* s : w.worker_selectors()) QCOMPARE(s->worker(), 1);
        // Back to all of them: the sums again, at once.
        w.worker_selectors()[0]->combo()->setCurrentIndex(0);
        QCOMPARE(cycles_per_packet(w.stages(), "ip6_input"), QString("106.0"));
        // A row per worker under each stage, on request.
        const int rows = w.stages()->rowCount();
        QCOMPARE(rows, 3);  // eth_rx, ip6_input, all stages
        QCheckBox* box = w.worker_selectors()[0]->rows_box();
        QVERIFY(box);
        box->setChecked(true);
        QCOMPARE(w.stages()->rowCount(), 3 + 4);
        // Under ip6_input, worker 0 then worker 1, each with its own cost.
        int at = -1;
        for (int r = 0; r < w.stages()->rowCount(); ++r)
            if (w.stages()->data(w.stages()->index(r, 0)).toString() == "ip6_input") at = r;
        QVERIFY(at >= 0);
        auto cell = [&](int r, int c) { return w.stages()->data(w.stages()->index(r, c)).toString(); };
        QCOMPARE(cell(at + 1, 0), QString("  worker 0"));
        QCOMPARE(cell(at + 1, StageTableModel::CyclesPerPacket), QString("100.0"));
        QCOMPARE(cell(at + 2, 0), QString("  worker 1"));
        QCOMPARE(cell(at + 2, StageTableModel::CyclesPerPacket), QString("110.0"));
        QCOMPARE(w.stages()->stage(at + 2), QString("ip6_input"));  // clicks open its stage
        box->setChecked(false);
        QCOMPARE(w.stages()->rowCount(), 3);
    }

    void aRunOfOneWorkerHasNoSelector() {
        const std::string path = fresh("one.db");
        add_run(path, 1);
        MainWindow w;
        QVERIFY(open(w, path, "workers1"));
        for (WorkerSelector* s : w.worker_selectors()) {
            QVERIFY(s->isHidden());
            QVERIFY(!s->isEnabled());
        }
        QCOMPARE(cycles_per_packet(w.stages(), "ip6_input"), QString("100.0"));
        QCOMPARE(w.shown_worker(), int(WorkerSelector::kAllWorkers));
    }
};

QTEST_MAIN(WorkerSelectorTest)
#include "worker_selector_test.moc"
