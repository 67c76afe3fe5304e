// Hostile names in the desktop program (issue 19 item 6). Real runs of
// `pathscope run` on DPDK vdevs whose label, scenario file name, scenario
// values (a perf event) and experiment cells hold markup, terminal control
// characters and invalid UTF-8, and imported profiles whose function names
// do, opened in the main window: on every page, every label, table cell,
// header, tooltip, list entry and text box shows them without a raw control
// character, and no label or tooltip that Qt reads as HTML takes their
// markup for markup.
#include <QAbstractItemView>
#include <QComboBox>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTabWidget>
#include <QTest>
#include <QTextDocument>
#include <QToolTip>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gui/main_window.h"
#include "gui/models/experiment_grid_model.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/experiments_page.h"
#include "gui/pages/flame_page.h"
#include "gui/widgets/flame_graph_widget.h"

extern char** environ;

using namespace pathscope::gui;
namespace fs = std::filesystem;

namespace {

// Markup, separators, line breaks, ESC sequences (clear, home, title), other
// C0 controls, DEL, a C1 control, a bidi override, bytes that are not UTF-8.
const std::string kEvil =
    "<script>alert(1)</script>|\"q\",`t`;x\r\n\x1b[2J\x1b[H\x1b]0;title\x07\x01\x7f\xc2\x85"
    "\xe2\x80\xae\xff\xfe <b>x</b> <i>y</i>";
// Tags of the names above (and of the scenario's event name): never markup.
const char* const kTags[] = {"<script", "<b>x</b>", "<i>y</i>", "<b>ev</b>", "<i>", "<s>"};

/// Runs the command line with arguments as bytes (QProcess would take them as UTF-8).
int cli(std::vector<std::string> args, const fs::path& cwd) {
    args.insert(args.begin(), PATHSCOPE_CLI);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    const fs::path old = fs::current_path();
    fs::current_path(cwd);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    fs::current_path(old);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// A character a terminal or a text layout would obey rather than show.
bool raw_control(const QString& s) {
    for (const QChar c : s) {
        const char16_t u = c.unicode();
        if ((u < 0x20 && u != '\n' && u != '\t') || u == 0x7f || (u >= 0x80 && u <= 0x9f) ||
            (u >= 0x202a && u <= 0x202e) || (u >= 0x2066 && u <= 0x2069))
            return true;
    }
    return false;
}

bool read_as_html(const QString& s, Qt::TextFormat f) {
    return f == Qt::RichText || (f == Qt::AutoText && Qt::mightBeRichText(s));
}

struct Findings {
    QStringList bad;
    QString shown;  ///< everything seen, to look for the escapes
    int tooltips = 0;  ///< flame graph tooltips seen

    void text(const QString& where, const QString& s, bool html) {
        shown += s + "\n";
        if (raw_control(s)) bad << where + ": a raw control character in " + s.left(120);
        if (html)
            for (const char* tag : kTags)
                if (s.contains(QLatin1String(tag)))
                    bad << where + ": markup read as HTML: " + s.left(160);
    }
};

void scan_model(Findings& f, const QString& where, QAbstractItemModel* m,
                const QModelIndex& parent = {}, int depth = 0) {
    if (!m || depth > 4) return;
    const int rows = std::min(m->rowCount(parent), 300);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < m->columnCount(parent); ++c) {
            const QModelIndex i = m->index(r, c, parent);
            f.text(where, i.data(Qt::DisplayRole).toString(), false);
            const QString tip = i.data(Qt::ToolTipRole).toString();
            f.text(where + " tooltip", tip, Qt::mightBeRichText(tip));
            if (c == 0 && m->hasChildren(i)) scan_model(f, where, m, i, depth + 1);
        }
    if (depth == 0)
        for (auto o : {Qt::Horizontal, Qt::Vertical}) {
            const int n = std::min(o == Qt::Horizontal ? m->columnCount() : m->rowCount(), 300);
            for (int s = 0; s < n; ++s) {
                f.text(where + " header", m->headerData(s, o, Qt::DisplayRole).toString(), false);
                const QString tip = m->headerData(s, o, Qt::ToolTipRole).toString();
                f.text(where + " header tooltip", tip, Qt::mightBeRichText(tip));
            }
        }
}

/// Every text the window shows now, on whichever page.
void scan_window(Findings& f, MainWindow& w, const QString& at) {
    f.text(at + " window title", w.windowTitle(), false);
    f.text(at + " status bar", w.statusBar()->currentMessage(), false);
    for (QLabel* l : w.findChildren<QLabel*>())
        f.text(at + " label " + l->objectName(), l->text(), read_as_html(l->text(), l->textFormat()));
    for (QWidget* x : w.findChildren<QWidget*>()) {
        const QString tip = x->toolTip();
        if (!tip.isEmpty()) f.text(at + " tooltip", tip, Qt::mightBeRichText(tip));
    }
    for (QAbstractItemView* v : w.findChildren<QAbstractItemView*>())
        scan_model(f, at + " view " + v->metaObject()->className(), v->model());
    for (QComboBox* b : w.findChildren<QComboBox*>())
        for (int i = 0; i < b->count(); ++i) f.text(at + " list", b->itemText(i), false);
    for (QPlainTextEdit* e : w.findChildren<QPlainTextEdit*>())
        f.text(at + " text box", e->toPlainText(), false);
    for (QTabWidget* t : w.findChildren<QTabWidget*>())
        for (int i = 0; i < t->count(); ++i) f.text(at + " tab", t->tabText(i), false);
    // The flame graphs' tooltips: a help event over every frame row.
    for (FlameGraphWidget* g : w.findChildren<FlameGraphWidget*>()) {
        if (!g->isVisible() || !g->diff()) continue;
        for (int y = 4; y < g->height(); y += 9)
            for (int x = 2; x < g->width(); x += 24) {
                QHelpEvent help(QEvent::ToolTip, QPoint(x, y), g->mapToGlobal(QPoint(x, y)));
                QCoreApplication::sendEvent(g, &help);
                if (QToolTip::isVisible()) {
                    ++f.tooltips;
                    f.text(at + " flame tooltip", QToolTip::text(), Qt::mightBeRichText(QToolTip::text()));
                }
                // The page's hover line says what is under the pointer.
                QMouseEvent move(QEvent::MouseMove, QPointF(x, y), g->mapToGlobal(QPointF(x, y)),
                                 Qt::NoButton, Qt::NoButton, Qt::NoModifier);
                QCoreApplication::sendEvent(g, &move);
                for (QLabel* l : g->parentWidget()->findChildren<QLabel*>())
                    f.text(at + " flame hover", l->text(), read_as_html(l->text(), l->textFormat()));
            }
        QToolTip::hideText();
    }
}

const QStringList kPages = {"stages", "path",       "flame",  "stacks",   "topdown", "bottomup",
                            "callers", "queues",    "histograms", "timeseries", "traces"};

}  // namespace

class HostileNamesTest : public QObject {
    Q_OBJECT
    fs::path dir_;
    QString db_;

  private slots:
    void initTestCase() {
        dir_ = fs::temp_directory_path() / ("pathscope_hostile_gui_" + std::to_string(getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        db_ = QString::fromStdString((dir_ / "evil.db").string());
        const std::string db = db_.toStdString();
        // The default scenario's ports and apps (no route file), a perf event
        // with a hostile name, and a file name of its own.
        std::ifstream in(std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml");
        std::stringstream text;
        for (std::string line; std::getline(in, line);) {
            if (line == "[routes]") {
                while (std::getline(in, line) && !line.empty()) {}
                continue;
            }
            text << line << "\n";
        }
        text << "\n[capture]\nsample_hz = 0\nperf_events = [\"perf::TASK-CLOCK\", "
                "\"perf::TASK-CLOCK\\u001b[2J<b>ev</b>|\"]\n";
        const std::string scenario = "scen <i>s<i>|\x1b[2J\x07\xff.toml";
        std::ofstream(dir_ / scenario) << text.str();
        std::ofstream(dir_ / "matrix.toml")
            << text.str() << "\n[matrix]\ncapture.sample_event = [\"a<b>x</b>\\u001b[2J\", \"b\\r\\n`c`\"]\n";
        const std::vector<std::string> quick = {"--trials", "3", "--duration", "0.2", "--no-histograms"};
        auto run = [&](std::vector<std::string> args) {
            args.insert(args.begin(), {"run", "--db", db});
            args.insert(args.end(), quick.begin(), quick.end());
            return cli(args, dir_);
        };
        QCOMPARE(run({scenario, "--label", "base " + kEvil}), 0);
        QCOMPARE(run({scenario, "--label", "cand " + kEvil, "--set", "engine.burst=64"}), 0);
        QCOMPARE(cli({"run", "matrix.toml", "--db", db, "--label", "m " + kEvil, "--trials", "1",
                      "--duration", "0.2", "--no-histograms"},
                     dir_),
                 0);
        // A folded frame is one line and holds no ';'.
        std::string frame = kEvil;
        std::erase_if(frame, [](char c) { return c == '\n' || c == ';'; });
        std::ofstream(dir_ / "evil.folded") << "main;f" << frame << ";leaf\x1b[H 7\nmain;other 3\n";
        QCOMPARE(cli({"import", "folded", "evil.folded", "--db", db, "--label", "folded " + kEvil}, dir_), 0);
    }

    void everyPageOfEveryRun() {
        MainWindow w;
        w.resize(1400, 900);
        QCOMPARE(w.open_store(db_), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        Findings f;
        for (int id = 1; id <= 5; ++id) {
            QVERIFY(w.select_run(QString::number(id)));
            w.wait_until_loaded();
            for (const QString& page : kPages) {
                QVERIFY(w.show_page(page));
                QCoreApplication::processEvents();
                scan_window(f, w, QStringLiteral("run %1, page %2:").arg(id).arg(page));
            }
        }
        QVERIFY2(f.bad.isEmpty(), qPrintable(f.bad.mid(0, 20).join("\n")));
        // The names are there, shown: the escapes, and the markup as text.
        QVERIFY(f.shown.contains(QStringLiteral("\\x1b[2J")));
        QVERIFY(f.shown.contains(QStringLiteral("\\r\\n")));
        QVERIFY(f.shown.contains(QChar(0xFFFD)));
        QVERIFY(w.header()->text().contains(QStringLiteral("&lt;b&gt;x&lt;/b&gt;")));
        QVERIFY(f.tooltips > 0);
    }

    void comparisonPage() {
        MainWindow w;
        w.resize(1400, 900);
        QCOMPARE(w.open_store(db_), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.select_pair(QStringLiteral("1"), QStringLiteral("2")));
        w.wait_until_loaded();
        Findings f;
        for (const QString& page : {QStringLiteral("compare"), QStringLiteral("flame")}) {
            QVERIFY(w.show_page(page));
            QCoreApplication::processEvents();
            scan_window(f, w, "comparison, page " + page + ":");
        }
        QVERIFY2(f.bad.isEmpty(), qPrintable(f.bad.mid(0, 20).join("\n")));
        QVERIFY(f.shown.contains(QStringLiteral("\\x1b[2J")));
    }

    void experimentsPage() {
        MainWindow w;
        w.resize(1400, 900);
        QCOMPARE(w.open_store(db_), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.show_page(QStringLiteral("experiments")));
        ExperimentsPage* page = w.experiments_page();
        page->ensure_loaded();
        page->wait_until_loaded();
        QVERIFY(page->grid()->rowCount() > 0);
        Findings f;
        scan_window(f, w, QStringLiteral("experiments page:"));
        QVERIFY2(f.bad.isEmpty(), qPrintable(f.bad.mid(0, 20).join("\n")));
        QVERIFY(f.shown.contains(QStringLiteral("\\x1b[2J")));
    }

    void cleanupTestCase() { fs::remove_all(dir_); }
};

QTEST_MAIN(HostileNamesTest)
#include "hostile_names_test.moc"
