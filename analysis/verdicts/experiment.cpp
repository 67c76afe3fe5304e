#include "analysis/verdicts/experiment.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"
#include "analysis/text/safe_text.h"

namespace pathscope::analysis {

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

}  // namespace pathscope::analysis
