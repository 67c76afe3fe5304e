// Kernel samples to stages and stacks. A sample counts when it was taken
// on one of the workload's threads (whose system calls carry the whole path
// through the veths) or on a ksoftirqd thread (the packets the softirq
// budget left to it); every other thread's samples, pathscope's own control
// and store threads among them, are counted apart and left out. Each counted sample goes to one stage of the
// map, and its call chain, symbolized, to the stacks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "capture/kernel/kallsyms.h"
#include "capture/kernel/kernel_probes.h"
#include "capture/kernel/stage_map.h"
#include "capture/symbolize.h"
#include "db/records.h"

namespace pathscope::capture {

/// Orders stacks of frames (db::Frame has no order of its own).
struct FramesLess {
    bool operator()(const std::vector<db::Frame>& a, const std::vector<db::Frame>& b) const {
        return std::lexicographical_compare(
            a.begin(), a.end(), b.begin(), b.end(), [](const db::Frame& x, const db::Frame& y) {
                return x.symbol != y.symbol ? x.symbol < y.symbol : x.module < y.module;
            });
    }
};

/// What the samples of one stretch of a trial gave.
struct SampleTally {
    std::vector<uint64_t> samples;  ///< per stage of the map (StageMap::stages order)
    std::vector<uint64_t> ns;       ///< ... the CPU time they stand for
    /// Symbolized stacks, root first, with their samples.
    std::map<std::vector<db::Frame>, uint64_t, FramesLess> stacks;
    uint64_t counted = 0, others = 0;  ///< samples counted; samples of other processes
};

class SampleAttribution {
  public:
    /// `threads`: the workload's threads, whose samples count.
    SampleAttribution(const StageMap& map, const KernelSymbols& symbols, std::set<uint32_t> threads);

    /// Whether what happened on thread `tid` of process `pid` is the run's.
    bool ours(uint32_t tid) const { return threads_.count(tid) || softirq_tids_.count(tid); }
    /// Tallies one sample; true when it counts (it is the run's).
    bool add(const KernelSample& s);
    /// What was tallied since the last take, and a fresh tally.
    SampleTally take();
    const StageMap& map() const { return map_; }

  private:
    SampleTally fresh() const;

    const StageMap& map_;
    const KernelSymbols& symbols_;
    std::set<uint32_t> threads_;
    std::set<uint32_t> softirq_tids_;
    std::unique_ptr<Symbolizer> user_symbols_;  ///< made at the first user-space frame
    SampleTally tally_;
    std::vector<const std::string*> kernel_names_, user_names_;
    std::vector<db::Frame> frames_;
};

/// The tids of the ksoftirqd/N threads.
std::set<uint32_t> softirq_threads();

}  // namespace pathscope::capture
