#include "analysis/experiment.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "analysis/flame_svg.h"
#include "analysis/text_builder.h"
#include "analysis/json_text.h"
#include "analysis/ministat.h"
#include "analysis/report_tables.h"
#include "analysis/run_metrics.h"
#include "analysis/run_summary.h"
#include "analysis/safe_text.h"

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

std::string verdict_text(const Verdict& v) { return verdict_word(v); }

namespace {

/// `key`'s trailing parts, shortest first: "engine.route_cache" gives
/// "cache", "route_cache", "engine.route_cache".
std::vector<std::string> key_suffixes(const std::string& key) {
    std::vector<std::string> out;
    for (size_t i = key.size(); i-- > 0;)
        if (key[i] == '.' || key[i] == '_') out.push_back(key.substr(i + 1));
    out.push_back(key);
    return out;
}

}  // namespace

std::string cell_difference(const std::string& cell, const std::vector<std::string>& cells) {
    // The keys whose value is not the same in every cell, in first-seen order.
    std::vector<std::string> keys;
    std::map<std::string, std::set<std::string>> values;
    std::map<std::string, size_t> present;
    for (const auto& c : cells)
        for (const auto& [k, v] : cell_settings(c)) {
            if (!values.count(k)) keys.push_back(k);
            values[k].insert(v);
            ++present[k];
        }
    std::set<std::string> varying;
    for (const auto& k : keys)
        if (values[k].size() > 1 || present[k] < cells.size()) varying.insert(k);
    const auto mine = cell_settings(cell);
    std::vector<std::string> shown;
    for (const auto& [k, v] : mine)
        if (varying.count(k)) shown.push_back(k);
    if (shown.empty())
        for (const auto& [k, v] : mine) shown.push_back(k);
    // Each key's shortest suffix that no other key (of the whole
    // experiment, so that every cell reads alike) ends in.
    auto short_key = [&](const std::string& key) {
        for (const auto& suffix : key_suffixes(key)) {
            bool unique = true;
            for (const auto& other : keys) {
                if (other == key) continue;
                const auto os = key_suffixes(other);
                if (std::find(os.begin(), os.end(), suffix) != os.end()) unique = false;
            }
            if (unique) return suffix;
        }
        return key;
    };
    std::string out;
    for (const auto& [k, v] : mine)
        if (std::find(shown.begin(), shown.end(), k) != shown.end())
            out += (out.empty() ? "" : " ") + short_key(k) + "=" + v;
    return out;
}

std::vector<std::pair<std::string, std::string>> cell_settings(const std::string& cell) {
    std::vector<std::pair<std::string, std::string>> out;
    std::istringstream in(cell);
    for (std::string line; std::getline(in, line);) {
        const auto eq = line.find('=');
        if (eq != std::string::npos) out.emplace_back(line.substr(0, eq), line.substr(eq + 1));
    }
    return out;
}

ExperimentComparison compare_experiment(const std::vector<db::RunData>& runs, const std::string& by,
                                        const std::vector<std::string>& metric_names,
                                        double confidence) {
    ExperimentComparison e;
    e.by = by;
    e.confidence = confidence;
    e.runs = runs.size();
    if (runs.empty()) throw std::runtime_error("the experiment has no runs");
    e.experiment = runs[0].info.experiment;
    // Each run's value of `by` and the rest of its cell.
    std::map<std::string, std::map<std::string, const db::RunData*>> by_others;
    std::vector<std::string> others_order;
    std::set<std::string> known;
    for (const auto& run : runs) {
        std::string value, others;
        bool has = false;
        for (const auto& [k, v] : cell_settings(run.info.cell)) {
            known.insert(k);
            if (k == by) {
                value = v, has = true;
            } else {
                others += (others.empty() ? "" : " ") + k + "=" + v;
            }
        }
        if (!has) continue;
        if (std::find(e.values.begin(), e.values.end(), value) == e.values.end())
            e.values.push_back(value);
        if (!by_others.count(others)) others_order.push_back(others);
        by_others[others][value] = &run;
    }
    if (e.values.empty()) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw std::runtime_error("no cell of experiment " + e.experiment + " sets '" + by +
                                 "' (its settings: " + (list.empty() ? "none" : list) + ")");
    }
    if (e.values.size() < 2)
        throw std::runtime_error("'" + by + "' takes one value only (" + e.values[0] +
                                 ") in experiment " + e.experiment + ": nothing to compare");
    // The metrics: as asked, or the run's rate and the whole path's cycles.
    const std::vector<Metric> first = run_metrics(runs[0]);
    std::vector<std::string> names = metric_names;
    if (names.empty())
        names = {packet_basis(runs[0].rows.trials).transmit ? kTxRate : kRxRate, kAllStages};
    // Each asked once; a metric some cells lack (demux hits where early
    // demux is off) is judged where both sides of a cell have it.
    std::vector<std::vector<Metric>> all;
    for (const auto& r : runs) all.push_back(run_metrics(r));
    for (const auto& n : names) {
        if (std::find(e.metrics.begin(), e.metrics.end(), n) != e.metrics.end()) continue;
        const Metric* m = nullptr;
        for (const auto& ms : all)
            if (!m) m = find_metric(ms, n);
        if (!m) {
            std::string list;
            for (const auto& x : first)
                if (x.group != kCallLatency) list += (list.empty() ? "" : ", ") + x.name;
            throw std::runtime_error("no metric '" + n + "' in any run of experiment " +
                                     e.experiment + " (run " + std::to_string(runs[0].info.id) +
                                     " has: " + list + ")");
        }
        e.metrics.push_back(n);
        e.units.push_back(m->unit);
    }
    for (const auto& others : others_order) {
        ExperimentRow row;
        row.others = others.empty() ? "(none)" : others;
        const auto& cells = by_others[others];
        std::vector<std::vector<Metric>> metrics;
        for (const auto& v : e.values) {
            auto it = cells.find(v);
            row.run_ids.push_back(it == cells.end() ? 0 : it->second->info.id);
            metrics.push_back(it == cells.end() ? std::vector<Metric>{} : run_metrics(*it->second));
        }
        for (const auto& v : e.values) {
            auto it = cells.find(v);
            row.labels.push_back(it == cells.end() ? "" : it->second->info.label);
        }
        row.values.resize(e.metrics.size());
        for (size_t m = 0; m < e.metrics.size(); ++m)
            for (size_t v = 0; v < e.values.size(); ++v) {
                const Metric* x = find_metric(metrics[v], e.metrics[m]);
                row.values[m].push_back(x ? x->values : std::vector<double>{});
            }
        row.verdicts.resize(e.metrics.size());
        for (size_t m = 0; m < e.metrics.size(); ++m)
            for (size_t v = 1; v < e.values.size(); ++v) {
                const Metric* base = find_metric(metrics[0], e.metrics[m]);
                const Metric* cand = find_metric(metrics[v], e.metrics[m]);
                Verdict vd;
                if (base && cand) vd = judge_metric(*base, *cand, confidence);
                if (base) vd.base_summary = summarize(base->values);
                if (cand) vd.cand_summary = summarize(cand->values);
                if (vd.outcome.empty()) vd.outcome = kTooFewTrials;
                row.verdicts[m].push_back(vd);
            }
        e.rows.push_back(std::move(row));
    }
    // Every cell's verdicts are one family: many cells at 95% each would
    // find a difference somewhere by chance.
    std::vector<Verdict*> family;
    for (auto& row : e.rows)
        for (auto& per_metric : row.verdicts)
            for (auto& v : per_metric)
                if (v.possible) family.push_back(&v);
    adjust_family(family, confidence);
    return e;
}

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
