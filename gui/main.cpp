// pathscope-gui [STORE] [--screenshot PAGE -o FILE.png [--run REF] [--size WxH]]
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QTableView>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gui/main_window.h"
#include "gui/pages/experiments_page.h"
#include "gui/models/run_list_model.h"

using pathscope::gui::ExperimentsPage;
using pathscope::gui::MainWindow;

namespace {

/// Whether the arguments ask for something that needs no window: help,
/// the version, or a screenshot.
bool windowless(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        for (const char* a : {"-h", "--help", "--help-all", "-v", "--version", "--screenshot"})
            if (std::strcmp(argv[i], a) == 0 || std::strncmp(argv[i], "--screenshot=", 13) == 0)
                return true;
    return false;
}

/// Picks Qt's platform before QApplication exists: with no display (no X11
/// or Wayland socket named in the environment) and no platform chosen, help
/// and screenshots render offscreen, and the window itself is refused with a
/// message, where Qt would abort with "could not connect to display".
/// Returns false when the program cannot run here.
bool choose_platform(int argc, char** argv) {
    auto set = [](const char* v) { return v && *v; };
    if (set(std::getenv("QT_QPA_PLATFORM")) || set(std::getenv("DISPLAY")) ||
        set(std::getenv("WAYLAND_DISPLAY")))
        return true;
    if (windowless(argc, argv)) {
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
        return true;
    }
    std::fprintf(stderr,
                 "pathscope-gui: no display (DISPLAY and WAYLAND_DISPLAY are unset). Run it in a "
                 "desktop session, or render a page without one: pathscope-gui STORE "
                 "--screenshot stages -o stages.png\n");
    return false;
}

}  // namespace

/// Qt's offscreen platform says, on every screenshot, what it cannot do for
/// a window that is never shown (propagateSizeHints) and that it made a
/// runtime folder: neither is the user's concern, so neither is printed.
/// Every other message passes as Qt would print it.
void quiet_offscreen_notes(QtMsgType type, const QMessageLogContext& context, const QString& msg) {
    if (msg.contains(QLatin1String("propagateSizeHints()")) ||
        msg.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")))
        return;
    std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, msg)));
}

namespace {

/// The program's options besides the store.
struct Options {
    QCommandLineOption shot, out, run, baseline, candidate, size, experiment, by;
};

Options gui_options() {
    const QCommandLineOption shot(QStringLiteral("screenshot"),
                                  QStringLiteral("render PAGE (runs, stages, path, flame, stacks, queues, "
                                                 "histograms, timeseries, traces, compare, experiments; of the "
                                                 "sampled stacks: topdown, bottomup, callers) to a PNG and exit "
                                                 "(experiments: the shown run's experiment, or --experiment)"),
                                  QStringLiteral("PAGE"));
    const QCommandLineOption out({QStringLiteral("o"), QStringLiteral("output")},
                                 QStringLiteral("the PNG to write"), QStringLiteral("FILE"));
    const QCommandLineOption run(QStringLiteral("run"),
                                 QStringLiteral("the run to show: id or label (default: the latest)"),
                                 QStringLiteral("REF"));
    const QCommandLineOption baseline(QStringLiteral("baseline"),
                                      QStringLiteral("compare: the base run (id or label)"),
                                      QStringLiteral("REF"));
    const QCommandLineOption candidate(QStringLiteral("candidate"),
                                       QStringLiteral("compare: the candidate run (id or label)"),
                                       QStringLiteral("REF"));
    const QCommandLineOption size(QStringLiteral("size"),
                                  QStringLiteral("window size (default 1400x860)"),
                                  QStringLiteral("WxH"));
    const QCommandLineOption experiment(
        QStringLiteral("experiment"),
        QStringLiteral("experiments: the experiment to judge (its id; default: the shown run's, "
                       "else the newest)"),
        QStringLiteral("ID"));
    const QCommandLineOption by(QStringLiteral("by"),
                                QStringLiteral("experiments: the setting to judge (default: the "
                                               "first that varies)"),
                                QStringLiteral("SETTING"));
    return {shot, out, run, baseline, candidate, size, experiment, by};
}

/// --screenshot PAGE: shows the asked run, pair or experiment on PAGE,
/// writes the window as a PNG and returns the exit status.
int screenshot(MainWindow& w, const QCommandLineParser& cli, const Options& o,
               const QString& store, const QString& error) {
    if (!error.isEmpty()) {
        std::fprintf(stderr, "pathscope-gui: %s\n", qPrintable(error));
        return 1;
    }
    if (!cli.isSet(o.out)) {
        std::fprintf(stderr, "pathscope-gui: --screenshot needs -o FILE.png\n");
        return 2;
    }
    if (cli.isSet(o.baseline) != cli.isSet(o.candidate)) {
        // One side alone would be looked up as the pair (REF, "") and "not found".
        std::fprintf(stderr,
                     "pathscope-gui: --%s is missing: a comparison needs both runs, as "
                     "--baseline REF --candidate REF (a run id or label; pathscope list "
                     "shows them)\n",
                     cli.isSet(o.baseline) ? "candidate" : "baseline");
        return 2;
    }
    const QString page = cli.value(o.shot);
    const QString ref = cli.isSet(o.run) ? cli.value(o.run) : QString();
    if (page == QLatin1String("compare") && !cli.isSet(o.baseline)) {
        // A picture of "select two runs" helps no one: say what it needs.
        std::fprintf(stderr,
                     "pathscope-gui: --screenshot compare needs the two runs: --baseline REF "
                     "--candidate REF (a run id or label; pathscope list --db %s shows them)\n",
                     qPrintable(store));
        return 2;
    }
    if (cli.isSet(o.baseline) || cli.isSet(o.candidate)) {
        if (!w.select_pair(cli.value(o.baseline), cli.value(o.candidate))) {
            std::fprintf(stderr, "pathscope-gui: no runs '%s' and '%s' in %s\n",
                         qPrintable(cli.value(o.baseline)), qPrintable(cli.value(o.candidate)),
                         qPrintable(store));
            return 1;
        }
        if (!w.show_page(page)) {
            std::fprintf(stderr, "pathscope-gui: no page '%s'\n", qPrintable(page));
            return 2;
        }
    } else if (page != QLatin1String("runs")) {
        const bool picked = ref.isEmpty()
                                ? w.select_run(QString::number(
                                      w.runs()->rowCount() ? w.runs()->run(w.runs()->rowCount() - 1)->id : 0))
                                : w.select_run(ref);
        if (!picked) {
            std::fprintf(stderr, "pathscope-gui: no run '%s' in %s\n", qPrintable(ref),
                         qPrintable(store));
            return 1;
        }
        if (!w.show_page(page)) {
            std::fprintf(stderr,
                         "pathscope-gui: no page '%s' (runs, stages, path, flame, stacks, topdown, bottomup, callers, queues, "
                         "histograms, timeseries, traces, compare or experiments)\n",
                         qPrintable(page));
            return 2;
        }
    }
    if (cli.isSet(o.experiment) || cli.isSet(o.by)) {
        ExperimentsPage* e = w.experiments_page();
        const QString id = cli.isSet(o.experiment) ? cli.value(o.experiment)
                                                 : e->experiment_box()->currentData().toString();
        if (!e->choose(id, cli.value(o.by))) {
            std::fprintf(stderr,
                         "pathscope-gui: no experiment '%s' with a setting '%s' that varies in "
                         "%s (pathscope list shows the experiments)\n",
                         qPrintable(id), qPrintable(cli.value(o.by)), qPrintable(store));
            return 1;
        }
    }
    w.show();
    w.wait_until_loaded();
    w.show_page(page);  // loading a comparison turns to its page; the asked one wins
    QApplication::processEvents();
    if (!w.grab().save(cli.value(o.out))) {
        std::fprintf(stderr, "pathscope-gui: cannot write %s\n", qPrintable(cli.value(o.out)));
        return 1;
    }
    std::printf("wrote %s\n", qPrintable(cli.value(o.out)));
    return 0;
}
}  // namespace

int main(int argc, char** argv) {
    if (!choose_platform(argc, argv)) return 1;
    if (std::getenv("QT_QPA_PLATFORM") && std::strcmp(std::getenv("QT_QPA_PLATFORM"), "offscreen") == 0)
        qInstallMessageHandler(quiet_offscreen_notes);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("pathscope"));
    QApplication::setApplicationName(QStringLiteral("pathscope-gui"));
    QApplication::setApplicationVersion(QStringLiteral(PATHSCOPE_VERSION_TEXT));
    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral(
        "pathscope's desktop program: the runs of a store as stage tables and flame graphs."));
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument(QStringLiteral("STORE"),
                              QStringLiteral("the store to open (default: pathscope.db here)"));
    const Options o = gui_options();
    cli.addOptions({o.shot, o.out, o.run, o.baseline, o.candidate, o.size, o.experiment, o.by});
    cli.process(app);

    const QStringList args = cli.positionalArguments();
    const QString store = args.isEmpty() ? QStringLiteral("pathscope.db") : args[0];
    const bool headless = cli.isSet(o.shot);
    MainWindow w;
    if (cli.isSet(o.size)) {
        const QStringList wh = cli.value(o.size).split('x');
        if (wh.size() != 2 || wh[0].toInt() < 200 || wh[1].toInt() < 150) {
            std::fprintf(stderr, "pathscope-gui: --size takes WIDTHxHEIGHT, like 1400x860\n");
            return 2;
        }
        w.resize(wh[0].toInt(), wh[1].toInt());
    }
    const QString error = w.open_store(store, !headless);
    if (headless) return screenshot(w, cli, o, store, error);
    w.show();
    if (error.isEmpty() && w.runs()->rowCount())
        w.select_run(QString::number(w.runs()->run(w.runs()->rowCount() - 1)->id));
    return app.exec();
}
