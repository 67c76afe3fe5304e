// One run's figures through every view. A real capture of the default
// scenario (3 trials), one trial then stalled by hand in the store (its busy
// cycles multiplied by 10, so a pooled ratio and the mean of the trials'
// ratios differ by far), read back through `show`, `report --format json`,
// the CSV trials and stages exports, the folded export and the desktop
// program's Stages and Flame graph models. All must give the same
// "all stages" cycles per received packet, the same per-stage figures and
// shares, and the same hottest-function shares. On a file store and, as
// "/postgres", on a server store.
#include <QProcess>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "db/connection.h"
#include "gui/models/stage_table_model.h"
#include "gui/run_loader.h"
#include "tests/support/qt_store_backends.h"

using namespace pathscope;
using namespace pathscope::gui;
namespace fs = std::filesystem;

namespace {

QString cli_output(const QStringList& args, int* status = nullptr) {
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(QStringLiteral(PATHSCOPE_CLI), args);
    p.waitForFinished(120000);
    if (status) *status = p.exitCode();
    return QString::fromUtf8(p.readAllStandardOutput());
}

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::string f;
    std::istringstream in(line);
    while (std::getline(in, f, sep)) out.push_back(f);
    return out;
}

// A CSV export (no quoted fields in these tables) as rows of named fields.
std::vector<std::map<std::string, std::string>> csv_rows(const QString& text) {
    std::istringstream in(text.toStdString());
    std::string line;
    std::getline(in, line);
    const auto header = split(line, ',');
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        const auto f = split(line, ',');
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < header.size() && i < f.size(); ++i) row[header[i]] = f[i];
        rows.push_back(row);
    }
    return rows;
}

}  // namespace

class FiguresE2eTest : public QObject {
    Q_OBJECT
  private slots:
    void everyViewGivesTheSameFigures() {
        const fs::path dir = fs::temp_directory_path() / ("pathscope_figures_" + std::to_string(getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
        PATHSCOPE_QT_NEED_STORE();
        const std::string db = test::new_test_store(dir, "figures.db");
        const QString qdb = QString::fromStdString(db);
        int status = -1;
        cli_output({"run", "--db", qdb, "--label", "figures", "--trials", "3", "--duration", "0.6",
                    "--no-histograms"},
                   &status);
        QCOMPARE(status, 0);

        // Stall the trial that received least: ten times its busy cycles, at
        // every stage (a pooled ratio weighs it by its few packets, the mean
        // of the trials' ratios as one trial in three).
        {
            db::Database raw(db, db::Database::Mode::read_write);
            raw.exec("UPDATE stage_counters SET cycles = idle_cycles + (cycles - idle_cycles) * 10 "
                     "WHERE trial = (SELECT trial FROM trials ORDER BY received LIMIT 1)");
        }

        // show: each stage's cyc/rx pkt (the 7th column) and "all stages".
        const std::string show =
            cli_output({"show", "1", "--db", qdb, "--no-histograms"}).toStdString();
        std::map<std::string, double> shown;
        std::map<std::string, double> shown_hottest;
        {
            std::istringstream in(show);
            bool stages = false, hottest = false;
            for (std::string line; std::getline(in, line);) {
                std::istringstream f(line);
                std::vector<std::string> w;
                for (std::string x; f >> x;) w.push_back(x);
                if (!w.empty() && w[0] == "stage" && line.find("cyc/rx pkt") != std::string::npos) {
                    stages = true;
                    continue;
                }
                if (stages && w.size() == 9) shown[w[0]] = std::stod(w[6]);
                if (stages && w.size() >= 2 && w[0] == "all" && w[1] == "stages") {
                    shown["all stages"] = std::stod(w[3]);
                    stages = false;
                }
                if (line.rfind("hottest functions", 0) == 0) {
                    hottest = true;
                    continue;
                }
                if (hottest && w.size() >= 2 && w[0].back() == '%')
                    shown_hottest[line.substr(line.find('%') + 3)] = std::stod(w[0]) / 100;
                else if (hottest)
                    hottest = false;
            }
        }
        QVERIFY2(shown.count("all stages") && shown.size() > 5, show.c_str());
        const double all = shown["all stages"];

        // The pooled ratio differs from the run's figure: the stall really
        // tests which definition each view uses.
        double pooled_cycles = 0, pooled_packets = 0;
        const auto trials = csv_rows(cli_output(
            {"export", "1", "--db", qdb, "--format", "csv", "--table", "trials", "-o", "-"}));
        const auto stage_rows = csv_rows(cli_output(
            {"export", "1", "--db", qdb, "--format", "csv", "--table", "stages", "-o", "-"}));
        QCOMPARE(trials.size(), size_t(3));
        std::map<int, double> received, busy_all;
        std::map<std::string, std::map<int, double>> busy;
        for (const auto& t : trials) {
            received[std::stoi(t.at("trial"))] = std::stod(t.at("received"));
            pooled_packets += std::stod(t.at("received"));
        }
        for (const auto& s : stage_rows) {
            if (s.at("seq") != "-1") continue;
            const double b = std::stod(s.at("cycles")) - std::stod(s.at("idle_cycles"));
            busy[s.at("stage")][std::stoi(s.at("trial"))] += b;
            busy_all[std::stoi(s.at("trial"))] += b;
            pooled_cycles += b;
        }
        auto mean_over_trials = [&](const std::map<int, double>& cycles) {
            double sum = 0;
            for (const auto& [t, rx] : received) sum += rx > 0 && cycles.count(t) ? cycles.at(t) / rx : 0;
            return sum / static_cast<double>(received.size());
        };
        const double from_csv = mean_over_trials(busy_all);
        qInfo("all stages: show %.1f, CSV %.3f, pooled %.3f cyc/rx pkt", all, from_csv,
              pooled_cycles / pooled_packets);
        // (20 times the printed precision that the views are compared at)
        QVERIFY(std::fabs(from_csv - pooled_cycles / pooled_packets) > 1.0);
        QVERIFY2(std::fabs(from_csv - all) <= 0.05, show.c_str());
        for (const auto& [stage, cycles] : busy)
            if (shown.count(stage)) QVERIFY(std::fabs(mean_over_trials(cycles) - shown[stage]) <= 0.05);

        // report --format json: the stage tree's values and the hottest functions.
        const QString report = QString::fromStdString((dir / "report.json").string());
        cli_output({"report", "1", "--db", qdb, "--format", "json", "-o", report});
        std::ifstream rj(report.toStdString());
        const nlohmann::json j = nlohmann::json::parse(rj);
        for (const auto& n : j.at("stages").at("nodes")) {
            const std::string path = n.at("path");
            const double v = n.at("base");
            if (path == "all")
                QVERIFY(std::fabs(v - all) <= 0.05);
            else if (shown.count(path))
                QVERIFY2(std::fabs(v - shown[path]) <= 0.05, path.c_str());
        }
        for (const auto& f : j.at("stacks").value("hottest", nlohmann::json::array())) {
            const std::string name = f.at("function");
            if (shown_hottest.count(name))
                QVERIFY2(std::fabs(f.at("base_share").get<double>() - shown_hottest[name]) <= 0.00005,
                         name.c_str());
        }

        // The folded export of the stage tree: each stage's share of it is
        // its share of "all stages".
        const std::string folded = cli_output({"export", "1", "--db", qdb, "--format", "folded",
                                               "--tree", "stages", "-o", "-"})
                                       .toStdString();
        std::map<std::string, double> weight;
        double folded_total = 0;
        {
            std::istringstream in(folded);
            for (std::string line; std::getline(in, line);) {
                const size_t sp = line.rfind(' ');
                weight[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
                folded_total += std::stod(line.substr(sp + 1));
            }
        }
        for (const auto& [stage, w] : weight)
            QVERIFY2(std::fabs(w / folded_total - shown[stage] / all) < 0.0005, stage.c_str());

        // The desktop program: the Stages model and the flame graph's tree.
        const LoadedRun run = load_run(db, 1);
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        StageTableModel model;
        model.set_summary(run.summary);
        for (int row = 0; row < model.rowCount(); ++row) {
            const QString name = model.stage(row).isEmpty() ? QStringLiteral("all stages") : model.stage(row);
            const double v = model.index(row, StageTableModel::CyclesPerPathPacket)
                                 .data(StageTableModel::SortRole)
                                 .toDouble();
            QVERIFY2(std::fabs(v - shown[name.toStdString()]) <= 0.05, qPrintable(name));
        }
        QVERIFY(run.stages);
        for (const auto& n : run.stages->nodes) {
            const std::string name = n.name == "all" ? "all stages" : n.name;
            if (shown.count(name)) QVERIFY2(std::fabs(n.base - shown[name]) <= 0.05, name.c_str());
        }
        if (run.stacks && !shown_hottest.empty()) {
            std::map<std::string, double> self;
            // Self share per function name: a node's base less its children's.
            for (const auto& n : run.stacks->nodes) {
                double children = 0;
                for (int c : n.children) children += run.stacks->nodes[static_cast<size_t>(c)].base;
                self[n.name] += (n.base - children) / run.stacks->nodes[0].base;
            }
            for (const auto& [name, share] : shown_hottest)
                QVERIFY2(std::fabs(self[name] - share) <= 0.00006, name.c_str());
        } else {
            qInfo("no sampled stacks in this run (perf_event sampling unavailable): shares not checked");
        }
        fs::remove_all(dir);
    }
};

QTEST_MAIN(FiguresE2eTest)
#include "figures_e2e_test.moc"
