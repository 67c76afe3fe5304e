// The report as plain text for mailing lists and review comments: every line
// fits in 80 columns.
#include <cmath>

#include <fmt/printf.h>

#include "analysis/render/report.h"
#include "analysis/text/safe_text.h"
#include "analysis/text/text_builder.h"

namespace pathscope::analysis {

namespace {

constexpr size_t kColumns = 80;

struct Out : TextBuilder {
    void raw(const std::string& s) { text += s; }
    void heading(const std::string& h) {
        text += "\n" + h + "\n" + std::string(h.size(), '-') + "\n";
    }
};

// The tail of a long name is the part that tells functions apart; cut
// where a UTF-8 character starts.
std::string fit(const std::string& name, size_t width) {
    const std::string s = printable(name);
    if (s.size() <= width) return s;
    size_t from = s.size() - (width - 1);
    while (from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) ++from;
    return "~" + s.substr(from);
}

// A stage's change in the stage table: "~ noise" (the footnote's rule),
// "changed", or the verdict's word when it could not judge.
std::string short_change(const DiffNode& n) {
    if (!n.unjudged.empty()) return n.unjudged;
    return n.noise ? "~ noise" : "changed";
}

std::string percent(double fraction) {
    return fmt::sprintf("%.2f%%", fraction * 100);
}

}  // namespace

std::string render_report_text(const Report& r) {
    Out o;
    if (r.has_cand)
        o.line("pathscope report: %s (run %lld) against %s (run %lld)", printable(r.cand.label),
               static_cast<long long>(r.cand.id), printable(r.base.label),
               static_cast<long long>(r.base.id));
    else
        o.line("pathscope report: %s (run %lld)", printable(r.base.label),
               static_cast<long long>(r.base.id));

    for (const auto& w : r.warnings) o.line("WARNING: %s", w);
    o.heading("Environment");
    for (const auto& e : r.environment) {
        if (r.has_cand && e[1] != e[2]) {
            o.line("  %-11s base: %s", e[0].c_str(), printable(e[1]));
            o.line("  %-11s cand: %s", "", printable(e[2]));
        } else {
            o.line("  %-11s %s", e[0].c_str(), printable(e[1]));
        }
    }
    if (r.has_cand) {
        o.heading("Scenario difference (- base, + candidate)");
        size_t changed = 0;
        for (const auto& l : r.scenario_diff)
            if (l[0] != ' ') o.line("  %s", printable(l)), ++changed;
        if (!changed) o.line("  none: both runs used the same scenario and settings");
    } else {
        o.heading("Settings (beside the scenario file)");
        for (const auto& l : r.settings) o.line("  %s", printable(l));
        if (r.settings.empty()) o.line("  none: the scenario as written");
    }

    if (r.has_cand) {
        o.heading("Verdicts (candidate against base)");
        o.raw(render_verdicts_text(r.verdicts, r.options.confidence));
    } else {
        o.heading("Measurements (mean over trials, stddev)");
        for (const auto& m : r.base_metrics) {
            const Summary s = summarize(m.values);
            o.line("  %-12s %-24s %12.3f %-11s sd %.3f", m.group.c_str(),
                   fit(m.name, 24).c_str(), s.mean, m.unit.c_str(), s.stddev);
        }
    }

    for (const auto& plot : r.ministat_plots) {
        o.heading(printable(plot.title));
        o.raw(plot.text);
        if (!plot.verdict.empty()) o.raw(fold_lines(plot.verdict));
    }

    o.heading("Cycles per " + r.per_packet + " by stage (" + r.stage_source + ")");
    o.line("  %-14s %10s %10s %10s %8s  %s", "stage", "base", "cand", "delta", "change", "");
    for (int k : r.stages.nodes[0].children) {
        const DiffNode& n = r.stages.nodes[k];
        const double rel = std::isfinite(n.relative) ? n.relative * 100 : 0;
        o.line("  %-14s %10.2f %10.2f %+10.2f %+7.1f%%  %s", fit(n.name, 14).c_str(), n.base,
               n.cand, n.delta, rel, r.has_cand ? short_change(n).c_str() : "");
    }
    const DiffNode& all = r.stages.nodes[0];
    if (r.has_cand)
        o.line("  %-14s %10.2f %10.2f %+10.2f %+7.1f%%  %s", kAllStages, all.base, all.cand,
               all.delta, std::isfinite(all.relative) ? all.relative * 100 : 0,
               short_change(all).c_str());
    else
        o.line("  %-14s %10.2f %10.2f %+10.2f", kAllStages, all.base, all.cand, all.delta);
    if (r.has_cand) o.line("  ~ %s", r.stages.method.c_str());
    for (const auto& t : r.timing) o.raw(fold_lines("  " + t));

    for (const auto& h : r.histograms) {
        o.heading("Cycles per call of " + h.stage);
        o.raw(r.has_cand ? "base:\n" : "");
        o.raw(render_text(h.base, "cycles", 12, 76));
        if (r.has_cand) o.raw("candidate:\n" + render_text(h.cand, "cycles", 12, 76));
    }

    o.heading("Queues");
    auto queues = [&](const std::vector<QueueSkew>& list, const char* side) {
        for (const auto& q : list) {
            o.line("  %s%s", side, queue_heading(q).c_str());
            for (const auto& s : q.queues)
                o.line("      queue %-3d %14llu packets  %7.2f%%", s.queue, s.packets,
                       s.share * 100);
            if (q.skewed) o.line("    %s", q.flag.c_str());
        }
    };
    queues(r.base_queues, r.has_cand ? "base " : "");
    if (r.has_cand) queues(r.cand_queues, "cand ");
    if (!r.absent.empty()) o.raw(fold_lines("  " + r.absent));

    o.raw(render_hottest_text(r));
    return fold_lines(printable_lines(o.text), kColumns);
}

std::string render_hottest_text(const Report& r) {
    Out o;
    o.heading("Hottest functions (self share of " +
              (r.stack_event.empty() ? std::string("samples") : printable(r.stack_event)) + ")");
    if (r.hottest.empty()) o.line("  no sampled stacks in %s", r.has_cand ? "these runs" : "this run");
    if (r.has_cand && !r.hottest.empty()) o.line("  %8s %8s %8s  %s", "base", "cand", "delta", "function");
    for (const auto& f : r.hottest) {
        if (r.has_cand)
            o.line("  %8s %8s %+7.2f%s  %s", percent(f.base).c_str(), percent(f.cand).c_str(),
                   (f.cand - f.base) * 100, f.noise ? "~" : " ", fit(f.name, 46).c_str());
        else
            o.line("  %8s  %s", percent(f.base).c_str(), fit(f.name, 66).c_str());
    }
    if (r.has_cand && !r.hottest.empty()) o.line("  ~ %s", r.stacks.method.c_str());
    return fold_lines(printable_lines(o.text), kColumns);
}

}  // namespace pathscope::analysis
