// The Experiments page against the CLI: a real 2 x 2 x 2 matrix (the
// bind x connect x route_cache sample, 3 short trials a cell) captured by
// `pathscope run`, judged by `pathscope compare --experiment ID --by
// SETTING --format json`; the page's grid must hold the same rows, the same
// change, interval and verdict in every cell, coloured by the verdict, and
// a click on a cell must open exactly that pair of runs on the Compare page.
// The grid test runs on a file store and, as "/postgres", on a server store.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "gui/main_window.h"
#include "gui/models/experiment_grid_model.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/experiments_page.h"
#include "tests/support/qt_store_backends.h"

using namespace pathscope;
using namespace pathscope::gui;
namespace fs = std::filesystem;

namespace {

QString cli_output(const QStringList& args, int* status) {
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.setWorkingDirectory(QStringLiteral(PATHSCOPE_SOURCE_DIR));
    p.start(QStringLiteral(PATHSCOPE_CLI), args);
    p.waitForFinished(240000);
    *status = p.exitCode();
    if (*status != 0) qWarning("%s", p.readAllStandardError().constData());
    return QString::fromUtf8(p.readAllStandardOutput());
}

bool near_equal(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

class ExperimentsPageTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        dir_ = fs::temp_directory_path() / ("pathscope_experiments_" + std::to_string(getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        PATHSCOPE_QT_NEED_STORE();
        db_ = QString::fromStdString(test::new_test_store(dir_, "matrix.db"));
        int status = -1;
        const QString out =
            cli_output({"run", "samples/udp6-tx-bind-connect.toml", "--db", db_, "--trials", "3",
                        "--duration", "0.3"},
                       &status);
        QCOMPARE(status, 0);
        const auto at = out.indexOf(QStringLiteral("stored as experiment "));
        QVERIFY2(at >= 0, qPrintable(out));
        experiment_ = out.mid(at + 21).section(' ', 0, 0);
        QVERIFY(!experiment_.isEmpty());
    }
    void cleanupTestCase() { fs::remove_all(dir_); }

    void gridEqualsTheCliComparison_data() {
        QTest::addColumn<QString>("by");
        QTest::newRow("route_cache") << QStringLiteral("engine.route_cache");
        QTest::newRow("connect") << QStringLiteral("socket.connect");
    }

    void gridEqualsTheCliComparison() {
        QFETCH(QString, by);
        int status = -1;
        const QString text = cli_output({"compare", "--db", db_, "--experiment", experiment_, "--by",
                                         by, "--format", "json"},
                                        &status);
        QCOMPARE(status, 0);
        const auto doc = nlohmann::json::parse(text.toStdString());

        MainWindow w;
        QCOMPARE(w.open_store(db_), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.show_page(QStringLiteral("experiments")));
        ExperimentsPage* page = w.experiments_page();
        QCOMPARE(w.pages()->currentWidget(), page);
        QVERIFY(page->choose(experiment_, by));
        page->wait_until_loaded();
        ExperimentGridModel* grid = page->grid();
        QAbstractItemModelTester tester(grid, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY2(grid->comparison(), qPrintable(page->status()->text()));

        // Four rows (the other two settings' 2 x 2), one column per metric
        // (two values: one against the baseline), as the CLI's JSON.
        const auto& rows = doc["rows"];
        const auto& values = doc["values"];
        QCOMPARE(grid->rowCount(), static_cast<int>(rows.size()));
        QCOMPARE(grid->rowCount(), 4);
        const size_t metrics = rows[0]["metrics"].size();
        QCOMPARE(grid->columnCount(), static_cast<int>((values.size() - 1) * metrics));
        int better = 0, worse = 0, same = 0;
        for (int r = 0; r < grid->rowCount(); ++r) {
            const auto& row = rows[static_cast<size_t>(r)];
            QCOMPARE(grid->headerData(r, Qt::Vertical, Qt::ToolTipRole).toString().toStdString(),
                     row["cell"].get<std::string>());
            for (int c = 0; c < grid->columnCount(); ++c) {
                const size_t v = grid->value_of(c), m = grid->metric_of(c);
                const auto& metric = row["metrics"][m];
                const auto& against = metric["against"][v - 1];
                const QString header = grid->headerData(c, Qt::Horizontal).toString();
                QVERIFY2(header.contains(QString::fromStdString(metric["name"].get<std::string>() +
                                                                " (" + metric["unit"].get<std::string>() + ")")),
                         qPrintable(header));
                QVERIFY2(header.contains(by + "=" + QString::fromStdString(against["value"].get<std::string>())),
                         qPrintable(header));
                const QModelIndex at = grid->index(r, c);
                const std::string verdict = against["verdict"];
                QCOMPARE(at.data(ExperimentGridModel::VerdictRole).toString().toStdString(), verdict);
                QVERIFY(near_equal(at.data(ExperimentGridModel::ChangeRole).toDouble(),
                              against["change_percent"].get<double>()));
                QVERIFY(near_equal(at.data(ExperimentGridModel::HalfWidthRole).toDouble(),
                              against["half_width_percent"].get<double>()));
                QCOMPARE(at.data(ExperimentGridModel::BaseRunRole).toLongLong(),
                         row["run_ids"][0].get<qlonglong>());
                QCOMPARE(at.data(ExperimentGridModel::CandRunRole).toLongLong(),
                         row["run_ids"][v].get<qlonglong>());
                // The text shows the change with its sign, and the verdict.
                const QString shown = at.data().toString();
                QVERIFY2(shown.endsWith(QString::fromStdString(verdict)), qPrintable(shown));
                QVERIFY2(shown.startsWith('+') || shown.startsWith('-') || shown.startsWith("n/a"),
                         qPrintable(shown));
                // Coloured by the verdict: green better, red worse, grey within noise.
                const QVariant bg = at.data(Qt::BackgroundRole);
                if (verdict == "better") {
                    ++better;
                    QVERIFY(bg.value<QColor>().green() > bg.value<QColor>().red());
                } else if (verdict == "worse") {
                    ++worse;
                    QVERIFY(bg.value<QColor>().red() > bg.value<QColor>().green());
                } else if (verdict == "no difference") {
                    ++same;
                    const QColor g = bg.value<QColor>();
                    QVERIFY(g.isValid() && g.red() == g.green() && g.green() == g.blue());
                }
            }
        }
        qInfo("by %s: %d better, %d worse, %d no difference", qPrintable(by), better, worse, same);

        // A click opens that cell's pair on the Compare page.
        const QModelIndex cell = grid->index(grid->rowCount() - 1, 0);
        const qint64 base = cell.data(ExperimentGridModel::BaseRunRole).toLongLong();
        const qint64 cand = cell.data(ExperimentGridModel::CandRunRole).toLongLong();
        page->view()->scrollTo(cell);
        QTest::mouseClick(page->view()->viewport(), Qt::LeftButton, {},
                          page->view()->visualRect(cell).center());
        w.wait_until_loaded();
        QCOMPARE(w.pages()->currentWidget(), static_cast<QWidget*>(w.compare_page()));
        const analysis::Report* report = w.compare_page()->report();
        QVERIFY(report);
        QCOMPARE(report->base.id, base);
        QCOMPARE(report->cand.id, cand);
    }

    void theNewestExperimentsFirstSettingIsShownUnasked() {
        MainWindow w;
        QCOMPARE(w.open_store(db_), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.show_page(QStringLiteral("experiments")));
        w.wait_until_loaded();
        QCOMPARE(w.experiments_page()->experiment_box()->currentData().toString(), experiment_);
        QCOMPARE(w.experiments_page()->setting_box()->count(), 3);
        QCOMPARE(w.experiments_page()->grid()->rowCount(), 4);
    }

    // Last: it adds a newer experiment to the store. Selecting a run of the
    // older one turns the page to the older one.
    void thePageFollowsTheSelectedRunsExperiment() {
        int status = -1;
        const QString out =
            cli_output({"run", "samples/forward-replay.toml", "--db", db_, "--ab",
                        "engine.extra_work=0,4", "--trials", "2", "--duration", "0.2"},
                       &status);
        QCOMPARE(status, 0);
        const auto at = out.indexOf(QStringLiteral("stored as experiment "));
        QVERIFY2(at >= 0, qPrintable(out));
        const QString newer = out.mid(at + 21).section(' ', 0, 0);
        QVERIFY(newer != experiment_);
        MainWindow w;
        QCOMPARE(w.open_store(db_), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.select_run(QStringLiteral("1")));  // the first cell of the older experiment
        w.wait_until_loaded();
        QVERIFY(w.show_page(QStringLiteral("experiments")));
        w.wait_until_loaded();
        QCOMPARE(w.experiments_page()->experiment_box()->currentData().toString(), experiment_);
        QCOMPARE(w.experiments_page()->grid()->rowCount(), 4);
        QVERIFY(w.select_run(newer.isEmpty() ? QString() : QStringLiteral("9")));  // a cell of the newer
        w.wait_until_loaded();
        QCOMPARE(w.experiments_page()->experiment_box()->currentData().toString(), newer);
    }

  private:
    fs::path dir_;
    QString db_;
    QString experiment_;
};

QTEST_MAIN(ExperimentsPageTest)
#include "experiments_page_test.moc"
