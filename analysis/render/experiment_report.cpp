#include "analysis/render/experiment_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "analysis/render/flame_svg.h"
#include "analysis/text/text_builder.h"
#include "analysis/text/json_text.h"
#include "analysis/stats/ministat.h"
#include "analysis/render/report_tables.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"
#include "analysis/text/safe_text.h"

namespace pathscope::analysis {

namespace {

std::string mean_text(const Verdict& v, bool cand) {
    return format_mean(cand ? v.cand_summary : v.base_summary);
}

Table experiment_table(const ExperimentComparison& e) {
    Table t;
    t.header = {"cell (other settings)", "metric"};
    t.header.push_back(e.by + "=" + e.values[0]);
    for (size_t v = 1; v < e.values.size(); ++v) {
        t.header.push_back(e.by + "=" + e.values[v]);
        t.header.push_back("change");
        t.header.push_back("verdict");
    }
    for (const auto& row : e.rows)
        for (size_t m = 0; m < e.metrics.size(); ++m) {
            std::vector<std::string> r{m == 0 ? row.others : "", e.metrics[m] + " (" + e.units[m] + ")"};
            for (size_t v = 0; v + 1 < e.values.size(); ++v) {
                const Verdict& vd = row.verdicts[m][v];
                if (v == 0) r.push_back(mean_text(vd, false));
                r.push_back(mean_text(vd, true));
                r.push_back(format_change(vd));
                r.push_back(verdict_text(vd));
            }
            t.rows.push_back(std::move(r));
        }
    return t;
}

std::string title(const ExperimentComparison& e) {
    return "Experiment " + e.experiment + ": " + e.by + " judged in every cell";
}

std::string method_note(const ExperimentComparison& e) {
    std::string values;
    for (size_t v = 1; v < e.values.size(); ++v) values += (v > 1 ? ", " : "") + e.values[v];
    std::vector<Verdict> all;
    std::set<std::string> tests;
    for (const auto& row : e.rows)
        for (const auto& per_metric : row.verdicts)
            for (const auto& v : per_metric) {
                all.push_back(v);
                if (v.possible) tests.insert(v.test);
            }
    std::string test_names;
    for (const auto& t : tests) test_names += (test_names.empty() ? "" : ", ") + t;
    return fmt::format(
        "{} runs. In each cell (the other settings fixed), {} = {} is compared with {} = {} "
        "(the baseline): mean ± standard deviation over the trials, change with the half-width "
        "of its interval; the cells' trials ran interleaved in blocks, and the tests ({}) pair "
        "them by block. Verdicts at {}; \"no difference\" when the interval holds 0, \"too few "
        "trials\" when this N cannot prove one, \"unreliable\" when a trial was disturbed.",
        e.runs, e.by, values, e.by, e.values[0], test_names.empty() ? "none" : test_names,
        family_note(all, e.confidence));
}

}  // namespace

std::string render_experiment_text(const ExperimentComparison& e) {
    Table t = experiment_table(e);
    // Cells hold setting values from the scenario: one line each, controls shown.
    for (auto& h : t.header) h = printable(h);
    for (auto& r : t.rows)
        for (auto& c : r) c = printable(c);
    std::vector<size_t> width(t.header.size(), 0);
    for (size_t c = 0; c < t.header.size(); ++c) width[c] = t.header[c].size();
    for (const auto& r : t.rows)
        for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    std::string out = printable(title(e)) + "\n\n";
    auto line = [&](const std::vector<std::string>& cells) {
        std::string l;
        for (size_t c = 0; c < cells.size(); ++c)
            l += c < 2 ? fmt::format("{:<{}}  ", cells[c], width[c])
                       : fmt::format("{:>{}}  ", cells[c], width[c]);
        while (!l.empty() && l.back() == ' ') l.pop_back();
        out += l + "\n";
    };
    line(t.header);
    for (const auto& r : t.rows) line(r);
    out += "\n" + fold_lines(method_note(e));
    out += "runs:";
    for (const auto& row : e.rows) {
        out += "\n  " + printable(row.others) + ":";
        for (size_t v = 0; v < e.values.size(); ++v)
            out += " " + printable(e.by + "=" + e.values[v]) + " run " + std::to_string(row.run_ids[v]);
    }
    return printable_lines(out) + "\n";
}

std::string render_experiment_ministat(const ExperimentComparison& e) {
    std::string out;
    MinistatOptions mo;
    mo.confidence = e.confidence;
    for (const auto& row : e.rows)
        for (size_t m = 0; m < e.metrics.size(); ++m) {
            const std::string h =
                printable(row.others + ": " + e.metrics[m] + " (ministat, " + e.units[m] + ")");
            out += "\n" + h + "\n" + std::string(h.size(), '-') + "\n";
            // The same sets as report's plot of two runs: labelled by run, with the unit.
            std::vector<DataSet> sets;
            std::string missing;
            for (size_t v = 0; v < e.values.size() && sets.size() < kMaxDataSets; ++v) {
                const auto x = present_values(row.values[m][v]);
                if (x.size() < 3)
                    missing += fmt::format("  {}: {}\n", printable(e.by + "=" + e.values[v]),
                                           row.run_ids[v] == 0
                                               ? std::string("no run in this cell")
                                               : fmt::format("{} trial(s) of run {}, ministat needs 3",
                                                             x.size(), row.run_ids[v]));
                else
                    sets.push_back({printable(row.labels[v]) + " (" + e.units[m] + ")", x});
            }
            // Verdicts are against the first set: without the baseline there is none to give.
            const bool baseline = present_values(row.values[m][0]).size() >= 3;
            if (baseline && sets.size() >= 2) out += render_ministat(sets, mo);
            if (!missing.empty())
                out += (baseline && sets.size() >= 2
                            ? std::string("left out (fewer than 3 trials):\n")
                            : "no ministat block for " + printable(e.metrics[m]) +
                                  ": ministat needs 3 trials in the first cell and another\n") +
                       missing;
        }
    // Folded at 80 columns as report's text is, so that a block reads the same in both.
    return fold_lines(printable_lines(out), 80);
}

std::string render_experiment_markdown(const ExperimentComparison& e) {
    return "## " + markdown_text(title(e)) + "\n\n" + markdown_table(experiment_table(e)) + "\n" +
           markdown_text(method_note(e)) + "\n";
}

std::string render_experiment_html(const ExperimentComparison& e) {
    const Table t = experiment_table(e);
    std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    xml_escape(title(e)) + "</title>\n<style>\n" + kReportStyle +
                    "\n</style>\n</head>\n<body>\n<h1>" + xml_escape(title(e)) + "</h1>\n";
    // Colour by the first comparison's verdict column.
    o += html_table(t, 5);
    o += "<p>" + xml_escape(method_note(e)) + "</p>\n</body>\n</html>\n";
    return o;
}

std::string render_experiment_json(const ExperimentComparison& e) {
    nlohmann::ordered_json doc;
    doc["experiment"] = e.experiment;
    doc["by"] = e.by;
    doc["values"] = e.values;
    doc["confidence"] = e.confidence;
    doc["runs"] = e.runs;
    doc["fdr"] = "Benjamini-Hochberg over every cell's verdicts";
    auto& rows = doc["rows"] = nlohmann::ordered_json::array();
    for (const auto& row : e.rows) {
        nlohmann::ordered_json r;
        r["cell"] = row.others;
        r["run_ids"] = row.run_ids;
        auto& ms = r["metrics"] = nlohmann::ordered_json::array();
        for (size_t m = 0; m < e.metrics.size(); ++m) {
            nlohmann::ordered_json mj;
            mj["name"] = e.metrics[m];
            mj["unit"] = e.units[m];
            const Verdict& first = row.verdicts[m][0];
            mj["baseline"] = {{"value", e.values[0]},
                              {"n", first.base_summary.n},
                              {"mean", first.base_summary.mean},
                              {"stddev", first.base_summary.stddev}};
            auto& cands = mj["against"] = nlohmann::ordered_json::array();
            for (size_t v = 1; v < e.values.size(); ++v) {
                const Verdict& vd = row.verdicts[m][v - 1];
                cands.push_back({{"value", e.values[v]},
                                 {"n", vd.cand_summary.n},
                                 {"mean", vd.cand_summary.mean},
                                 {"stddev", vd.cand_summary.stddev},
                                 {"change_percent", vd.percent},
                                 {"half_width_percent", vd.percent_half_width},
                                 {"interval_confidence", vd.confidence},
                                 {"test", vd.test},
                                 {"pairs", vd.pairs},
                                 {"p", vd.p},
                                 {"q", vd.q},
                                 {"significant", vd.significant},
                                 {"verdict", verdict_text(vd)},
                                 {"unreliable", vd.unreliable}});
            }
            ms.push_back(std::move(mj));
        }
        rows.push_back(std::move(r));
    }
    return dump_json(doc);
}

}  // namespace pathscope::analysis
