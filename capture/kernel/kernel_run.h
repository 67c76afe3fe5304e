// One trial on the Linux kernel target, as run_engine is one on the engine:
// a fresh network of namespaces, the workload's threads, perf_event on
// every CPU, snapshots of the namespaces' counters every interval, the
// steady window from 20% in to the end, and everything removed again.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "capture/disturbance.h"
#include "capture/kernel/kallsyms.h"
#include "capture/kernel/kernel_probes.h"
#include "capture/kernel/kernel_workload.h"
#include "capture/kernel/net_counters.h"
#include "capture/kernel/perf_data.h"
#include "capture/kernel/sample_attribution.h"
#include "capture/kernel/stage_map.h"
#include "capture/scenario.h"
#include "common/histogram.h"
#include "db/records.h"

namespace pathscope::capture {

/// Every counter of a kernel trial at one moment.
struct KernelSnapshot {
    std::chrono::steady_clock::time_point at;
    NetCounters sender, receiver, router;  ///< router: a forwarding path's
    WorkloadCounts work;
    ProbeCounts probes;
    /// The namespace whose IPv6 MIB is the receive ledger.
    const NetCounters& ledger(bool forward) const { return forward ? router : receiver; }
};

/// What a kernel run keeps across its trials: the stage map, the kernel's
/// symbols, the TSC rate its CPU times are turned into cycles with, the
/// drop reasons' names and the perf.data file (capture.perf_data).
struct KernelRunContext {
    /// Reads the map and /proc/kallsyms, and measures the TSC. Throws
    /// std::runtime_error saying what is missing.
    explicit KernelRunContext(const Scenario& sc);
    StageMap map;
    KernelSymbols symbols;
    uint64_t tsc_hz = 0;
    std::map<uint64_t, std::string> drop_reasons;  ///< skb_drop_reason code -> name
    std::unique_ptr<PerfDataWriter> perf_data;
    std::string release;  ///< uname -r
};

struct KernelTrialResult {
    KernelSnapshot start, window_start, window_end, end;
    double seconds = 0;         ///< the whole trial's wall time
    SampleTally samples;        ///< the whole trial's stages (stacks go per interval)
    std::map<DropKey, uint64_t> drops;  ///< sampled, whole trial
    uint64_t sampled = 0, lost_samples = 0, lost_drop_samples = 0;
    uint64_t others_drops = 0;  ///< the machine's drops on other processes' threads, left out
    std::string sampling_note;  ///< why there are no samples ("" when there are)
    uint64_t period_ns = 0;
    std::vector<db::ThreadRow> threads;
    db::TrialRow conditions;  ///< the window's wall time, steal and others' CPU time
    analysis::Histogram rr_latency;
    std::string network;  ///< the namespaces, as KernelNetwork::describe()
    int stop_signal = 0;
};

struct KernelHooks {
    double interval_s = 0.1;
    /// The network and the workload's sockets are ready, nothing sent yet:
    /// what throws here ends the trial before it began.
    std::function<void()> prepared;
    /// Traffic has started; the workload's threads (the worker first is not promised).
    std::function<void(const std::vector<WatchedThread>&)> started;
    /// Every interval: seconds since the start, the snapshots at its ends,
    /// and its samples; false ends the trial early.
    std::function<bool(double, const KernelSnapshot&, const KernelSnapshot&, SampleTally&&)> interval;
    /// The traffic stopped, the network still exists.
    std::function<void()> stopped;
};

/// Runs trial number `serial` of `sc` (target kernel). Throws
/// std::runtime_error from the set-up (a namespace, a socket, a tracepoint).
KernelTrialResult run_kernel_trial(const Scenario& sc, unsigned serial, KernelRunContext& ctx,
                                   const KernelHooks& hooks);

/// What a kernel run needs and this process lacks ("" when nothing):
/// root's capabilities (CAP_NET_ADMIN, CAP_SYS_ADMIN, CAP_PERFMON), the
/// ip command, readable kernel symbols, tracefs.
std::string kernel_run_missing();

/// The TSC's rate: the kernel's own (perf_event's time_mult and
/// time_shift), else measured against CLOCK_MONOTONIC_RAW over `ms` ms.
uint64_t measure_tsc_hz(int ms = 100);

}  // namespace pathscope::capture
