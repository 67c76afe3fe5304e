#include "analysis/trial_conditions.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace pathscope::analysis {

namespace {
constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

/// A share of the window on CPU, rounded down, so that a disturbed trial
/// never reads as the limit itself (97.96% is "97.9%" beside "disturbed
/// below 98.0%").
std::string on_cpu_percent(double share) {
    return fmt::format("{:.1f}%", std::floor(1000 * share + 1e-9) / 10);
}
}  // namespace

double TrialCondition::worker_lost() const { return measured ? 1 - worker_on_cpu : kUnknown; }

std::string TrialCondition::why() const {
    if (!disturbed) return "";
    return fmt::format("worker {} on CPU {} of the window ({} forced switches)", worker,
                       on_cpu_text(), involuntary);
}

std::string TrialCondition::on_cpu_text() const {
    if (!measured) return "-";
    return on_cpu_percent(worker_on_cpu);
}

TrialCondition trial_condition(const db::TrialRow& t, const std::vector<db::ThreadRow>& threads) {
    TrialCondition c;
    c.trial = t.trial;
    c.block = t.block >= 0 ? t.block : t.trial;
    c.replaced = t.replaced;
    c.max_disturbance = t.max_disturbance;
    c.worker_on_cpu = c.client_on_cpu = c.steal_cpus = c.others_cpus = kUnknown;
    if (t.window_ns == 0) return c;
    const double window = static_cast<double>(t.window_ns);
    for (const auto& th : threads) {
        if (th.trial != t.trial) continue;
        const double share = std::min(1.0, static_cast<double>(th.cpu_ns) / window);
        if (th.role == db::kWorkerThread) {
            if (!c.measured || share < c.worker_on_cpu) {
                c.worker_on_cpu = share;
                c.worker = th.index;
                c.involuntary = th.involuntary;
            }
            c.measured = true;
        } else if (std::isnan(c.client_on_cpu) || share < c.client_on_cpu) {
            c.client_on_cpu = share;
            c.client = th.role;
        }
    }
    if (!c.measured) return c;
    c.steal_cpus = static_cast<double>(t.steal_ns) / window;
    c.others_cpus = static_cast<double>(t.others_ns) / window;
    c.disturbed = t.max_disturbance > 0 && c.worker_lost() > t.max_disturbance;
    return c;
}

std::vector<TrialCondition> trial_conditions(const db::RunData& run) {
    std::vector<TrialCondition> out;
    for (const auto& t : run.rows.trials) out.push_back(trial_condition(t, run.rows.threads));
    std::sort(out.begin(), out.end(),
              [](const TrialCondition& a, const TrialCondition& b) { return a.trial < b.trial; });
    return out;
}

DisturbanceSummary summarize_disturbance(const std::vector<TrialCondition>& conditions) {
    DisturbanceSummary d;
    for (const auto& c : conditions) {
        if (c.replaced) {
            ++d.replaced;
            continue;
        }
        ++d.trials;
        if (!c.measured) continue;
        ++d.measured;
        d.disturbed += c.disturbed;
        d.least_on_cpu = std::min(d.least_on_cpu, c.worker_on_cpu);
        d.max_disturbance = std::max(d.max_disturbance, c.max_disturbance);
        if (c.client == db::kRrClientThread) d.request_response = true;
        if (!std::isnan(c.client_on_cpu))
            d.least_client_on_cpu = std::min(d.least_client_on_cpu, c.client_on_cpu);
    }
    return d;
}

std::string disturbance_line(const DisturbanceSummary& d) {
    if (d.measured == 0) return "disturbance: not measured (a run stored before pathscope measured it)";
    std::string line = fmt::format(
        "disturbance: {} of {} trial{} disturbed (the workers were on their CPUs at least "
        "{} of each window; a trial is disturbed below {:.1f}%)",
        d.disturbed, d.trials, d.trials == 1 ? "" : "s", on_cpu_percent(d.least_on_cpu),
        100 * (1 - d.max_disturbance));
    if (d.replaced)
        line += fmt::format("; {} disturbed trial{} replaced by a re-run", d.replaced,
                            d.replaced == 1 ? "" : "s");
    return line;
}

}  // namespace pathscope::analysis
