#include "analysis/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "analysis/metric_names.h"

namespace pathscope::analysis {

namespace {

double mean_of(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// A call that handles twice the packets takes about twice the cycles: where
// the two runs' packets per call differ (another burst size), per-call
// percentiles would judge the burst size, not the code. Judge them per
// packet instead: each trial's percentile over its packets per call.
void per_packet_if_bursts_differ(Verdict& v) {
    if (v.base.packets_per_call.empty() || v.cand.packets_per_call.empty()) return;
    const double pb = mean_of(v.base.packets_per_call), pc = mean_of(v.cand.packets_per_call);
    if (pb <= 0 || pc <= 0 || std::fabs(pc - pb) <= 0.05 * pb) return;
    for (Metric* m : {&v.base, &v.cand}) {
        for (size_t i = 0; i < m->values.size(); ++i) {
            const double ppc = i < m->packets_per_call.size() ? m->packets_per_call[i] : 0;
            m->values[i] = ppc > 0 ? m->values[i] / ppc : 0;
        }
        m->unit = "cyc/pkt@call";
    }
    v.note =
        "cyc/pkt@call: a call's cycles over its packets; the runs' packets per call differ "
        "(another burst size), so per-call percentiles are judged per packet";
}

}  // namespace

std::vector<Verdict> compare_metrics(const std::vector<Metric>& base,
                                     const std::vector<Metric>& cand, double confidence) {
    std::map<std::pair<std::string, std::string>, const Metric*> by_key;
    for (const auto& m : cand) by_key[{m.group, m.name}] = &m;
    std::vector<Verdict> out;
    for (const auto& b : base) {
        auto it = by_key.find({b.group, b.name});
        if (it == by_key.end()) continue;
        Verdict v;
        v.base = b;
        v.cand = *it->second;
        per_packet_if_bursts_differ(v);
        v.base_summary = summarize(v.base.values);
        v.cand_summary = summarize(v.cand.values);
        const double mb = v.base_summary.mean, mc = v.cand_summary.mean;
        v.percent = mb != 0 ? (mc - mb) * 100 / mb : 0;
        if (b.skewed) {
            v.test = kMannWhitneyU;
            v.u = mann_whitney(v.base.values, v.cand.values, confidence);
            v.possible = v.u.possible;
            v.significant = v.u.significant;
            v.warning = v.u.warning;
        } else {
            v.test = kStudentT;
            v.t = student_t(v.base_summary, v.cand_summary, confidence);
            v.possible = v.t.possible;
            v.significant = v.t.significant;
            v.difference = v.t.difference;
            v.half_width = v.t.half_width;
            // The verdict's own interval over the base mean: it holds 0
            // exactly when the verdict finds no difference.
            v.percent_half_width = mb != 0 ? v.t.half_width * 100 / std::fabs(mb) : 0;
            v.no_variance = v.t.possible && v.t.pooled_s == 0;
            v.warning = v.t.warning;
        }
        if (!v.possible)
            v.outcome = "no test";
        else if (!v.significant)
            v.outcome = "no difference";
        else
            v.outcome = (mc > mb) == b.higher_is_better ? "better" : "worse";
        out.push_back(std::move(v));
    }
    return out;
}

namespace {

// "center +/-half" with the fewest digits (from `digits` up) at which the
// printed interval holds 0 exactly when `significant` says it does not:
// rounding must never make a verdict and its interval disagree.
std::string interval_text(double center, double half, bool significant, const char* fmt_center,
                          const char* fmt_half, const char* suffix, int digits) {
    char c[64], h[64];
    for (int d = digits; d < digits + 8; ++d) {
        std::snprintf(c, sizeof c, fmt_center, d, center);
        std::snprintf(h, sizeof h, fmt_half, d, half);
        const bool excludes_zero = std::fabs(std::strtod(c, nullptr)) > std::strtod(h, nullptr);
        if (excludes_zero == significant) break;
    }
    return std::string(c) + suffix + " +/-" + h + suffix;
}

}  // namespace

std::string format_change(const Verdict& v) {
    char buf[64];
    if (v.base_summary.mean == 0) return "n/a";
    if (v.test == kStudentT && v.no_variance) {
        std::snprintf(buf, sizeof buf, "%+.1f%% no variance", v.percent);
        return buf;
    }
    if (v.test == kStudentT && v.possible)
        return interval_text(v.percent, v.percent_half_width, v.significant, "%+.*f", "%.*f", "%",
                             1);
    std::snprintf(buf, sizeof buf, "%+.1f%%", v.percent);
    return buf;
}

std::string format_mean(const Summary& s) {
    if (s.n == 0) return "-";
    return fmt::format("{:.4g} ±{:.2g}", s.mean, s.stddev);
}

std::string format_difference(const Verdict& v) {
    if (v.test != kStudentT || !v.possible) return "";
    if (v.no_variance) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%+.4g", v.difference);
        return buf;
    }
    return interval_text(v.difference, v.half_width, v.significant, "%+.*g", "%.*g", "", 4);
}

namespace {

std::string short_number(double v) {
    char buf[32];
    if (std::fabs(v) >= 1e6 || (std::fabs(v) < 0.01 && v != 0))
        std::snprintf(buf, sizeof buf, "%.3g", v);
    else if (std::fabs(v) >= 100)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

}  // namespace

std::string render_verdicts_text(const std::vector<Verdict>& verdicts, double confidence) {
    std::string out;
    char line[512];
    std::string group;
    std::set<std::string> warnings, notes;
    // The name column fits the longest name (up to 32), so that names that
    // differ only at their end ("rte_fib6_lookup p50", "... p99") stay apart.
    int width = 18;
    for (const auto& v : verdicts) width = std::max(width, static_cast<int>(v.base.name.size()));
    width = std::min(width, 32);
    for (const auto& v : verdicts) {
        if (v.base.group != group) {
            group = v.base.group;
            std::snprintf(line, sizeof line, "%s%-*s %-10s %9s %9s %-17s %s\n",
                          out.empty() ? "" : "\n", width, group.c_str(), "unit", "base", "cand",
                          "change", "verdict");
            out += line;
        }
        // Mark the test: t for Student's t, U for Mann-Whitney U.
        std::string verdict = v.outcome == "no difference" ? "no diff" : v.outcome;
        verdict += v.test == kMannWhitneyU ? " U" : " t";
        if (!v.warning.empty()) verdict += "!";
        const size_t w = static_cast<size_t>(width);
        std::string name = v.base.name.size() > w ? v.base.name.substr(0, w - 1) + "~" : v.base.name;
        std::snprintf(line, sizeof line, "%-*s %-10s %9s %9s %-17s %s\n", width, name.c_str(),
                      v.base.unit.c_str(), short_number(v.base_summary.mean).c_str(),
                      short_number(v.cand_summary.mean).c_str(), format_change(v).c_str(),
                      verdict.c_str());
        out += line;
        if (!v.warning.empty()) warnings.insert(v.warning);
        if (!v.note.empty()) notes.insert(v.note);
    }
    if (verdicts.empty()) return "no metric is common to both runs\n";
    const Verdict& first = verdicts.front();
    std::snprintf(line, sizeof line,
                  "\nN = %zu vs %zu trials; means shown; verdicts at %.1f%% confidence.\n"
                  "change: cand - base over the base mean; t: Student's t with pooled\n"
                  "variance, +/- the interval the verdict was made from (no difference\n"
                  "when it holds 0); U: Mann-Whitney U, two-sided, for the skewed per-call\n"
                  "cycle percentiles; no diff: no difference proven%s\n",
                  first.base.values.size(), first.cand.values.size(), confidence,
                  warnings.empty() ? "" : "; !: see the note below");
    out += line;
    for (const auto& n : notes) out += n + "\n";
    for (const auto& w : warnings) out += "! " + w + "\n";
    return out;
}

}  // namespace pathscope::analysis
