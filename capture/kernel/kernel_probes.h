// What a kernel run reads from perf_event on every CPU: cpu-clock samples
// with kernel and user call chains (stages), and tracepoints: skb:kfree_skb
// counted and sampled for its drop reason and place, fib6:fib6_table_lookup
// counted (tables looked up, and lookups begun in the local table).
// Tracepoints carry no network namespace: they count the whole machine's
// IPv6 drops and route lookups while a trial runs.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "capture/perf_events.h"

namespace pathscope::capture {

class PerfDataWriter;

/// One cpu-clock sample: where it was taken, and its call chain split into
/// kernel and user frames, each leaf first.
struct KernelSample {
    uint32_t cpu = 0, pid = 0, tid = 0;
    uint64_t period = 0;  ///< ns of CPU time the sample stands for
    std::vector<uint64_t> kernel, user;
};

/// Tracepoint counts on every CPU since the probes were enabled.
struct ProbeCounts {
    uint64_t drops = 0;       ///< skb:kfree_skb events of IPv6 packets
    uint64_t fib_tables = 0;  ///< fib6:fib6_table_lookup events: tables looked up
    /// ... in the local table (255), where Linux begins every route lookup,
    /// with or without custom rules: lookups begun.
    uint64_t fib_lookups = 0;
};

/// A drop's reason code (skb_drop_reason) and the address that dropped it.
using DropKey = std::pair<uint64_t, uint64_t>;

class KernelProbes {
  public:
    /// Opens everything, disabled, on every online CPU; `sample_hz` 0: no
    /// sampling. Throws std::runtime_error for a tracepoint this kernel
    /// lacks or perf_event refuses (with the reason); sampling that cannot
    /// start is not an error (sampling_note() says why).
    /// `lookups`: also count fib6:fib6_table_lookup (else its counts stay 0).
    KernelProbes(const std::string& sample_event, uint32_t sample_hz, bool lookups);
    ~KernelProbes();
    KernelProbes(const KernelProbes&) = delete;
    KernelProbes& operator=(const KernelProbes&) = delete;

    void enable();
    void disable();

    /// Hands each cpu-clock sample taken since the last drain to
    /// `on_sample` (which says whether it is the run's: those go to the
    /// perf.data writer), and tallies the drops that happened on the run's
    /// threads (`ours`: the same rule as the samples'); the machine's other
    /// drops are only counted (others_drops).
    void drain(const std::function<bool(const KernelSample&)>& on_sample,
               const std::function<bool(uint32_t pid, uint32_t tid)>& ours, PerfDataWriter* perf_data);
    uint64_t others_drops() const { return others_drops_; }
    ProbeCounts counts() const;
    /// The drops sampled since the last take, by reason and place.
    std::map<DropKey, uint64_t> take_drops() { return std::exchange(drops_, {}); }

    bool sampling() const { return !sample_fds_.empty(); }
    const std::string& sampling_note() const { return sampling_note_; }
    const perf_event_attr& sample_attr() const { return sample_attr_; }
    uint64_t samples() const { return samples_; }
    uint64_t lost_samples() const { return lost_; }
    uint64_t lost_drop_samples() const { return lost_drops_; }
    uint64_t period_ns() const { return sample_attr_.sample_period; }

  private:
    void close_all();

    struct Ring {
        int fd = -1;
        std::unique_ptr<PerfRing> ring;
    };
    std::vector<int> counting_drops_, counting_tables_, counting_local_;
    std::vector<Ring> sample_fds_, drop_fds_;
    perf_event_attr sample_attr_{};
    std::string sampling_note_;
    uint32_t reason_offset_ = 0, reason_size_ = 0, location_offset_ = 0;
    std::map<DropKey, uint64_t> drops_;
    uint64_t samples_ = 0, lost_ = 0, lost_drops_ = 0, others_drops_ = 0;
    KernelSample sample_;  ///< reused between samples
};

/// The online CPUs (/sys/devices/system/cpu/online).
std::vector<int> online_cpus();

}  // namespace pathscope::capture
