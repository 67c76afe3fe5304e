// Serialised TSC reads for timing one short call: lfence;rdtsc;lfence before
// (earlier work done, later work not started), rdtscp;lfence after (the call
// done before the read, nothing after it started early) — Intel's "How to
// Benchmark Code Execution Times" pattern. The pair costs cycles of its own,
// measured by timer_overhead() and subtracted from every sample.
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
