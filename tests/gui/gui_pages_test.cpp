// The pages' fixes of issue 17 under the offscreen platform, on real store
// files: a transmit-only run's Queues page says what it shows; the
// Histograms page's boxes show their whole text; the Stages page shows every
// stage row at the default window size (or scrolls, visibly); the flame
// graph's hit test finds the frame under the pointer through its rows; the
// search box waits for a pause, searches on a worker thread and drops a
// stale result.
#include <QComboBox>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <filesystem>
#include <random>

#include "analysis/trees/flame_tree.h"
#include "db/schema.h"
#include "db/writer.h"
#include "gui/main_window.h"
#include "gui/models/stage_table_model.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/flame_page.h"
#include "gui/pages/histograms_page.h"
#include "gui/pages/queues_page.h"
#include "gui/widgets/flame_graph_widget.h"

using namespace pathscope;
using namespace pathscope::gui;
namespace fs = std::filesystem;

namespace {

db::HistogramRow histogram_row(int trial, const std::string& stage, uint64_t around,
                               const char* kind = db::kStageCallCycles) {
    analysis::Histogram hist;
    for (uint64_t i = 0; i < 200; ++i) hist.add(around + i % 41);
    db::HistogramRow h{trial, kind, stage, "cycles", 0, 0, 0, 0, {}};
    h.count = hist.count();
    h.sum = hist.sum();
    h.min = hist.min();
    h.max = hist.max();
    for (uint32_t k = 0; k < hist.counts().size(); ++k)
        if (hist.counts()[k]) h.buckets.emplace_back(k, hist.counts()[k]);
    return h;
}

// A run that only sent: sockets hand datagrams down to one transmit queue;
// nothing is received, so there is no receive queue and no burst histogram.
void add_transmit_run(const std::string& path) {
    db::RunInfo info;
    info.label = "tx-only";
    info.host = db::host_name();
    info.trials = 2;
    db::RunWriter w(path, info);
    db::Batch b;
    for (int t = 0; t < 2; ++t) {
        db::TrialRow tr;
        tr.trial = t;
        tr.seconds = 1;
        tr.sends = 4000;
        tr.sent = 4000;
        tr.window_sent = 4000;
        tr.sent_pps = 4000;
        tr.walks = 1000;
        b.trials.push_back(tr);
        b.stages.push_back({t, -1, "udp6_send", 0, 125, 4000, 80000, 0, 0});
        b.stages.push_back({t, -1, "ip6_output", 1, 125, 4000, 60000, 0, 0});
        b.stages.push_back({t, -1, "eth_tx", 2, 125, 4000, 40000, 0, 0});
        b.queues.push_back({t, -1, "wire", 0, "tx", 4000, 256000, 125, 0, 0});
        b.histograms.push_back(histogram_row(t, "udp6_send", 640));
    }
    w.submit(b);
    w.finish("complete");
}

// A forwarding run with the stages of the default scenario, drops of eight
// reasons and perf counters: the Stages page as a default run fills it.
void add_forwarding_run(const std::string& path, int extra_stages = 0) {
    db::RunInfo info;
    info.label = "forward";
    info.host = db::host_name();
    info.trials = 2;
    db::RunWriter w(path, info);
    db::Batch b;
    // The default scenario's graph, as `pathscope run` records it.
    std::vector<std::string> stages = {
        "eth_rx",     "eth_input",   "ip6_input",  "ila_early",   "early_demux",
        "ip6_lookup", "ila_late",    "ip6_local",  "ip6_forward", "icmp6_input",
        "udp6_input", "udp6_output", "ip6_output", "nd_resolve",  "nd_timer",
        "txq_select", "eth_tx",      "drop",       "apps"};
    for (int i = 0; i < extra_stages; ++i) stages.push_back("extra_" + std::to_string(i));
    for (int t = 0; t < 2; ++t) {
        db::TrialRow tr;
        tr.trial = t;
        tr.seconds = 1;
        tr.received = 3200;
        tr.forwarded = 3170;
        tr.dropped = 30;
        tr.window_received = 3200;
        tr.rx_pps = 3200;
        tr.forwarded_pps = 3170;
        tr.walks = 1000;
        tr.idle_walks = 100;
        b.trials.push_back(tr);
        for (size_t s = 0; s < stages.size(); ++s)
            b.stages.push_back({t, -1, stages[s], static_cast<int>(s), 100, 3200, 20000 + 1000 * s, 0, 0});
        for (const char* reason : {"eth_unknown_type", "ip6_bad_version", "ip6_fragment",
                                   "ip6_hbh_not_first", "ip6_hop_limit", "ip6_truncated",
                                   "udp_bad_checksum", "udp_bad_length"})
            b.drops.push_back({t, reason, "ip6_forward", "receive", 10});
        b.perf.push_back({t, "perf::task-clock", true, 320000, 1000, 1000, ""});
        b.perf.push_back({t, "perf::instructions", true, 9000000, 1000, 1000, ""});
        b.queues.push_back({t, -1, "wire", 0, "rx", 3200, 204800, 100, 900, 0});
        b.queues.push_back({t, -1, "wire", 0, "tx", 3170, 202880, 100, 0, 0});
        b.histograms.push_back(histogram_row(t, "ip6_lookup", 200));
        b.histograms.push_back(histogram_row(t, "wire/0", 1, db::kRxBurstSize));
    }
    w.submit(b);
    w.finish("complete");
}

// A run of a real machine's size (45 million packets a trial, thousands of
// cycles a call, a million drops): the widest figures the Stages and Compare
// pages show. `slower` scales the cycles (a candidate).
void add_busy_run(const std::string& path, const std::string& label, double slower = 1) {
    db::RunInfo info;
    info.label = label;
    info.host = db::host_name();
    info.trials = 3;
    db::RunWriter w(path, info);
    db::Batch b;
    const std::vector<std::string> stages = {
        "eth_rx",     "eth_input",   "ip6_input",  "ila_early",   "early_demux",
        "ip6_lookup", "ila_late",    "ip6_local",  "ip6_forward", "icmp6_input",
        "udp6_input", "udp6_output", "ip6_output", "nd_resolve",  "nd_timer",
        "txq_select", "eth_tx",      "drop",       "apps"};
    for (int t = 0; t < 3; ++t) {
        db::TrialRow tr;
        tr.trial = t;
        tr.seconds = 1.6;
        tr.received = 45'582'304 + 1000 * t;
        tr.forwarded = tr.received - 1'093'480;
        tr.dropped = 1'093'480;
        tr.window_received = tr.received;
        tr.rx_pps = tr.forwarded_pps = 28'488'940;
        tr.walks = 2'028'312;
        tr.idle_walks = 713'966;
        b.trials.push_back(tr);
        for (size_t s = 0; s < stages.size(); ++s) {
            const uint64_t calls = 1'424'447, idle_calls = s == 0 ? 713'966 : 0;
            const auto cycles = static_cast<uint64_t>(slower * (1900.2 + 73.1 * s) * calls * (1 + 0.01 * t));
            b.stages.push_back({t, -1, stages[s], static_cast<int>(s), calls + idle_calls,
                                tr.received, cycles + idle_calls * 210, idle_calls, idle_calls * 210});
        }
        b.drops.push_back({t, "ip6_hop_limit", "ip6_forward", "receive", 1'000'000});
        b.drops.push_back({t, "eth_unknown_type", "eth_input", "receive", 90'000});
        b.drops.push_back({t, "ip6_hbh_not_first", "ip6_input", "receive", 3'480});
        b.queues.push_back({t, -1, "wire", 0, "rx", tr.received, tr.received * 64, 1'424'447, 713'966, 0});
        b.histograms.push_back(histogram_row(t, "ip6_lookup", 2000));
    }
    w.submit(b);
    w.finish("complete");
}

/// Every cell of `v`'s rows and columns shows its whole text: as wide as the
/// column (with the style's margins) and the column within the view.
void check_cells_fit(QTableView* v, const char* what) {
    QAbstractItemModel* m = v->model();
    const int margin = v->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, v) + 1;
    for (int c = 0; c < m->columnCount(); ++c) {
        if (v->isColumnHidden(c)) continue;
        const int x = v->columnViewportPosition(c), width = v->columnWidth(c);
        QVERIFY2(x >= 0 && x + width <= v->viewport()->width(),
                 qPrintable(QString("%1: column %2 (%3) at %4..%5 px, the view shows 0..%6")
                                .arg(what)
                                .arg(c)
                                .arg(m->headerData(c, Qt::Horizontal).toString())
                                .arg(x)
                                .arg(x + width)
                                .arg(v->viewport()->width())));
        for (int r = 0; r < m->rowCount(); ++r) {
            const QModelIndex at = m->index(r, c);
            const QVariant f = at.data(Qt::FontRole);
            const QFontMetrics fm(f.isValid() ? f.value<QFont>() : v->font());
            const QString text = at.data().toString();
            const int need = fm.horizontalAdvance(text) + 2 * margin;
            QVERIFY2(need <= width, qPrintable(QString("%1: \"%2\" (row %3, %4) needs %5 px, its "
                                                       "column is %6 px")
                                                   .arg(what, text)
                                                   .arg(r)
                                                   .arg(m->headerData(c, Qt::Horizontal).toString())
                                                   .arg(need)
                                                   .arg(width)));
        }
    }
}

// main 100 = walk 70 (lookup 40, rx 30) + idle 30.
std::shared_ptr<analysis::FlameDiff> sample_diff() {
    analysis::FlameTree t(1, "cycles");
    t.add({"main", "walk", "lookup"}, 40);
    t.add({"main", "walk", "rx"}, 30);
    t.add({"main", "idle"}, 30);
    return std::make_shared<analysis::FlameDiff>(analysis::diff_trees(t, t));
}

// A bushy tree: 3 levels of 6 children under the root, random weights.
std::shared_ptr<analysis::FlameDiff> bushy_diff() {
    analysis::FlameTree t(1, "cycles");
    std::mt19937 rng(17);
    std::uniform_int_distribution<int> weight(20, 50);  // every frame over a pixel wide
    for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b)
            for (int c = 0; c < 6; ++c)
                t.add({"f" + std::to_string(a), "g" + std::to_string(b), "h" + std::to_string(c)},
                      weight(rng));
    return std::make_shared<analysis::FlameDiff>(analysis::diff_trees(t, t));
}

std::string fresh(const fs::path& dir, const std::string& name) {
    const std::string path = (dir / name).string();
    for (const char* ext : {"", "-wal", "-shm"}) fs::remove(path + ext);
    return path;
}

}  // namespace

class GuiPagesTest : public QObject {
    Q_OBJECT
    fs::path dir_;

    bool open(MainWindow& w, const std::string& path, const QString& run) {
        if (!w.open_store(QString::fromStdString(path)).isEmpty()) return false;
        if (!w.select_run(run)) return false;
        w.wait_until_loaded();
        return true;
    }

  private slots:
    void initTestCase() {
        dir_ = fs::temp_directory_path() / ("pathscope_gui_pages_" + std::to_string(getpid()));
        fs::create_directories(dir_);
    }
    void cleanupTestCase() { fs::remove_all(dir_); }

    void queuesPageOfATransmitOnlyRunSaysWhatItShows() {
        const std::string path = fresh(dir_, "tx.db");
        add_transmit_run(path);
        MainWindow w;
        QVERIFY(open(w, path, "tx-only"));
        QueuesPage* q = w.queues_page();
        const auto& skew = q->bars()->skew();
        QCOMPARE(skew.size(), size_t(1));
        QCOMPARE(skew[0].dir, std::string("tx"));
        // One queue is "1 queue", as the text report says it.
        QCOMPARE(QueueBars::heading(skew[0]),
                 QString("wire tx: 1 queue, max/mean 1.00, Jain's index 1.000"));
        // Its packets and bursts, summed over both trials.
        QCOMPARE(QueueBars::figures(skew[0].queues[0]),
                 QString("8000 packets  100.00%  250 bursts (32.0 packets/burst)"));
        // No receive queue: no empty burst chart, a note saying why instead.
        QVERIFY(!q->bursts_shown());
        QVERIFY(q->bursts_title().isEmpty());
        QVERIFY2(q->note().contains("only sent") && q->note().contains("transmit (tx) queues"),
                 qPrintable(q->note()));
        // A forwarding run: two directions, "1 queue" each, and the receive bursts charted.
        const std::string fwd = fresh(dir_, "fwd-queues.db");
        add_forwarding_run(fwd);
        QVERIFY(open(w, fwd, "forward"));
        QCOMPARE(q->bars()->skew().size(), size_t(2));
        QVERIFY(QueueBars::heading(q->bars()->skew()[0]).startsWith("wire rx: 1 queue,"));
        QVERIFY(q->note().isEmpty());
        QVERIFY(q->bursts_shown());
        QCOMPARE(q->bursts_title(),
                 QString("Burst sizes of receive queue wire/0 (polls that returned packets)"));
    }

    void histogramBoxesShowTheirWholeText() {
        const std::string path = fresh(dir_, "hist.db");
        add_forwarding_run(path);
        // Shown first and filled after, as when a run is picked in the window.
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.show_page("histograms"));
        QApplication::processEvents();
        QVERIFY(open(w, path, "forward"));
        QComboBox* trials = w.histograms_page()->trials();
        QCOMPARE(trials->itemText(0), QString("all, merged"));
        // The room the style leaves for the text, beside the arrow and frame,
        // once the page's layout has taken the box's new size hint (a layout
        // pass of its own; a loaded machine takes more than one).
        const auto field_width = [&] {
            QStyleOptionComboBox opt;
            opt.initFrom(trials);
            opt.rect = trials->rect();
            opt.frame = true;
            return trials->style()
                ->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, trials)
                .width();
        };
        const QFontMetrics fm(trials->font());
        int widest = 0;
        for (int i = 0; i < trials->count(); ++i)
            widest = std::max(widest, fm.horizontalAdvance(trials->itemText(i)));
        QTRY_VERIFY(field_width() >= widest);
        const QRect field(0, 0, field_width(), 1);
        for (int i = 0; i < trials->count(); ++i) {
            const int text = fm.horizontalAdvance(trials->itemText(i));
            QVERIFY2(field.width() >= text,
                     qPrintable(QString("\"%1\" is %2 px wide, the box shows %3 px of it")
                                    .arg(trials->itemText(i))
                                    .arg(text)
                                    .arg(field.width())));
            QVERIFY(trials->sizeHint().width() >= text);
        }
    }

    void stageTableShowsEveryRowAtTheDefaultSize() {
        const std::string path = fresh(dir_, "stages.db");
        add_forwarding_run(path);
        MainWindow w;  // the default size, 1400x860
        QCOMPARE(w.size(), QSize(1400, 860));
        QVERIFY(open(w, path, "forward"));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.show_page("stages"));
        QTableView* v = w.stage_view();
        const int rows = v->model()->rowCount();
        // Laid out on the view's own timer: wait for the last row's place.
        QTRY_VERIFY(v->viewport()->rect().contains(v->visualRect(v->model()->index(rows - 1, 0))));
        QCOMPARE(rows, 20);  // 19 stages and "all stages"
        QCOMPARE(v->model()->index(rows - 1, 0).data().toString(), QString("all stages"));
        const QRect shown = v->viewport()->rect();
        for (int r = 0; r < rows; ++r) {
            const QRect cell = v->visualRect(v->model()->index(r, 0));
            QVERIFY2(shown.contains(cell),
                     qPrintable(QString("row %1 (%2) at %3..%4, viewport height %5")
                                    .arg(r)
                                    .arg(v->model()->index(r, 0).data().toString())
                                    .arg(cell.top())
                                    .arg(cell.bottom())
                                    .arg(shown.height())));
        }
        // More stages than fit: the table scrolls, visibly, down to "all stages".
        const std::string many = fresh(dir_, "many.db");
        add_forwarding_run(many, 30);
        QVERIFY(open(w, many, "forward"));
        // The view lays its rows out on a timer of its own after the model
        // changes: a loaded machine takes more than one pass of events.
        QTRY_VERIFY(v->verticalScrollBar()->isVisible());
        QTRY_VERIFY(v->verticalScrollBar()->maximum() > 0);
        v->scrollToBottom();
        const QModelIndex last = v->model()->index(v->model()->rowCount() - 1, 0);
        QCOMPARE(last.data().toString(), QString("all stages"));
        QVERIFY(v->viewport()->rect().contains(v->visualRect(last)));
    }

    // At the default size, the Stages page and the Compare page show every
    // figure whole: no cut "1900." for 1900.2, no "no differenc", no column
    // off the right edge.
    void everyCellFitsItsColumnAtTheDefaultSize() {
        const std::string path = fresh(dir_, "busy.db");
        add_busy_run(path, "base");
        add_busy_run(path, "cand", 1.03);
        MainWindow w;
        QCOMPARE(w.size(), QSize(1400, 860));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(open(w, path, "cand"));
        QVERIFY(w.show_page("stages"));
        QTRY_VERIFY(w.stage_view()->model()->rowCount() > 0);
        QApplication::processEvents();
        check_cells_fit(w.stage_view(), "Stages");
        check_cells_fit(w.drops(), "Drops");
        QVERIFY(w.select_pair("base", "cand"));
        w.wait_until_loaded();
        QVERIFY(w.show_page("compare"));
        QTRY_VERIFY(w.compare_page()->table()->model()->rowCount() > 0);
        QApplication::processEvents();
        check_cells_fit(w.compare_page()->table(), "Compare");
    }

    void hitTestFindsTheFrameUnderThePointer() {
        FlameGraphWidget g;
        g.resize(900, 200);
        g.set_diff(sample_diff(), false, "cycles");
        // Row 0 "all", 1 main, 2 walk | idle, 3 lookup | rx.
        for (const char* name : {"main", "walk", "idle", "lookup", "rx"}) {
            const int node = g.find_node(name);
            QVERIFY(node > 0);
            QCOMPARE(g.nodeAt(g.rect_of(node).center()), node);
            QCOMPARE(g.nodeAt(g.rect_of(node).topLeft() + QPoint(1, 1)), node);
        }
        QCOMPARE(g.nodeAt(QPoint(450, 5)), 0);  // the root, "all"
        // walk spans 70% of the width: x 100 and 620 are in it, x 640 is idle.
        QCOMPARE(g.nodeAt(QPoint(100, 2 * 18 + 9)), g.find_node("walk"));
        QCOMPARE(g.nodeAt(QPoint(620, 2 * 18 + 9)), g.find_node("walk"));
        QCOMPARE(g.nodeAt(QPoint(640, 2 * 18 + 9)), g.find_node("idle"));
        // lookup 40%, rx 30%; under idle, on row 3, nothing.
        QCOMPARE(g.nodeAt(QPoint(300, 3 * 18 + 9)), g.find_node("lookup"));
        QCOMPARE(g.nodeAt(QPoint(400, 3 * 18 + 9)), g.find_node("rx"));
        QCOMPARE(g.nodeAt(QPoint(700, 3 * 18 + 9)), -1);
        QCOMPARE(g.nodeAt(QPoint(300, 10 * 18)), -1);  // below the last row
        QCOMPARE(g.nodeAt(QPoint(-5, 20)), -1);
        // A bushy tree, at every 7th pixel: the same answer as scanning every frame.
        g.set_diff(bushy_diff(), false, "cycles");
        const analysis::FlameLayout layout = analysis::layout_flame(*g.diff(), {});
        int checked = 0, on_frames = 0;
        for (int y = 0; y < (layout.depth + 1) * 18; y += 5)
            for (int x = 0; x < g.width(); x += 7) {
                int expected = -1;
                for (const auto& r : layout.rects) {
                    const QRectF rect(r.x * g.width(), r.depth * 18,
                                      std::max(0.5, r.width * g.width() - 1), 17);
                    if (r.node >= 0 && rect.contains(QPoint(x, y))) {
                        expected = r.node;
                        break;
                    }
                }
                QCOMPARE(g.nodeAt(QPoint(x, y)), expected);
                ++checked;
                on_frames += expected >= 0;
            }
        QVERIFY(checked > 1000 && on_frames > checked / 2);
    }

    void searchWaitsForAPauseAndDropsStaleResults() {
        FlamePage page;
        page.set_diff(sample_diff(), false, "cycles", "sample");
        FlameGraphWidget* g = page.graph();
        QSignalSpy searched(g, &FlameGraphWidget::searched);
        QTest::keyClicks(page.search_box(), "look");
        // Nothing yet: the box waits for a pause in the typing.
        QCOMPARE(searched.count(), 0);
        QCOMPARE(g->search_share(), 0.0);
        QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 60000);
        QCOMPARE(searched.takeFirst().at(0).toBool(), true);
        QVERIFY(std::abs(g->search_share() - 0.40) < 1e-9);
        QCOMPARE(g->pattern(), QString("look"));
        QVERIFY(page.share_text().contains("40.0%"));
        QTest::qWait(FlamePage::kSearchPauseMs * 2);
        QCOMPARE(searched.count(), 0);  // four keystrokes, one search
        // Two searches in a row: the first one's result is stale and dropped.
        g->search_async("idle", false);
        g->search_async("walk", false);
        QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 60000);
        QTest::qWait(100);
        QCOMPARE(searched.count(), 1);
        QCOMPARE(g->pattern(), QString("walk"));
        QVERIFY(std::abs(g->search_share() - 0.70) < 1e-9);
        // A zoom while a search is on its way: it is run again for the new zoom.
        searched.clear();
        g->search_async("lookup", false);
        g->zoom_to(g->find_node("walk"));
        QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 60000);
        QVERIFY(std::abs(g->search_share() - 40.0 / 70.0) < 1e-9);  // of the zoom root
        // An unfinished regular expression: refused, nothing highlighted, no crash.
        searched.clear();
        g->search_async("(", true);
        QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 60000);
        QCOMPARE(searched.takeFirst().at(0).toBool(), false);
        QCOMPARE(g->search_share(), 0.0);
        QVERIFY(g->pattern().isEmpty());
    }
};

QTEST_MAIN(GuiPagesTest)
#include "gui_pages_test.moc"
