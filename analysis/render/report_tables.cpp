#include "analysis/render/report_tables.h"

#include <cmath>
#include <cstdio>
#include <set>

#include <fmt/format.h>
#include <fmt/printf.h>

namespace pathscope::analysis {

namespace {

/// `v` by a printf format, in the C locale whatever the process's (fmt).
std::string num(const char* spec, double v) { return fmt::sprintf(spec, v); }

std::string value(double v) {
    if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 0.01)) return num("%.4g", v);
    return num("%.3f", v);
}

}  // namespace

std::string report_title(const Report& r) {
    if (!r.has_cand)
        return "pathscope report: " + r.base.label + " (run " + std::to_string(r.base.id) + ")";
    return "pathscope report: " + r.cand.label + " (run " + std::to_string(r.cand.id) +
           ") against " + r.base.label + " (run " + std::to_string(r.base.id) + ")";
}

Table environment_table(const Report& r) {
    Table t;
    t.header = r.has_cand ? std::vector<std::string>{"", "base", "candidate"}
                          : std::vector<std::string>{"", "value"};
    for (const auto& e : r.environment) {
        if (r.has_cand)
            t.rows.push_back({e[0], e[1], e[1] == e[2] ? "same" : e[2]});
        else
            t.rows.push_back({e[0], e[1]});
    }
    return t;
}

Table verdict_table(const Report& r) {
    Table t;
    if (!r.has_cand) {
        t.header = {"group", "metric", "unit", "mean", "stddev", "N"};
        for (const auto& m : r.base_metrics) {
            const Summary s = summarize(m.values);
            t.rows.push_back({m.group, m.name, m.unit, value(s.mean), value(s.stddev),
                              std::to_string(s.n)});
        }
        return t;
    }
    t.header = {"group", "metric", "unit", "base", "cand", "difference", "change", "verdict", "test"};
    for (const auto& v : r.verdicts)
        t.rows.push_back({v.base.group, v.base.name, v.base.unit, value(v.base_summary.mean),
                          value(v.cand_summary.mean), format_difference(v), format_change(v),
                          verdict_word(v) +
                              (v.warning.empty() && v.unreliable.empty() ? "" : " (!)"),
                          v.test});
    return t;
}

std::vector<std::string> verdict_notes(const Report& r) {
    std::vector<std::string> notes;
    if (!r.has_cand || r.verdicts.empty()) return notes;
    const Verdict& first = r.verdicts.front();
    const bool paired = first.test == kPairedT || first.test == kSignedRank;
    notes.push_back(fmt::format(
        "{}; means shown; verdicts at {}. Difference is cand - base +/- the interval the verdict "
        "was made from, and change is the same interval over the base mean (no difference when "
        "it holds 0). {} \"too few trials\": this N cannot prove a difference; \"unreliable\": "
        "the verdict rests on a trial whose worker lost its CPU.",
        paired ? fmt::format("N = {} blocks that both runs ran, interleaved", first.pairs)
               : fmt::format("N = {} vs {} trials", first.base_summary.n, first.cand_summary.n),
        family_note(r.verdicts, r.options.confidence),
        paired ? "The runs are cells of one experiment, so their trials pair by block: paired t "
                 "on the blocks' differences (Wilcoxon signed-rank for the skewed per-call "
                 "percentiles)."
               : "Student's t uses pooled variance; Mann-Whitney U (two-sided) judges the skewed "
                 "per-call percentiles."));
    std::set<std::string> seen;
    for (const auto& v : r.verdicts) {
        if (!v.unreliable.empty() && seen.insert(v.unreliable).second)
            notes.push_back("(!) unreliable: " + v.unreliable);
        if (!v.warning.empty() && seen.insert(v.warning).second) notes.push_back("(!) " + v.warning);
    }
    return notes;
}

Table stage_table(const Report& r) {
    Table t;
    // The unit of the figure: cycles per received packet, or per sent datagram.
    const std::string unit = r.transmit ? "cyc/tx pkt" : "cyc/rx pkt";
    t.header = {"stage", "base " + unit, "cand " + unit, "delta", "change", "noise"};
    if (!r.has_cand) t.header = {"stage", unit, "share"};
    const DiffNode& all = r.stages.nodes[0];
    for (int k : all.children) {
        const DiffNode& n = r.stages.nodes[k];
        if (!r.has_cand) {
            t.rows.push_back({n.name, num("%.2f", n.base),
                              num("%.1f%%", all.base > 0 ? n.base * 100 / all.base : 0)});
            continue;
        }
        t.rows.push_back({n.name, num("%.2f", n.base), num("%.2f", n.cand), num("%+.2f", n.delta),
                          std::isfinite(n.relative) ? num("%+.1f%%", n.relative * 100) : "new",
                          change_word(n)});
    }
    if (r.has_cand)
        t.rows.push_back({kAllStages, num("%.2f", all.base), num("%.2f", all.cand),
                          num("%+.2f", all.delta),
                          std::isfinite(all.relative) ? num("%+.1f%%", all.relative * 100) : "",
                          change_word(all)});
    else
        t.rows.push_back({kAllStages, num("%.2f", all.base), "100.0%"});
    return t;
}

Table queue_table(const Report& r) {
    Table t;
    t.header = {"run", "port", "dir", "queue", "packets", "share", "max/mean", "Jain", "flag"};
    auto add = [&](const std::vector<QueueSkew>& list, const std::string& side) {
        for (const auto& q : list)
            for (size_t i = 0; i < q.queues.size(); ++i)
                t.rows.push_back({side, q.port, q.dir, std::to_string(q.queues[i].queue),
                                  std::to_string(q.queues[i].packets),
                                  num("%.2f%%", q.queues[i].share * 100),
                                  i ? "" : num("%.2f", q.max_over_mean),
                                  i ? "" : num("%.3f", q.jain), i ? "" : q.flag});
    };
    add(r.base_queues, r.has_cand ? "base" : r.base.label);
    if (r.has_cand) add(r.cand_queues, "cand");
    return t;
}

Table hottest_table(const Report& r) {
    Table t;
    if (r.has_cand) {
        t.header = {"base", "cand", "delta", "noise", "function"};
        for (const auto& f : r.hottest)
            t.rows.push_back({num("%.2f%%", f.base * 100), num("%.2f%%", f.cand * 100),
                              num("%+.2f", (f.cand - f.base) * 100),
                              f.noise ? "within noise" : "changed", f.name});
    } else {
        t.header = {"self", "function"};
        for (const auto& f : r.hottest) t.rows.push_back({num("%.2f%%", f.base * 100), f.name});
    }
    return t;
}

}  // namespace pathscope::analysis
