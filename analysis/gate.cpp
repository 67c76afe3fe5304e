#include "analysis/gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/json_text.h"
#include "analysis/metric_names.h"
#include "analysis/run_metrics.h"
#include "analysis/run_summary.h"
#include "analysis/safe_text.h"

namespace pathscope::analysis {

namespace {

std::string run_name(const GateRun& r) {
    return "run " + std::to_string(r.id) + (r.label.empty() ? "" : " \"" + printable(r.label) + "\"");
}

// How much worse the candidate is, in % of the base (positive: worse).
double worse_by(const Verdict& v) { return v.base.higher_is_better ? -v.percent : v.percent; }

}  // namespace

int GateResult::exit_status() const {
    switch (outcome) {
        case GateOutcome::pass: return 0;
        case GateOutcome::fail: return 1;
        case GateOutcome::cannot_judge: return 2;
    }
    return 2;
}

const char* gate_outcome_text(GateOutcome o) {
    switch (o) {
        case GateOutcome::pass: return "pass";
        case GateOutcome::fail: return "fail";
        case GateOutcome::cannot_judge: return "cannot judge";
    }
    return "cannot judge";
}

GateResult judge_gate(const db::RunData& base, const db::RunData& cand, const GateOptions& opt,
                      const std::string& base_store, const std::string& cand_store) {
    GateResult g;
    g.options = opt;
    g.base = {base.info.id, base.info.label, base_store, base.rows.trials.size()};
    g.cand = {cand.info.id, cand.info.label, cand_store, cand.rows.trials.size()};
    if (base.info.uuid == cand.info.uuid)
        g.warnings.push_back("the baseline and the candidate are the same run (" +
                             run_name(g.base) + "): the gate compares it with itself");

    // The defaults: the base's rate (tx for a run that only sent) and the
    // whole path's cycles per packet; then what was asked, each once.
    std::vector<std::string> names{
        packet_basis(base.rows.trials).transmit ? kTxRate : kRxRate, kAllStages};
    for (const auto& n : opt.metrics)
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);

    const std::vector<Metric> bm = run_metrics(base), cm = run_metrics(cand);
    const WorkerLoad load[2] = {worker_load(base), worker_load(cand)};
    const bool starved[2] = {load[0].starved(), load[1].starved()};
    const bool same = base.info.uuid == cand.info.uuid;
    for (int side = 0; side < (same ? 1 : 2); ++side)
        if (starved[side])
            g.warnings.push_back(starved_warning(run_name(side ? g.cand : g.base), load[side]));

    bool any_regression = false, all_judged = true;
    for (const auto& name : names) {
        const Metric* b = find_metric(bm, name);
        const Metric* c = find_metric(cm, name);
        if (!b && !c) {
            std::string list;
            for (const auto& x : bm)
                if (x.group != kCallLatency) list += (list.empty() ? "" : ", ") + x.name;
            throw std::runtime_error("no metric '" + name + "' in either run (" +
                                     run_name(g.base) + " has: " + list + ")");
        }
        GateLine line;
        line.name = name;
        line.unit = (b ? b : c)->unit;
        if (!b || !c) {
            line.why_not = "only the " + std::string(b ? "baseline" : "candidate") + " has it";
        } else {
            line.verdict = compare_metrics({*b}, {*c}, opt.confidence).at(0);
            const size_t n = std::min(b->values.size(), c->values.size());
            if (n < opt.min_trials)
                line.why_not = fmt::format("too few trials: {} vs {} (the gate needs {} a side)",
                                           b->values.size(), c->values.size(), opt.min_trials);
            else if (!line.verdict.possible)
                line.why_not = "no test: " + line.verdict.warning;
            else if (b->group == std::string(kThroughput) && (starved[0] || starved[1]))
                line.why_not = "a starved worker: the rate is the workload's, not the engine's";
            else
                line.judged = true;
        }
        if (line.judged)
            line.regression = line.verdict.outcome == "worse" &&
                              worse_by(line.verdict) > opt.max_regression_percent;
        any_regression |= line.regression;
        all_judged &= line.judged;
        g.lines.push_back(std::move(line));
    }
    g.outcome = any_regression ? GateOutcome::fail
                : all_judged   ? GateOutcome::pass
                               : GateOutcome::cannot_judge;
    return g;
}

namespace {

std::string run_markdown(const GateRun& r) {
    return fmt::format("**{}** (run {}, {} trial{}, {})",
                       markdown_text(r.label.empty() ? "(no label)" : r.label), r.id, r.trials,
                       r.trials == 1 ? "" : "s", markdown_text(r.store));
}

// The verdict cell, Markdown already (the reason is outside text).
std::string line_verdict(const GateLine& l, double limit) {
    if (!l.judged) return "cannot judge: " + markdown_text(l.why_not);
    if (l.regression) return fmt::format("**regression** (worse by more than {:g}%)", limit);
    if (l.verdict.outcome == "worse") return fmt::format("worse, within the {:g}% allowed", limit);
    return markdown_text(l.verdict.outcome);
}

}  // namespace

std::string render_gate_markdown(const GateResult& g) {
    const double limit = g.options.max_regression_percent;
    std::string out = "## pathscope gate: ";
    size_t failing = 0;
    for (const auto& l : g.lines) failing += l.regression;
    switch (g.outcome) {
        case GateOutcome::pass: out += "pass\n\n"; break;
        case GateOutcome::fail:
            out += fmt::format("FAIL, {} metric{} regressed by more than {:g}%\n\n", failing,
                               failing == 1 ? "" : "s", limit);
            break;
        case GateOutcome::cannot_judge: out += "cannot judge\n\n"; break;
    }
    out += "Candidate " + run_markdown(g.cand) + " against baseline " + run_markdown(g.base) +
           fmt::format(", {:g}% confidence, a regression is worse with significance and by more "
                       "than {:g}%.\n\n",
                       g.options.confidence, limit);
    for (const auto& l : g.lines)
        if (l.regression)
            out += fmt::format("- **{}** ({}) regressed: {} ({:g}% confidence interval of the "
                               "change), {} → {}\n",
                               markdown_text(l.name), markdown_text(l.unit), format_change(l.verdict),
                               g.options.confidence, format_mean(l.verdict.base_summary),
                               format_mean(l.verdict.cand_summary));
    for (const auto& l : g.lines)
        if (!l.judged)
            out += "- cannot judge **" + markdown_text(l.name) + "**: " + markdown_text(l.why_not) +
                   "\n";
    for (const auto& w : g.warnings) out += "- warning: " + markdown_text(w) + "\n";
    if (failing || g.outcome != GateOutcome::pass || !g.warnings.empty()) out += "\n";
    out += "| metric | baseline | candidate | change | verdict |\n|---|---|---|---|---|\n";
    for (const auto& l : g.lines) {
        const bool compared = l.verdict.base_summary.n || l.verdict.cand_summary.n;
        out += "| " + markdown_text(l.name + " (" + l.unit + ")") + " | " +
               format_mean(l.verdict.base_summary) + " | " +
               format_mean(l.verdict.cand_summary) + " | " +
               (compared ? format_change(l.verdict) : "-") + " | " +
               line_verdict(l, limit) + " |\n";
    }
    return out;
}

std::string render_gate_json(const GateResult& g) {
    using nlohmann::ordered_json;
    auto run = [](const GateRun& r) {
        return ordered_json{{"id", r.id}, {"label", r.label}, {"store", r.store}, {"trials", r.trials}};
    };
    ordered_json doc;
    doc["outcome"] = gate_outcome_text(g.outcome);
    doc["exit_status"] = g.exit_status();
    doc["max_regression_percent"] = g.options.max_regression_percent;
    doc["confidence"] = g.options.confidence;
    doc["baseline"] = run(g.base);
    doc["candidate"] = run(g.cand);
    auto& ms = doc["metrics"] = ordered_json::array();
    for (const auto& l : g.lines) {
        ordered_json m{{"name", l.name}, {"unit", l.unit}, {"judged", l.judged},
                       {"regression", l.regression}};
        if (!l.judged) m["why_not"] = l.why_not;
        const Verdict& v = l.verdict;
        if (v.base_summary.n || v.cand_summary.n) {
            m["test"] = v.test;
            m["baseline"] = {{"n", v.base_summary.n}, {"mean", v.base_summary.mean},
                             {"stddev", v.base_summary.stddev}};
            m["candidate"] = {{"n", v.cand_summary.n}, {"mean", v.cand_summary.mean},
                              {"stddev", v.cand_summary.stddev}};
            m["change_percent"] = v.percent;
            if (v.test == kStudentT && v.possible)
                m["change_percent_half_width"] = v.percent_half_width;
            m["significant"] = v.significant;
            m["outcome"] = v.outcome;
        }
        ms.push_back(std::move(m));
    }
    doc["warnings"] = g.warnings;
    return dump_json(doc);
}

}  // namespace pathscope::analysis
