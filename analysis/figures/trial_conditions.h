// How good each trial's evidence is: whether its workers had their CPUs to
// themselves over the steady window (a polling worker is on its CPU all the
// time unless something else takes it), what the hypervisor stole and other
// processes used, and the trial's time block. A trial whose worker lost more
// than capture.max_disturbance of its window is disturbed, and a verdict
// that rests on it is unreliable in every view.
#pragma once

#include <string>
#include <vector>

#include "db/records.h"

namespace pathscope::analysis {

struct TrialCondition {
    int trial = 0;
    int block = 0;          ///< its time block (its own number in runs stored before blocks)
    bool replaced = false;  ///< a re-run replaced it (it counts in no statistic)
    bool measured = false;  ///< its window and its workers' CPU time were recorded
    /// Its threads' CPU time was recorded, but none is a worker (a
    /// request/response run on the kernel: server and client wait on each
    /// other by design), so there is nothing to judge it by.
    bool without_worker = false;
    /// The least CPU time of its workers over the window, as a share of the
    /// window (0..1; NaN when not measured), and whose it was.
    double worker_on_cpu = 0;
    int worker = 0;
    uint64_t involuntary = 0;  ///< context switches forced on that worker
    /// The share of that worker's window the engine kept out of its stage
    /// cycles: its interrupted calls' wall time (engine.interrupted_call_us),
    /// and how many there were.
    double interrupted = 0;
    uint64_t interrupted_calls = 0;
    /// The generator's or rr client's share of the window on its CPU (NaN: none).
    double client_on_cpu = 0;
    std::string client;  ///< db::kGeneratorThread, db::kRrClientThread or ""
    /// Over the window, in CPUs: time stolen by the hypervisor, and other
    /// processes' CPU time (NaN when not measured).
    double steal_cpus = 0, others_cpus = 0;
    double max_disturbance = 0;  ///< the run's threshold (share of the window)
    /// The worker lost more than max_disturbance of its window: rates and
    /// latencies (wall time) rest on a disturbed trial.
    bool disturbed = false;
    /// ... and more than that beyond what its interrupted calls took: the
    /// stage cycles, which leave those out, rest on a disturbed trial too.
    bool cycles_disturbed = false;

    /// The share of the window the worker lost (1 - worker_on_cpu; NaN when not measured).
    double worker_lost() const;
    /// "worker on CPU 21% of the window (146 forced switches)", or "".
    std::string why() const;
    /// The same for stage cycles (cycles_disturbed), naming what the
    /// interrupted calls took: "worker 0 on CPU 90.0% of the window (12
    /// forced switches; 2.1% in 9 interrupted calls, left out)", or "".
    std::string why_cycles() const;
    /// What a disturbed trial means for the verdicts resting on it, as
    /// show and the GUI say it: "A verdict resting on it is unreliable", or,
    /// when its interrupted calls took what it lost, that its stage cycles
    /// hold and its rates and latencies do not.
    std::string consequence() const;
    /// "97.5% on CPU", or "-" when not measured: how views show it.
    std::string on_cpu_text() const;
};

/// Every trial's condition, in trial order.
std::vector<TrialCondition> trial_conditions(const db::RunData& run);
/// One trial's, from its row and the run's thread rows.
TrialCondition trial_condition(const db::TrialRow& t, const std::vector<db::ThreadRow>& threads);

/// The run's disturbed trials that count (not replaced), and how many
/// disturbed trials re-runs replaced.
struct DisturbanceSummary {
    size_t trials = 0, measured = 0, disturbed = 0, replaced = 0;
    size_t without_worker = 0;  ///< trials whose threads hold no worker
    size_t cycles_disturbed = 0;     ///< of them, those whose stage cycles are disturbed too
    uint64_t interrupted_calls = 0;  ///< the counted trials' interrupted calls, summed
    double most_interrupted = 0;     ///< the largest share of a window they took
    double least_on_cpu = 1;   ///< the least worker_on_cpu of the counted trials
    double max_disturbance = 0;
    bool request_response = false;  ///< an rr client drove it
    double least_client_on_cpu = 1;
};
DisturbanceSummary summarize_disturbance(const std::vector<TrialCondition>& conditions);

/// The line run, show and the reports print: "disturbance: 0 of 5 trials
/// disturbed (workers on CPU at least 99.8% of each window; limit 2%)".
std::string disturbance_line(const DisturbanceSummary& d);

}  // namespace pathscope::analysis
