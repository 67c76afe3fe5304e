// The Sampled stacks page's views on a real import (`perf script` text
// through capture::import_profile, the importer `pathscope import perf`
// runs): every model and proxy passes QAbstractItemModelTester (fatal),
// the bottom-up tree's first level adds up to the top-down total, a
// recursive function is counted once, callers and callees of a known
// function, search filters every view, a double-click in a tree opens the
// function's callers and callees, and a comparison has base, candidate and
// change columns.
#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLineEdit>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTreeView>
#include <filesystem>
#include <fstream>

#include "capture/profile_import.h"
#include "gui/main_window.h"
#include "gui/models/call_tree_model.h"
#include "gui/models/caller_callee_model.h"
#include "gui/models/name_filter_proxy.h"
#include "gui/pages/stacks_page.h"
#include "tests/support/profile_store.h"
#include "tests/support/qt_store_backends.h"

using namespace pathscope;
using namespace pathscope::gui;
namespace fs = std::filesystem;

namespace {

// `perf script` text: `count` samples of each stack (leaf first, as perf prints).
struct Stack {
    std::vector<std::string> leaf_first;
    int count;
};
void write_perf_script(const fs::path& file, const std::vector<Stack>& stacks) {
    std::ofstream out(file);
    int n = 0;
    for (const auto& s : stacks)
        for (int k = 0; k < s.count; ++k, ++n) {
            out << "pathscope 4242 [001] 100." << 100000 + n << ":     250000 cpu-clock:u: \n";
            unsigned long addr = 0x55d5c1f0a000;
            for (const auto& f : s.leaf_first)
                out << "\t    " << std::hex << (addr += 0x40) << std::dec << " " << f
                    << "+0x10 (/usr/bin/pathscope)\n";
            out << "\n";
        }
}

// The base profile, 12 samples:
//   main;Engine::walk;ip6_lookup_process       6
//   main;Engine::walk                          2
//   main;Engine::walk;udp6_input;ip6_lookup_process 3
//   main;recurse;recurse;ip6_lookup_process    1
const std::vector<Stack> kBase = {
    {{"ip6_lookup_process", "Engine::walk", "main"}, 6},
    {{"Engine::walk", "main"}, 2},
    {{"ip6_lookup_process", "udp6_input", "Engine::walk", "main"}, 3},
    {{"ip6_lookup_process", "recurse", "recurse", "main"}, 1},
};
// The candidate: the lookup under walk takes three times the samples.
const std::vector<Stack> kCand = {
    {{"ip6_lookup_process", "Engine::walk", "main"}, 18},
    {{"Engine::walk", "main"}, 2},
    {{"ip6_lookup_process", "udp6_input", "Engine::walk", "main"}, 3},
    {{"ip6_lookup_process", "recurse", "recurse", "main"}, 1},
};

// The row under `parent` whose symbol is `name`.
QModelIndex row_named(const QAbstractItemModel* m, const QModelIndex& parent, const QString& name) {
    for (int r = 0; r < m->rowCount(parent); ++r)
        if (m->index(r, 0, parent).data().toString() == name) return m->index(r, 0, parent);
    return {};
}

// The importer roots each stack at the sampled command ("pathscope").
QModelIndex main_row(const QAbstractItemModel* m) {
    return row_named(m, row_named(m, {}, "pathscope"), "main");
}

double number(const QModelIndex& index, int column) {
    return index.sibling(index.row(), column).data(SortRole).toDouble();
}

}  // namespace

class StackViewsTest : public QObject {
    Q_OBJECT
    fs::path dir_;
    QString store_;

    // A single run's call views are made when one of their tabs is shown.
    bool open(MainWindow& w, const QString& run) {
        if (!w.open_store(store_).isEmpty() || !w.select_run(run)) return false;
        w.wait_until_loaded();
        if (w.stacks_page()->views().top_down) return false;  // made before they were shown
        w.show_page(QStringLiteral("topdown"));
        w.wait_until_loaded();
        return w.stacks_page()->views().top_down != nullptr;
    }

    // The samples the top-down view counts, and those of the run's rows.
    static double view_samples(const StacksPage* s) {
        const auto& td = *s->views().top_down;
        return td.columns().samples(td.total(0), 0);
    }
    static double run_samples(const MainWindow& w) {
        double sum = 0;
        for (const auto& r : w.run_data()->rows.stacks) sum += static_cast<double>(r.weight);
        return sum;
    }

  private slots:
    // A live update of a followed run makes the call views only while one
    // is shown (at a million samples they cost as much as the rest of an
    // update); shown later, they are the grown run's.
    void aLiveUpdateMakesCallViewsOnlyWhenShown() {
        const std::string path = (dir_ / "growing.db").string();
        const int64_t id = test::write_profile_store(path, "growing", 300, 1);
        auto writer = db::open_store(path, db::Database::Mode::read_write);
        const std::string run = std::to_string(id);
        writer->exec("UPDATE runs SET status = 'running' WHERE id = " + run);
        writer->exec("DELETE FROM trials WHERE run_id = " + run);  // running: no totals yet
        const auto grow = [&](int seq) {  // an interval sampling every stack again
            writer->exec("INSERT INTO stack_samples (run_id, trial, seq, event, stack, weight) "
                         "SELECT run_id, trial, " + std::to_string(seq) + ", event, stack, weight "
                         "FROM stack_samples WHERE run_id = " + run + " AND seq = 0");
            writer->exec("INSERT INTO intervals (run_id, trial, seq, t, received, delivered, "
                         "forwarded, replied, dropped) VALUES (" + run + ", 0, " +
                         std::to_string(seq) + ", " + std::to_string(seq + 1) + ", 10, 0, 0, 0, 0)");
        };
        MainWindow w;
        QVERIFY(w.open_store(QString::fromStdString(path)).isEmpty());
        QVERIFY(w.show_page(QStringLiteral("stacks")));
        QVERIFY(w.select_run(QStringLiteral("growing")));
        w.wait_until_loaded();
        StacksPage* s = w.stacks_page();
        QVERIFY(!s->views().top_down);
        grow(1);
        QVERIFY(w.poll_store());
        w.wait_until_loaded();
        QCOMPARE(w.run_data()->rows.intervals.size(), size_t{2});
        QVERIFY(!s->views().top_down);  // the flame graph is shown: none made
        QVERIFY(w.show_page(QStringLiteral("bottomup")));
        w.wait_until_loaded();
        QVERIFY(s->views().top_down);
        QCOMPARE(view_samples(s), run_samples(w));
        const double two = view_samples(s);
        grow(2);  // shown now: made with the update
        QVERIFY(w.poll_store());
        w.wait_until_loaded();
        QCOMPARE(w.run_data()->rows.intervals.size(), size_t{3});
        QVERIFY(s->views().top_down);
        QCOMPARE(view_samples(s), run_samples(w));
        QCOMPARE(view_samples(s), two * 3 / 2);
        // Later updates grow the rows the window let go instead of copying
        // the newest: each time the rows of a whole read, and the running
        // trial's totals once.
        for (int seq = 3; seq < 8; ++seq) {
            grow(seq);
            QVERIFY(w.poll_store());
            w.wait_until_loaded();
            QTest::qWait(50);  // the window lets the rows before go on a pool thread
            const auto seen = w.run_data();
            auto reader = db::open_store(path, db::Database::Mode::read_only);
            const db::RunData whole = db::load_run(*reader, id);
            QCOMPARE(seen->rows.stacks.size(), whole.rows.stacks.size());
            QCOMPARE(seen->rows.intervals.size(), whole.rows.intervals.size());
            QCOMPARE(seen->rows.trials.size(), size_t{1});  // the running trial's, made from its intervals
            QCOMPARE(seen->rows.trials[0].received, uint64_t(10) * seq + whole.rows.intervals[0].received);
            QCOMPARE(view_samples(s), run_samples(w));
        }
    }

    void initTestCase() {
        dir_ = fs::temp_directory_path() / ("pathscope_stack_views_" + std::to_string(getpid()));
        fs::create_directories(dir_);
        PATHSCOPE_QT_NEED_STORE();
        const std::string db = test::new_test_store(dir_, "stacks.db");
        write_perf_script(dir_ / "base.txt", kBase);
        write_perf_script(dir_ / "cand.txt", kCand);
        capture::import_profile((dir_ / "base.txt").string(), "perf", db, "base");
        capture::import_profile((dir_ / "cand.txt").string(), "perf", db, "cand");
        store_ = QString::fromStdString(db);
    }
    void cleanupTestCase() { fs::remove_all(dir_); }

    void modelsPassTheModelTester() {
        MainWindow w;
        StacksPage* s = w.stacks_page();
        using Tester = QAbstractItemModelTester;
        const auto fatal = Tester::FailureReportingMode::Fatal;
        // Attached before loading: the testers also check every reset.
        Tester td(s->top_down_model(), fatal), bu(s->bottom_up_model(), fatal),
            fn(s->functions_model(), fatal), callers(s->callers_model(), fatal),
            callees(s->callees_model(), fatal), tdp(s->top_down_proxy(), fatal),
            bup(s->bottom_up_proxy(), fatal), fnp(s->functions_proxy(), fatal);
        QVERIFY(open(w, "base"));
        QVERIFY(s->show_function("ip6_lookup_process"));
        s->search("walk", false);
        s->top_down_view()->sortByColumn(0, Qt::AscendingOrder);
        s->search("^ip6", true);
        s->search("", false);
        QVERIFY(w.select_pair("base", "cand"));  // a comparison's columns, under the testers too
        w.wait_until_loaded();
        QVERIFY(s->views().top_down->columns().comparison());
        QVERIFY(s->show_function("Engine::walk"));
    }

    void bottomUpTotalsEqualTopDownTotals() {
        MainWindow w;
        QVERIFY(open(w, "base"));
        StacksPage* s = w.stacks_page();
        const CallTreeModel* td = s->top_down_model();
        const CallTreeModel* bu = s->bottom_up_model();
        // Top-down: symbol, self (samples), self (%), inclusive (samples), inclusive (%).
        QCOMPARE(td->columnCount(), 5);
        QCOMPARE(td->headerData(1, Qt::Horizontal).toString(), QString("Self (samples)"));
        QCOMPARE(td->headerData(4, Qt::Horizontal).toString(), QString("Inclusive (%)"));
        const QModelIndex main = main_row(td);
        QVERIFY(main.isValid());
        QCOMPARE(number(main, 3), 12.0);
        QCOMPARE(number(main, 4), 100.0);
        QCOMPARE(number(main, 1), 0.0);
        const QModelIndex walk = row_named(td, main, "Engine::walk");
        QCOMPARE(number(walk, 1), 2.0);   // self
        QCOMPARE(number(walk, 3), 11.0);  // inclusive
        QVERIFY(std::abs(number(walk, 4) - 1100.0 / 12) < 1e-9);
        QCOMPARE(walk.sibling(walk.row(), 3).data().toString(), QString("11"));
        QCOMPARE(number(main.parent(), 3), 12.0);  // the command: every sample
        // Bottom-up: the functions that ran, their own samples, adding up to all.
        QCOMPARE(bu->columnCount(), 3);
        double roots = 0;
        for (int r = 0; r < bu->rowCount(); ++r) roots += number(bu->index(r, 0), 1);
        QCOMPARE(roots, 12.0);
        const QModelIndex lookup = row_named(bu, {}, "ip6_lookup_process");
        QCOMPARE(number(lookup, 1), 10.0);
        QCOMPARE(number(row_named(bu, lookup, "udp6_input"), 1), 3.0);
        QCOMPARE(number(row_named(bu, lookup, "recurse"), 1), 1.0);
        QCOMPARE(number(row_named(bu, {}, "Engine::walk"), 1), 2.0);
        // The views open sorted by cost, the largest first.
        QCOMPARE(s->bottom_up_view()->model()->index(0, 0).data().toString(),
                 QString("ip6_lookup_process"));
    }

    void callerCalleeOfAKnownFunction() {
        MainWindow w;
        QVERIFY(open(w, "base"));
        StacksPage* s = w.stacks_page();
        const CallerCalleeModel* fn = s->functions_model();
        const auto row = [&](const QString& name) {
            return fn->index(fn->row_of(static_cast<uint32_t>(
                                 s->views().callers->find(name.toStdString()))),
                             0);
        };
        QCOMPARE(number(row("ip6_lookup_process"), 1), 10.0);  // self
        QCOMPARE(number(row("ip6_lookup_process"), 3), 10.0);  // inclusive
        QCOMPARE(number(row("recurse"), 3), 1.0);  // recursing, counted once a sample
        QCOMPARE(number(row("Engine::walk"), 3), 11.0);
        QVERIFY(s->show_function("ip6_lookup_process"));
        QCOMPARE(s->view(), StacksPage::View::callers);
        QCOMPARE(s->shown_function(), QString("ip6_lookup_process"));
        const CallLinksModel* callers = s->callers_model();
        QCOMPARE(callers->rowCount(), 3);
        QCOMPARE(number(row_named(callers, {}, "Engine::walk"), 1), 6.0);
        QCOMPARE(number(row_named(callers, {}, "udp6_input"), 1), 3.0);
        QCOMPARE(number(row_named(callers, {}, "recurse"), 1), 1.0);
        QCOMPARE(s->callees_model()->rowCount(), 0);
        QVERIFY(s->show_function("recurse"));
        QCOMPARE(number(row_named(s->callers_model(), {}, "recurse"), 1), 1.0);
        QCOMPARE(number(row_named(s->callees_model(), {}, "ip6_lookup_process"), 1), 1.0);
        QVERIFY(!s->show_function("no_such_function"));
    }

    void searchFiltersEveryView() {
        MainWindow w;
        QVERIFY(open(w, "base"));
        StacksPage* s = w.stacks_page();
        s->search("UDP6", false);  // plain text ignores case, as the flame graph's search
        const QAbstractItemModel* td = s->top_down_proxy();
        const QModelIndex main = main_row(td);
        QVERIFY(main.isValid());
        QCOMPARE(td->rowCount(main), 1);  // recurse has no udp6 under it
        const QModelIndex walk = row_named(td, main, "Engine::walk");
        QCOMPARE(td->rowCount(walk), 1);
        const QModelIndex udp = row_named(td, walk, "udp6_input");
        QVERIFY(udp.isValid());
        QCOMPARE(td->rowCount(udp), 1);  // what a match calls stays in view
        QCOMPARE(s->bottom_up_proxy()->rowCount(), 1);
        QCOMPARE(s->functions_proxy()->rowCount(), 1);
        QVERIFY(s->flame()->share_text().contains("25.0%"));  // 3 of 12 samples
        s->search("(", true);  // an unfinished regular expression filters nothing out
        QCOMPARE(s->functions_proxy()->rowCount(), s->functions_model()->rowCount());
        s->search("", false);
        QCOMPARE(td->rowCount(main_row(td)), 2);  // proxy indexes are new after a filter
    }

    void doubleClickOpensCallerCallee() {
        MainWindow w;
        w.resize(1200, 800);
        QVERIFY(open(w, "base"));
        QVERIFY(w.show_page("topdown"));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        StacksPage* s = w.stacks_page();
        QCOMPARE(s->view(), StacksPage::View::top_down);
        QTreeView* v = s->top_down_view();
        const QModelIndex main = main_row(v->model());
        v->expand(main.parent());
        v->expand(main);
        const QModelIndex walk = row_named(v->model(), main, "Engine::walk");
        QVERIFY(walk.isValid());
        const QPoint at = v->visualRect(walk).center();
        QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(v->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(s->view(), StacksPage::View::callers);
        QCOMPARE(s->shown_function(), QString("Engine::walk"));
        QCOMPARE(s->functions_view()->currentIndex().data().toString(), QString("Engine::walk"));
        QCOMPARE(number(row_named(s->callers_model(), {}, "main"), 1), 11.0);
        QCOMPARE(number(row_named(s->callees_model(), {}, "ip6_lookup_process"), 1), 6.0);
        QCOMPARE(number(row_named(s->callees_model(), {}, "udp6_input"), 1), 3.0);
        // Every column's header fits its text.
        QHeaderView* h = s->functions_view()->horizontalHeader();
        for (int c = 1; c < h->count(); ++c)
            QVERIFY2(h->sectionSize(c) >= h->fontMetrics().horizontalAdvance(
                                                  h->model()->headerData(c, Qt::Horizontal).toString()),
                     qPrintable(h->model()->headerData(c, Qt::Horizontal).toString()));
    }

    void comparisonHasBaseCandidateAndChange() {
        MainWindow w;
        QVERIFY(w.open_store(store_).isEmpty());
        QVERIFY(w.select_pair("base", "cand"));
        w.wait_until_loaded();
        StacksPage* s = w.stacks_page();
        QVERIFY(s->views().top_down && s->views().top_down->columns().comparison());
        const CallTreeModel* td = s->top_down_model();
        // symbol, self base, self cand., inclusive base, inclusive cand., inclusive change
        QCOMPARE(td->columnCount(), 6);
        QCOMPARE(td->headerData(3, Qt::Horizontal).toString(), QString("Inclusive base (%)"));
        QCOMPARE(td->headerData(5, Qt::Horizontal).toString(), QString("Inclusive change (pp)"));
        const QModelIndex walk = row_named(td, main_row(td), "Engine::walk");
        QVERIFY(std::abs(number(walk, 3) - 1100.0 / 12) < 1e-9);  // 11 of 12
        QVERIFY(std::abs(number(walk, 4) - 2300.0 / 24) < 1e-9);  // 23 of 24
        QVERIFY(std::abs(number(walk, 5) - (2300.0 / 24 - 1100.0 / 12)) < 1e-9);
        // One trial a side: the stated threshold decides; +4.2 pp of a 92% node is noise.
        QCOMPARE(walk.data(NoiseRole).toBool(), true);
        // The lookup's own share went from 6/12 to 18/24 under walk: a real change.
        const QModelIndex lookup = row_named(td, walk, "ip6_lookup_process");
        QCOMPARE(lookup.data(NoiseRole).toBool(), false);
        QVERIFY(number(lookup, 5) > 24.9 && number(lookup, 5) < 25.1);
        QCOMPARE(s->bottom_up_model()->columnCount(), 4);
        QCOMPARE(s->functions_model()->columnCount(), 6);
    }
};

QTEST_MAIN(StackViewsTest)
#include "stack_views_test.moc"
