#include "analysis/verdicts/gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/text/json_text.h"
#include "analysis/figures/metric_names.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"
#include "analysis/text/safe_text.h"

namespace pathscope::analysis {

namespace {

std::string run_name(const GateRun& r) {
    return "run " + std::to_string(r.id) +
           (r.label.empty() ? "" : " \"" + printable(r.label) + "\"");
}

// How much worse the candidate is, in % of the base (positive: worse).
double worse_by(const Verdict& v) { return v.base.higher_is_better ? -v.percent : v.percent; }

/// Whether the verdict shows the candidate worse by more than `limit` %:
/// the whole interval of the change beyond it (t tests), or for a rank test,
/// which has no interval, its significant change beyond it.
bool proven_beyond(const Verdict& v, double limit) {
    if (!v.t_family()) return worse_by(v) > limit;
    return worse_by(v) - v.percent_half_width > limit;
}

/// "no metric 'x' in either run (run 1 has: rx rate, ...; and STAGE p50 or
/// STAGE p99 of any stage: ip6_input p99, ...)".
std::string unknown_metric(const std::string& name, const std::string& run,
                           const std::vector<Metric>& metrics) {
    std::string list, percentiles;
    for (const auto& x : metrics)
        (x.group == kCallLatency ? percentiles : list) +=
            ((x.group == kCallLatency ? percentiles : list).empty() ? "" : ", ") + x.name;
    return "no metric '" + name + "' in either run (" + run + " has: " + list +
           (percentiles.empty() ? ""
                                : "; and each stage's per-call cycle percentiles: " + percentiles) +
           ")";
}

/// Why a metric cannot be judged ("" when it can): too few trials, a side
/// that lost trials, an unreliable verdict (disturbed trials, a starved
/// worker's rate: run_metrics marks it).
std::string why_not_judged(const GateLine& line, const Metric* b, const Metric* c,
                           const GateOptions& opt) {
    if (!b || !c) return "only the " + std::string(b ? "baseline" : "candidate") + " has it";
    const Verdict& v = line.verdict;
    for (const auto& [m, side] : {std::pair{b, "baseline"}, std::pair{c, "candidate"}})
        if (m->present() < m->counted)
            return fmt::format("the {} lost trials: {} of its {} have a value", side, m->present(),
                               m->counted);
    const size_t n = std::min(v.base_summary.n, v.cand_summary.n);
    if (n < opt.min_trials)
        return fmt::format("too few trials: {} vs {} (the gate needs {} a side)", v.base_summary.n,
                           v.cand_summary.n, opt.min_trials);
    if (v.outcome == kTooFewTrials)
        return "too few trials: " +
               (v.warning.empty() ? v.test + " cannot reject at this N" : v.warning);
    if (v.outcome == kUnreliable) return "unreliable: " + v.unreliable;
    return "";
}

}  // namespace

int GateResult::exit_status() const {
    switch (outcome) {
        case GateOutcome::pass:
            return 0;
        case GateOutcome::fail:
            return 1;
        case GateOutcome::cannot_judge:
            return 2;
    }
    return 2;
}

const char* gate_outcome_text(GateOutcome o) {
    switch (o) {
        case GateOutcome::pass:
            return "pass";
        case GateOutcome::fail:
            return "fail";
        case GateOutcome::cannot_judge:
            return "cannot judge";
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
    const std::vector<Metric> bm = run_metrics(base), cm = run_metrics(cand);
    std::vector<std::string> names = headline_names(bm);
    for (const auto& n : opt.metrics)
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    // Each metric gets the verdict every other view gives it: judged with
    // all the runs' figures (the headline in a family of its own), not in a
    // family of the gate's few, which would make the gate's interval and
    // the report's differ for one figure.
    const std::vector<Verdict> all = compare_metrics(bm, cm, opt.confidence);
    const WorkerLoad load[2] = {worker_load(base), worker_load(cand)};
    const bool same = base.info.uuid == cand.info.uuid;
    for (int side = 0; side < (same ? 1 : 2); ++side)
        if (load[side].starved() || load[side].client_starved())
            g.warnings.push_back(starved_warning(run_name(side ? g.cand : g.base), load[side]));

    std::vector<GateLine> lines;
    for (const auto& name : names) {
        const Metric* b = find_metric(bm, name);
        const Metric* c = find_metric(cm, name);
        if (!b && !c) throw std::runtime_error(unknown_metric(name, run_name(g.base), bm));
        GateLine line;
        line.name = name;
        line.unit = (b ? b : c)->unit;
        if (b && c)
            for (const auto& v : all)
                if (v.base.group == b->group && v.base.name == b->name) line.verdict = v;
        lines.push_back(std::move(line));
    }
    bool any_regression = false, all_judged = true;
    for (auto& line : lines) {
        const Metric* b = find_metric(bm, line.name);
        const Metric* c = find_metric(cm, line.name);
        line.why_not = why_not_judged(line, b, c, opt);
        line.judged = line.why_not.empty();
        if (line.judged)
            line.regression = line.verdict.outcome == kWorse &&
                              proven_beyond(line.verdict, opt.max_regression_percent);
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

std::vector<Verdict> gate_verdicts(const GateResult& g) {
    std::vector<Verdict> v;
    for (const auto& l : g.lines) v.push_back(l.verdict);
    return v;
}

std::string run_markdown(const GateRun& r) {
    return fmt::format("**{}** (run {}, {} trial{}, {})",
                       markdown_text(r.label.empty() ? "(no label)" : r.label), r.id, r.trials,
                       r.trials == 1 ? "" : "s", markdown_text(r.store));
}

// The verdict cell, Markdown already (the reason is outside text).
std::string line_verdict(const GateLine& l, double limit) {
    if (!l.judged) return "cannot judge: " + markdown_text(l.why_not);
    if (l.regression)
        return fmt::format("**regression** (its whole interval is beyond the {:g}% allowed)",
                           limit);
    if (l.verdict.outcome == kWorse)
        return fmt::format("worse, not proven beyond the {:g}% allowed", limit);
    return markdown_text(l.verdict.outcome);
}

}  // namespace

std::string render_gate_markdown(const GateResult& g) {
    const double limit = g.options.max_regression_percent;
    std::string out = "## pathscope gate: ";
    size_t failing = 0;
    for (const auto& l : g.lines) failing += l.regression;
    switch (g.outcome) {
        case GateOutcome::pass:
            out += "pass\n\n";
            break;
        case GateOutcome::fail:
            out += fmt::format("FAIL, {} metric{} regressed by more than {:g}%\n\n", failing,
                               failing == 1 ? "" : "s", limit);
            break;
        case GateOutcome::cannot_judge:
            out += "cannot judge\n\n";
            break;
    }
    out += "Candidate " + run_markdown(g.cand) + " against baseline " + run_markdown(g.base) +
           fmt::format(
               ", {}. A regression is a change whose whole interval is worse than the "
               "{:g}% allowed.\n\n",
               family_note(gate_verdicts(g), g.options.confidence), limit);
    for (const auto& l : g.lines)
        if (l.regression)
            out += fmt::format(
                "- **{}** ({}) regressed: {} ({:.4g}% confidence interval of the "
                "change, {}), {} → {} (mean ±sd)\n",
                markdown_text(l.name), markdown_text(l.unit), format_change(l.verdict),
                l.verdict.confidence, l.verdict.test, format_mean(l.verdict.base_summary),
                format_mean(l.verdict.cand_summary));
    for (const auto& l : g.lines)
        if (!l.judged)
            out += "- cannot judge **" + markdown_text(l.name) + "**: " + markdown_text(l.why_not) +
                   "\n";
    for (const auto& w : g.warnings) out += "- warning: " + markdown_text(w) + "\n";
    if (failing || g.outcome != GateOutcome::pass || !g.warnings.empty()) out += "\n";
    // ± is a spread (the trials' sd), +/- an interval (the change's): named
    // in the header, so that a reader does not take one for the other.
    out += fmt::format(
        "| metric | baseline (mean ±sd) | candidate (mean ±sd) | change (+/- {:.4g}% interval) "
        "| verdict |\n|---|---|---|---|---|\n",
        g.options.confidence);
    for (const auto& l : g.lines) {
        const bool compared = l.verdict.base_summary.n || l.verdict.cand_summary.n;
        out += "| " + markdown_text(l.name + " (" + l.unit + ")") + " | " +
               format_mean(l.verdict.base_summary) + " | " + format_mean(l.verdict.cand_summary) +
               " | " + (compared ? format_change(l.verdict) : "-") + " | " +
               line_verdict(l, limit) + " |\n";
    }
    return out;
}

std::string render_gate_json(const GateResult& g) {
    using nlohmann::ordered_json;
    auto run = [](const GateRun& r) {
        return ordered_json{
            {"id", r.id}, {"label", r.label}, {"store", r.store}, {"trials", r.trials}};
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
        ordered_json m{
            {"name", l.name}, {"unit", l.unit}, {"judged", l.judged}, {"regression", l.regression}};
        if (!l.judged) m["why_not"] = l.why_not;
        const Verdict& v = l.verdict;
        if (v.base_summary.n || v.cand_summary.n) {
            m["test"] = v.test;
            m["baseline"] = {{"n", v.base_summary.n},
                             {"mean", v.base_summary.mean},
                             {"stddev", v.base_summary.stddev}};
            m["candidate"] = {{"n", v.cand_summary.n},
                              {"mean", v.cand_summary.mean},
                              {"stddev", v.cand_summary.stddev}};
            m["change_percent"] = v.percent;
            if (v.t_family() && v.possible) {
                m["change_percent_half_width"] = v.percent_half_width;
                m["interval_confidence"] = v.confidence;
            }
            m["p"] = v.p;
            m["q"] = v.q;
            m["significant"] = v.significant;
            m["outcome"] = v.outcome;
        }
        ms.push_back(std::move(m));
    }
    doc["warnings"] = g.warnings;
    return dump_json(doc);
}

}  // namespace pathscope::analysis
