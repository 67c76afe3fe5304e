// Exact statistics of raw samples (a micro-benchmark's per-call cycles), and
// the review's text histogram of them. Percentiles are nearest-rank: the
// p-th percentile of n sorted values is the value at rank ceil(p/100 * n)
// (1-based), so it is always one of the samples; the median is p50 by the
// same rule, and MAD is the median (same rule) of |x - median|.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pathscope::analysis {

struct SampleStats {
    uint64_t count = 0, min = 0, max = 0;
    double mean = 0;
    uint64_t p50 = 0, p90 = 0, p95 = 0, p99 = 0;
    uint64_t mad = 0;
};

/// Nearest-rank percentile of ascending `sorted` (p in (0, 100]); 0 when empty.
uint64_t nearest_rank(const std::vector<uint64_t>& sorted, double p);

/// Sorts `values` (taken by value) and summarises them.
SampleStats summarize(std::vector<uint64_t> values);

/// One line per bucket: its lower value, a bar for its count (█), a lighter
/// bar for the cumulative share (░), then the count. Equal-width buckets from
/// the minimum to the 99th percentile; one last row holds everything above.
/// `unicode` false draws '#' and '.' instead.
std::string render_histogram(const std::vector<uint64_t>& values, const std::string& unit,
                             unsigned rows = 20, bool unicode = true, unsigned bar_width = 40);

}  // namespace pathscope::analysis
