#include "analysis/verdicts/sequential.h"

#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "analysis/figures/metric_names.h"
#include "analysis/text/number_text.h"

namespace pathscope::analysis {

AlphaSpending SequentialPlan::spending() const {
    return {1 - confidence / 100, first_look, max_blocks};
}

namespace {

bool decided(const Verdict& v, double target) {
    if (v.outcome == kBetter || v.outcome == kWorse) return true;
    return v.outcome == kNoDifference && v.t_family() && v.percent_half_width <= target;
}

}  // namespace

Look look_at(const std::vector<db::RunData>& runs, const SequentialPlan& plan, size_t blocks) {
    Look l;
    l.blocks = blocks;
    l.level = 100 * (1 - plan.spending().at_look(blocks));
    l.comparison = compare_experiment(runs, plan.by, plan.metrics, l.level);
    const ExperimentComparison& e = l.comparison;
    for (const auto& row : e.rows)
        for (size_t m = 0; m < e.metrics.size(); ++m)
            for (size_t v = 1; v < e.values.size(); ++v) {
                const Verdict& vd = row.verdicts[m][v - 1];
                if (row.run_ids[0] == 0 || row.run_ids[v] == 0) continue;  // no such cell
                const bool done = decided(vd, plan.target_half_width);
                l.undecided += !done;
                l.lines.push_back(fmt::format("{}{}={}: {} {} {}{}", row.others == "(none)" ? "" : row.others + ", ",
                                              e.by, e.values[v], e.metrics[m], format_change(vd),
                                              verdict_word(vd), done ? "" : " (undecided)"));
            }
    l.decided = l.undecided == 0;
    return l;
}

std::string decision_fact(const SequentialPlan& plan, const Look& last) {
    return fmt::format("confidence={} blocks={} max_blocks={} first_look={} decided={} by={}",
                       shortest_number(last.level), last.blocks, plan.max_blocks, plan.first_look,
                       last.decided ? "yes" : "no", plan.by);
}

namespace {

/// The stored level of a run's decision, or NaN.
double stored_level(const db::RunData& run) {
    for (const auto& [k, v] : run.rows.facts) {
        if (k != db::kDecisionFact) continue;
        std::istringstream in(v);
        for (std::string item; in >> item;)
            if (item.rfind("confidence=", 0) == 0)
                if (auto x = parse_number(item.substr(11)); x && *x > 0 && *x < 100) return *x;
    }
    return std::nan("");
}

}  // namespace

double judged_confidence(const db::RunData& base, const db::RunData& cand, double requested) {
    if (base.info.experiment.empty() || base.info.experiment != cand.info.experiment)
        return requested;
    const double b = stored_level(base), c = stored_level(cand);
    return !std::isnan(b) && b == c ? b : requested;
}

double judged_confidence(const std::vector<db::RunData>& runs, double requested) {
    if (runs.empty()) return requested;
    for (const auto& r : runs)
        if (judged_confidence(runs.front(), r, requested) == requested) return requested;
    return stored_level(runs.front());
}

}  // namespace pathscope::analysis
