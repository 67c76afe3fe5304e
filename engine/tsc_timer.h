// Serialised TSC reads for timing one short call: lfence;rdtsc;lfence before
// (earlier work done, later work not started), rdtscp;lfence after (the call
// done before the read, nothing after it started early) — Intel's "How to
// Benchmark Code Execution Times" pattern. The pair costs cycles of its own,
// measured by timer_overhead() and subtracted from every sample.
//
// The engine's per-call timing (Engine::walk) uses a plain rdtsc pair around
// each node call instead, like the graph library's own statistics: the
// fences would serialise the worker twice per call. What it resolves and
// costs, measured by tests/bench/bench_timer on the 2-core AMD EPYC VM these
// figures come from (TSC 2.596 GHz; median of 21 rounds, quiet machine):
//   - granularity: the TSC read advances in steps of 26 cycles here (100 MHz
//     times 26), so a single reading is a multiple of 26 cycles, +-26;
//   - an empty pair reads 26 cycles (p50 and p99; fenced pair: 52). This is
//     in every per-call sample and is not subtracted;
//   - a pair costs about 48 cycles of the worker's time (two rdtsc);
//   - the bookkeeping after it: HistogramRecorder::record() about 5 cycles a
//     busy call (was 5.3, with a count counter and a data-dependent bucket
//     branch), an idle call's two IdleCounters adds about 2 cycles.
// So the forwarding path's 9 node calls per 32-packet burst cost about 13
// cycles a packet for the pairs (the graph library's statistics pay the same
// with histograms off) and under 2 for the histograms and idle counters.
// Smallest meaningful per-call figure: a single call's cycles are good to a
// tick (26 cycles) plus the 26-cycle floor, so one call under ~260 cycles
// (10 ticks) is known to no better than 10%; sums and means over many calls
// are finer, since the TSC's phase is independent of the calls. Per-packet
// figures (a call's cycles over its 32 packets) under ~10 cycles are a
// rounding of such calls: compare them over whole runs, not per call.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace pathscope::engine {

inline uint64_t tsc_start() {
    uint32_t lo, hi;
    asm volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
    return (static_cast<uint64_t>(hi) << 32) | lo;
}

inline uint64_t tsc_stop() {
    uint32_t lo, hi, aux;
    asm volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
    return (static_cast<uint64_t>(hi) << 32) | lo;
}

/// The median of `samples` empty start/stop pairs: what a timed sample
/// holds besides the call.
inline uint64_t timer_overhead(unsigned samples = 100000) {
    std::vector<uint64_t> v(samples);
    for (auto& x : v) {
        const uint64_t t0 = tsc_start();
        x = tsc_stop() - t0;
    }
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

}  // namespace pathscope::engine
