// The benchmarks' clock: wall time on a monotonic clock, in seconds.
#pragma once

#include <chrono>

namespace pathscope::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace pathscope::bench
