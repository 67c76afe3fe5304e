#include "analysis/figures/trial_conditions.h"

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

std::string TrialCondition::why_cycles() const {
    if (!cycles_disturbed) return "";
    return fmt::format(
        "worker {} on CPU {} of the window ({} forced switches; {:.1f}% in {} interrupted "
        "calls, left out)",
        worker, on_cpu_text(), involuntary, 100 * interrupted, interrupted_calls);
}

std::string TrialCondition::consequence() const {
    if (cycles_disturbed || interrupted_calls == 0) return "A verdict resting on it is unreliable";
    return fmt::format(
        "Its stage cycles leave out the {} interrupted calls ({:.1f}% of its cycles) and still "
        "hold; a rate or latency verdict resting on it is unreliable",
        interrupted_calls, 100 * interrupted);
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
                c.interrupted = std::min(1.0, static_cast<double>(th.interrupted_ns) / window);
                c.interrupted_calls = th.interrupted_calls;
            }
            c.measured = true;
        } else if (std::isnan(c.client_on_cpu) || share < c.client_on_cpu) {
            c.client_on_cpu = share;
            c.client = th.role;
        }
    }
    if (!c.measured) {
        c.without_worker = !std::isnan(c.client_on_cpu);
        return c;
    }
    c.steal_cpus = static_cast<double>(t.steal_ns) / window;
    c.others_cpus = static_cast<double>(t.others_ns) / window;
    c.disturbed = t.max_disturbance > 0 && c.worker_lost() > t.max_disturbance;
    c.cycles_disturbed = c.disturbed && c.worker_lost() - c.interrupted > t.max_disturbance;
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
        d.without_worker += c.without_worker;
        if (!c.measured) continue;
        ++d.measured;
        d.disturbed += c.disturbed;
        d.cycles_disturbed += c.cycles_disturbed;
        d.interrupted_calls += c.interrupted_calls;
        d.most_interrupted = std::max(d.most_interrupted, c.interrupted);
        d.least_on_cpu = std::min(d.least_on_cpu, c.worker_on_cpu);
        d.max_disturbance = std::max(d.max_disturbance, c.max_disturbance);
        if (c.client == db::kRrClientThread) d.request_response = true;
        if (!std::isnan(c.client_on_cpu))
            d.least_client_on_cpu = std::min(d.least_client_on_cpu, c.client_on_cpu);
    }
    return d;
}

std::string disturbance_line(const DisturbanceSummary& d) {
    if (d.measured == 0 && d.without_worker)
        return "disturbance: not judged (no thread of this run is a worker: a request/response "
               "run's server and client wait on each other by design, so their time off CPU "
               "says nothing)";
    if (d.measured == 0) return "disturbance: not measured (a run stored before pathscope measured it)";
    std::string line = fmt::format(
        "disturbance: {} of {} trial{} disturbed (the workers were on their CPUs at least "
        "{} of each window; a trial is disturbed below {:.1f}%)",
        d.disturbed, d.trials, d.trials == 1 ? "" : "s", on_cpu_percent(d.least_on_cpu),
        100 * (1 - d.max_disturbance));
    if (d.replaced)
        line += fmt::format("; {} disturbed trial{} replaced by a re-run", d.replaced,
                            d.replaced == 1 ? "" : "s");
    if (d.interrupted_calls)
        line += fmt::format(
            "; stage cycles leave out {} interrupted call{} (at most {:.1f}% of a window; "
            "engine.interrupted_call_us){}",
            d.interrupted_calls, d.interrupted_calls == 1 ? "" : "s", 100 * d.most_interrupted,
            d.disturbed ? fmt::format(", which leaves {} of the {} disturbed trial{} disturbed "
                                      "for stage cycles",
                                      d.cycles_disturbed, d.disturbed, d.disturbed == 1 ? "" : "s")
                        : "");
    return line;
}

}  // namespace pathscope::analysis
