// perf_event on the engine's worker thread: events named the libpfm4 way
// (the PMU's own, or the generic perf:: ones), counted per trial, and one
// event sampled with user-space call chains. Nothing here fails a run: what
// the PMU or the kernel refuses is recorded with the reason.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <memory>
#include <string>
#include <vector>

#include "db/records.h"

namespace pathscope::capture {

/// Encodes `name` the libpfm4 way ("perf::cpu-clock") into `attr` for the
/// privilege levels `plm` (PFM_PLM0: kernel, PFM_PLM3: user); "" on
/// success, else the reason.
std::string encode_event(const std::string& name, perf_event_attr& attr, int plm);

/// perf_event_open on a thread (`tid`, cpu -1) or on a CPU (tid -1: every
/// thread there); -1 with errno on failure.
int open_perf_event(perf_event_attr& attr, int tid, int cpu);

/// Why perf_event_open refused, in a user's words (errno `err`).
std::string perf_open_error(int err);

/// The ring buffer of one sampling perf event, mapped, read record by record.
class PerfRing {
  public:
    PerfRing() = default;
    ~PerfRing();
    PerfRing(const PerfRing&) = delete;
    PerfRing& operator=(const PerfRing&) = delete;

    /// Maps `pages` data pages (a power of two) of `fd`'s buffer; "" or why not.
    std::string map(int fd, size_t pages);
    bool mapped() const { return ring_ != nullptr; }
    /// Hands each record written since the last drain to `fn` (its header
    /// and the whole record, header first, contiguous even where it wrapped
    /// around the buffer's end), then frees them for the kernel.
    void drain(const std::function<void(const perf_event_header&, const uint8_t*)>& fn);

  private:
    void* ring_ = nullptr;
    size_t bytes_ = 0;
    std::vector<uint8_t> record_;
};

/// What this machine's perf_event offers: the PMUs libpfm4 finds present
/// and, for each of `events`, whether it opens on this thread (or why not).
/// One "name: supported" / "name: unsupported (reason)" a line.
std::string probe_pmu(const std::vector<std::string>& events);

/// Counting: every event of a list on one thread, read as one row each.
class PerfCounters {
  public:
    PerfCounters(const std::vector<std::string>& events, int tid);
    ~PerfCounters();
    PerfCounters(const PerfCounters&) = delete;
    PerfCounters& operator=(const PerfCounters&) = delete;

    /// Values since the counters were opened (scaled when multiplexed).
    std::vector<db::PerfCounterRow> read(int trial) const;

  private:
    struct Event {
        std::string name;
        int fd = -1;
        std::string note;
    };
    std::vector<Event> events_;
};

/// A sampled call chain, leaf first, as raw instruction addresses.
using RawStack = std::vector<uint64_t>;

/// Sampling: one event at a frequency on one thread, with call chains.
class PerfSampler {
  public:
    /// Check ok() (and note()) afterwards: sampling that cannot start is not an error.
    PerfSampler(const std::string& event, uint32_t hz, int tid);
    ~PerfSampler();
    PerfSampler(const PerfSampler&) = delete;
    PerfSampler& operator=(const PerfSampler&) = delete;

    bool ok() const { return fd_ >= 0; }
    const std::string& note() const { return note_; }
    const std::string& event() const { return event_; }

    /// Moves the samples in the kernel's ring buffer into the tally.
    void drain();
    /// Samples so far, by stack.
    const std::map<RawStack, uint64_t>& stacks() const { return stacks_; }
    /// The stacks tallied since the last take (drain first), and a fresh tally.
    std::map<RawStack, uint64_t> take() { return std::exchange(stacks_, {}); }
    uint64_t samples() const { return samples_; }
    uint64_t lost() const { return lost_; }

  private:
    std::string event_;
    int fd_ = -1;
    PerfRing ring_;
    std::string note_;
    std::map<RawStack, uint64_t> stacks_;
    uint64_t samples_ = 0, lost_ = 0;
};

}  // namespace pathscope::capture
