#include "analysis/verdicts/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/figures/metric_names.h"
#include "analysis/stats/multiple_tests.h"
#include "analysis/text/number_text.h"
#include "analysis/text/text_builder.h"

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
            m->values[i] = ppc > 0 ? m->values[i] / ppc : std::nan("");
        }
        m->unit = "cyc/pkt@call";
    }
    v.note =
        "cyc/pkt@call: a call's cycles over its packets; the runs' packets per call differ "
        "(another burst size), so per-call percentiles are judged per packet";
}

/// The values of the blocks both metrics have, in block order.
struct Pairs {
    std::vector<double> base, cand;
    std::vector<size_t> base_trial, cand_trial;
};
Pairs pairs_of(const Metric& b, const Metric& c) {
    std::map<int, size_t> cand_at;
    for (size_t i = 0; i < c.values.size(); ++i)
        if (!std::isnan(c.values[i]))
            cand_at[i < c.blocks.size() ? c.blocks[i] : static_cast<int>(i)] = i;
    std::map<int, size_t> base_at;
    for (size_t i = 0; i < b.values.size(); ++i)
        if (!std::isnan(b.values[i]))
            base_at[i < b.blocks.size() ? b.blocks[i] : static_cast<int>(i)] = i;
    Pairs p;
    for (const auto& [block, i] : base_at)
        if (auto it = cand_at.find(block); it != cand_at.end()) {
            p.base.push_back(b.values[i]);
            p.cand.push_back(c.values[it->second]);
            p.base_trial.push_back(i);
            p.cand_trial.push_back(it->second);
        }
    return p;
}

/// Two runs of one experiment ran their trials in shared blocks.
bool blocked(const Metric& b, const Metric& c) {
    return !b.experiment.empty() && b.experiment == c.experiment;
}

/// The first disturbed trial among `trials` of `m`, named for a reader, or "".
std::string first_disturbed(const Metric& m, const std::vector<size_t>& trials, const char* side) {
    for (size_t t : trials)
        if (t < m.disturbed.size() && !m.disturbed[t].empty())
            return fmt::format("{} trial {}: {}", side, t, m.disturbed[t]);
    return "";
}

std::vector<size_t> present_trials(const Metric& m) {
    std::vector<size_t> out;
    for (size_t i = 0; i < m.values.size(); ++i)
        if (!std::isnan(m.values[i])) out.push_back(i);
    return out;
}

/// Sets the interval of a t test at `level` (percent) and its significance.
void interval_at(Verdict& v, double level, double base_mean) {
    v.confidence = level;
    if (!v.possible || !v.t_family()) return;
    v.half_width = v.se > 0 ? t_critical_any(level, v.df) * v.se : 0;
    v.percent_half_width = base_mean != 0 ? v.half_width * 100 / std::fabs(base_mean) : 0;
    v.significant = v.se > 0 ? std::fabs(v.difference) > v.half_width : v.difference != 0;
}

double base_mean_of(const Verdict& v) {
    return v.test == kPairedT || v.test == kSignedRank ? v.paired.mean_base : v.base_summary.mean;
}

}  // namespace

bool Verdict::t_family() const { return test == kStudentT || test == kPairedT; }

Verdict judge_metric(const Metric& base, const Metric& cand, double confidence) {
    Verdict v;
    v.base = base;
    v.cand = cand;
    v.confidence = confidence;
    per_packet_if_bursts_differ(v);
    v.base_summary = summarize(v.base.values);
    v.cand_summary = summarize(v.cand.values);
    std::vector<size_t> used_base = present_trials(v.base), used_cand = present_trials(v.cand);
    if (blocked(v.base, v.cand)) {
        const Pairs p = pairs_of(v.base, v.cand);
        used_base = p.base_trial;
        used_cand = p.cand_trial;
        v.pairs = p.base.size();
        v.paired = paired_t(p.base, p.cand, confidence);
        v.signed_rank = wilcoxon_signed_rank(p.base, p.cand);
        const double mb = v.paired.mean_base;
        v.percent = mb != 0 ? v.paired.difference * 100 / mb : 0;
        if (base.skewed) {
            v.test = kSignedRank;
            v.possible = v.signed_rank.possible;
            v.p = v.signed_rank.p;
            v.warning = v.signed_rank.warning;
        } else {
            v.test = kPairedT;
            v.possible = v.paired.possible;
            v.p = v.paired.p;
            v.difference = v.paired.difference;
            v.se = v.paired.n ? v.paired.sd / std::sqrt(static_cast<double>(v.paired.n)) : 0;
            v.df = static_cast<double>(v.paired.n) - 1;
            v.no_variance = v.paired.possible && v.paired.sd == 0;
            v.warning = v.paired.warning;
        }
        if (!v.possible && v.warning.empty())
            v.warning = fmt::format("{} blocks have both runs' values", v.pairs);
    } else {
        const double mb = v.base_summary.mean, mc = v.cand_summary.mean;
        v.percent = mb != 0 ? (mc - mb) * 100 / mb : 0;
        if (base.skewed) {
            v.test = kMannWhitneyU;
            v.u = mann_whitney(present_values(v.base.values), present_values(v.cand.values),
                               confidence);
            v.possible = v.u.possible;
            v.p = v.u.p;
            v.warning = v.u.warning;
        } else {
            v.test = kStudentT;
            v.t = student_t(v.base_summary, v.cand_summary, confidence);
            v.possible = v.t.possible;
            v.p = v.t.p;
            v.difference = v.t.difference;
            const double nb = static_cast<double>(v.base_summary.n),
                         nc = static_cast<double>(v.cand_summary.n);
            v.se = v.t.possible ? v.t.pooled_s * std::sqrt(1 / nb + 1 / nc) : 0;
            v.df = nb + nc - 2;
            v.no_variance = v.t.possible && v.t.pooled_s == 0;
            v.warning = v.t.warning;
        }
    }
    v.unreliable = first_disturbed(v.base, used_base, "base");
    if (v.unreliable.empty()) v.unreliable = first_disturbed(v.cand, used_cand, "cand");
    if (v.unreliable.empty() && !v.base.workload_bound.empty())
        v.unreliable = "base: " + v.base.workload_bound;
    if (v.unreliable.empty() && !v.cand.workload_bound.empty())
        v.unreliable = "cand: " + v.cand.workload_bound;
    v.q = v.p;
    adjust_family({&v}, confidence);
    return v;
}

void adjust_family(const std::vector<Verdict*>& family, double confidence) {
    const double alpha = 1 - confidence / 100;
    std::vector<double> p;
    std::vector<Verdict*> tested;
    for (Verdict* v : family)
        if (v->possible) {
            p.push_back(v->p);
            tested.push_back(v);
        }
    const std::vector<double> q = bh_adjust(p);
    size_t rejected = 0;
    for (double x : q) rejected += x <= alpha;
    const size_t m = std::max<size_t>(1, tested.size());
    // The family's level: an interval at it excludes 0 exactly for the
    // p-values Benjamini-Hochberg rejects (p <= alpha R / m); alone, the
    // requested confidence itself.
    const double level =
        m == 1 ? confidence
               : 100 * (1 - alpha * static_cast<double>(std::max<size_t>(1, rejected)) /
                                static_cast<double>(m));
    for (size_t i = 0; i < tested.size(); ++i) tested[i]->q = q[i];
    for (Verdict* v : family) {
        v->family = m;
        interval_at(*v, level, base_mean_of(*v));
        if (!v->t_family()) v->significant = v->possible && v->q <= alpha;
        // A rank test that cannot reach the level even alone can prove nothing.
        const double min_p = v->test == kMannWhitneyU ? v->u.min_p
                             : v->test == kSignedRank ? v->signed_rank.min_p
                                                      : 0;
        const double mean_b = base_mean_of(*v);
        const double mean_c = mean_b + (v->t_family() ? v->difference : mean_b * v->percent / 100);
        if (!v->possible || min_p > alpha)
            v->outcome = kTooFewTrials;
        else if (!v->unreliable.empty())
            v->outcome = kUnreliable;
        else if (!v->significant)
            v->outcome = kNoDifference;
        else
            v->outcome = (mean_c > mean_b) == v->base.higher_is_better ? kBetter : kWorse;
    }
}

std::vector<std::string> headline_names(const std::vector<Metric>& base) {
    const bool received = find_metric(base, kThroughput, kRxRate) != nullptr;
    return {received ? kRxRate : kTxRate, kAllStages};
}

std::vector<Verdict> compare_metrics(const std::vector<Metric>& base,
                                     const std::vector<Metric>& cand, double confidence) {
    std::map<std::pair<std::string, std::string>, const Metric*> by_key;
    for (const auto& m : cand) by_key[{m.group, m.name}] = &m;
    const std::vector<std::string> headline = headline_names(base);
    std::vector<Verdict> out;
    for (const auto& b : base) {
        auto it = by_key.find({b.group, b.name});
        if (it == by_key.end()) continue;
        out.push_back(judge_metric(b, *it->second, confidence));
        out.back().headline = (b.group == kThroughput || b.group == kStageCycles) &&
                              std::find(headline.begin(), headline.end(), b.name) != headline.end();
    }
    std::vector<Verdict*> families[2];
    for (auto& v : out) families[v.headline ? 0 : 1].push_back(&v);
    for (const auto& family : families) adjust_family(family, confidence);
    return out;
}

void mark_stages_by_verdicts(FlameDiff& stages, const std::vector<Verdict>& verdicts) {
    if (stages.nodes.empty()) return;
    std::map<std::string, const Verdict*> by_stage;
    for (const auto& v : verdicts)
        if (v.base.group == kStageCycles) by_stage[v.base.name] = &v;
    auto mark = [&](DiffNode& n, const std::string& name) {
        if (auto it = by_stage.find(name); it != by_stage.end()) {
            const std::string& o = it->second->outcome;
            n.noise = o != kBetter && o != kWorse;
            n.unjudged = o == kUnreliable || o == kTooFewTrials ? o : "";
        }
    };
    mark(stages.nodes[0], kAllStages);
    for (int k : stages.nodes[0].children) {
        DiffNode& n = stages.nodes[static_cast<size_t>(k)];
        mark(n, n.name);
    }
    if (!by_stage.empty())
        stages.method =
            "within noise: no difference proven by the stage's verdict under stage cycles (the "
            "verdict every view gives it)";
}

namespace {

// "center +/-half" with the fewest digits (from `digits` up) at which the
// printed interval holds 0 exactly when `significant` says it does not:
// rounding must never make a verdict and its interval disagree.
std::string interval_text(double center, double half, bool significant, char style,
                          const char* suffix, int digits) {
    std::string c, h;
    for (int d = digits; d < digits + 8; ++d) {
        c = style == 'f' ? fmt::format("{:+.{}f}", center, d) : fmt::format("{:+.{}g}", center, d);
        h = style == 'f' ? fmt::format("{:.{}f}", half, d) : fmt::format("{:.{}g}", half, d);
        const bool excludes_zero =
            std::fabs(parse_number(c).value_or(0)) > parse_number(h).value_or(0);
        if (excludes_zero == significant) break;
    }
    return c + suffix + " +/-" + h + suffix;
}

}  // namespace

std::string format_change(const Verdict& v) {
    if (base_mean_of(v) == 0) return "n/a";
    if (v.t_family() && v.no_variance) return fmt::format("{:+.1f}% no variance", v.percent);
    if (v.t_family() && v.possible)
        return interval_text(v.percent, v.percent_half_width, v.significant, 'f', "%", 1);
    return fmt::format("{:+.1f}%", v.percent);
}

std::string format_mean(const Summary& s) {
    if (s.n == 0) return "-";
    return fmt::format("{:.4g} ±{:.2g}", s.mean, s.stddev);
}

std::string format_difference(const Verdict& v) {
    if (!v.t_family() || !v.possible) return "";
    if (v.no_variance) return fmt::format("{:+.4g}", v.difference);
    return interval_text(v.difference, v.half_width, v.significant, 'g', "", 4);
}

std::string verdict_word(const Verdict& v) { return v.outcome.empty() ? kTooFewTrials : v.outcome; }

std::string family_note(const std::vector<Verdict>& verdicts, double confidence) {
    // Each family's size and level, headline first.
    struct Family {
        size_t m = 0;
        double level = 0;
    } family[2];
    for (const auto& v : verdicts)
        if (v.possible) {
            Family& f = family[v.headline ? 0 : 1];
            f.m = std::max(f.m, v.family);
            f.level = v.confidence;
        }
    const Family& head = family[0];
    const Family& rest = family[1];
    if (head.m <= 1 && rest.m <= 1) return fmt::format("{:g}% confidence", confidence);
    const std::string bh = fmt::format(
        "{:g}% confidence, false discovery rate controlled (Benjamini-Hochberg)", confidence);
    auto part = [](const Family& f, const char* what, const char* detail) {
        return fmt::format("{}{} {} ({}{} at {:.2f}%)", f.m <= 1 ? "" : "the ", f.m, what, detail,
                           f.m <= 1 ? "interval" : "intervals", f.level);
    };
    if (head.m == 0 || rest.m == 0) {
        const Family& f = head.m ? head : rest;
        return fmt::format(
            "{} over the {} verdicts: intervals at {:.2f}%, significant where they exclude 0", bh,
            f.m, f.level);
    }
    return fmt::format(
        "{} in two families: {} and {}; significant where an interval excludes 0 (the headline "
        "figures get the same verdict in every view)",
        bh,
        part(head, head.m == 1 ? "headline figure" : "headline figures", "rate and all stages; "),
        part(rest, rest.m == 1 ? "other figure" : "others", ""));
}

namespace {

std::string short_number(double v) {
    if (std::isnan(v)) return "-";
    if (std::fabs(v) >= 1e6 || (std::fabs(v) < 0.01 && v != 0)) return fmt::format("{:.3g}", v);
    if (std::fabs(v) >= 100) return fmt::format("{:.0f}", v);
    return fmt::format("{:.3f}", v);
}

/// The test's mark in a verdict cell.
const char* test_mark(const Verdict& v) {
    if (v.test == kMannWhitneyU) return "U";
    if (v.test == kPairedT) return "p";
    if (v.test == kSignedRank) return "W";
    return "t";
}

/// A verdict cell's short word: at most 8 characters, so that the table
/// keeps to 80 columns with its test mark and '!'.
std::string short_verdict(const Verdict& v) {
    const std::string& o = v.outcome;
    if (o == kNoDifference) return "no diff";
    if (o == kTooFewTrials) return "too few";
    if (o == kUnreliable) return "unrelia.";
    return o;
}

}  // namespace

std::string render_verdicts_text(const std::vector<Verdict>& verdicts, double confidence) {
    if (verdicts.empty()) return "no metric is common to both runs\n";
    std::string out;
    std::string group;
    std::set<std::string> warnings, notes;
    // Each reason once, with the metrics it holds for (in table order): one
    // disturbed trial makes every verdict resting on it unreliable.
    std::vector<std::pair<std::string, std::vector<std::string>>> unreliable;
    std::set<std::string> tests;
    // A row keeps to 80 columns with its longest verdict ("unrelia. W!"):
    // the unit column fits the longest unit, the name column what is left
    // (at most 28); a longer name keeps its start and its end, so that names
    // that differ only at their end ("rte_fib6_lookup p50", "... p99") stay apart.
    size_t unit_width = 10;
    for (const auto& v : verdicts) unit_width = std::max(unit_width, v.base.unit.size());
    const size_t rest = 1 + unit_width + 1 + 9 + 1 + 9 + 1 + 16 + 1 + 11;
    size_t width = 18;
    for (const auto& v : verdicts) width = std::max(width, v.base.name.size());
    width = std::max<size_t>(10, std::min<size_t>({width, 28, rest < 80 ? 80 - rest : 10}));
    for (const auto& v : verdicts) {
        if (v.base.group != group) {
            group = v.base.group;
            out +=
                fmt::format("{}{:<{}} {:<{}} {:>9} {:>9} {:<16} {}\n", out.empty() ? "" : "\n",
                            group, width, "unit", unit_width, "base", "cand", "change", "verdict");
        }
        std::string verdict = short_verdict(v) + " " + test_mark(v);
        if (!v.warning.empty() || !v.unreliable.empty()) verdict += "!";
        const std::string& full = v.base.name;
        const std::string name =
            full.size() > width ? full.substr(0, width - 5) + "~" + full.substr(full.size() - 4)
                                : full;
        out += fmt::format("{:<{}} {:<{}} {:>9} {:>9} {:<16} {}\n", name, width, v.base.unit,
                           unit_width, short_number(v.base_summary.mean),
                           short_number(v.cand_summary.mean), format_change(v), verdict);
        tests.insert(v.test);
        if (!v.warning.empty()) warnings.insert(v.warning);
        if (!v.unreliable.empty()) {
            auto it = std::find_if(unreliable.begin(), unreliable.end(),
                                   [&](const auto& u) { return u.first == v.unreliable; });
            if (it == unreliable.end()) it = unreliable.insert(unreliable.end(), {v.unreliable, {}});
            it->second.push_back(v.base.name);
        }
        if (!v.note.empty()) notes.insert(v.note);
    }
    const Verdict& first = verdicts.front();
    const bool paired = tests.count(kPairedT) || tests.count(kSignedRank);
    std::string legend;
    if (paired)
        legend += fmt::format("N = {} blocks both runs ran (interleaved cells of one experiment);",
                              first.pairs);
    else
        legend += fmt::format("N = {} vs {} trials;", first.base_summary.n, first.cand_summary.n);
    legend += " means shown; verdicts at " + family_note(verdicts, confidence) + ". ";
    legend +=
        "change: cand - base over the base mean, +/- the interval the verdict was made "
        "from (no difference when it holds 0).";
    if (tests.count(kStudentT)) legend += " t: Student's t with pooled variance.";
    if (tests.count(kPairedT))
        legend += " p: paired t on the blocks' differences (Wilcoxon signed-rank beside it).";
    if (tests.count(kMannWhitneyU))
        legend += " U: Mann-Whitney U, two-sided, for the skewed per-call cycle percentiles.";
    if (tests.count(kSignedRank))
        legend +=
            " W: Wilcoxon signed-rank on the blocks' differences, for the skewed per-call "
            "cycle percentiles.";
    legend +=
        " no diff: no difference proven; too few: this N cannot prove one; unrelia.: "
        "rests on a disturbed trial";
    legend += warnings.empty() && unreliable.empty() ? "." : "; !: see the note below.";
    out += "\n" + fold_lines(legend, 78);
    for (const auto& n : notes) out += n + "\n";
    for (const auto& [why, names] : unreliable) {
        std::string which = names.front();
        for (size_t i = 1; i < names.size() && i < 4; ++i) which += ", " + names[i];
        if (names.size() > 4) which += fmt::format(" and {} more", names.size() - 4);
        out += fold_lines("! unreliable (" + which + "): " + why, 78);
    }
    for (const auto& w : warnings) out += "! " + w + "\n";
    return out;
}

}  // namespace pathscope::analysis
