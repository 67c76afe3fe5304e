// perf_event on the engine's worker thread: events named the libpfm4 way
// (the PMU's own, or the generic perf:: ones), counted per trial, and one
// event sampled with user-space call chains. Nothing here fails a run: what
// the PMU or the kernel refuses is recorded with the reason.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <memory>
#include <string>
#include <vector>

#include "db/records.h"

namespace pathscope::capture {

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
    void* ring_ = nullptr;
    size_t ring_bytes_ = 0;
    std::string note_;
    std::map<RawStack, uint64_t> stacks_;
    uint64_t samples_ = 0, lost_ = 0;
};

}  // namespace pathscope::capture
