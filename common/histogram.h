// Log-linear histogram: one bucket layout for every cycle and latency
// distribution in pathscope (per-call stage cycles, burst sizes, latencies).
//
// Values below 2^kSubBits get one bucket each; above that, every power of two
// is split into 2^kSubBits equal buckets, so a bucket's width is at most 1/16
// of its lower bound (HDR-style: ~6% relative precision, constant memory).
// Min, max, count and sum are kept exactly.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace pathscope::analysis {

inline constexpr unsigned kSubBits = 4;
inline constexpr unsigned kSubCount = 1u << kSubBits;
inline constexpr unsigned kBucketCount = (64 - kSubBits + 1) * kSubCount;

/// Bucket that holds value v. Branch-free, for the engine's hot path: one
/// lzcnt (bsr), a shift and an add. `shift` is how far v's top kSubBits+1
/// bits lie above bit 0 (0 below 2^kSubBits, whose values are their own
/// bucket); those bits, 16..31 for a shifted value, pick the bucket within
/// its power of two: (shift + 1) * kSubCount + (v >> shift) - kSubCount.
constexpr unsigned bucket_index(uint64_t v) {
    const unsigned shift = 63u - static_cast<unsigned>(std::countl_zero(v | kSubCount)) - kSubBits;
    return shift * kSubCount + static_cast<unsigned>(v >> shift);
}

/// Smallest value that falls into bucket i.
constexpr uint64_t bucket_lower(unsigned i) {
    if (i < kSubCount) return i;
    const unsigned shift = i / kSubCount - 1;
    const uint64_t sub = i % kSubCount;
    return (kSubCount + sub) << shift;
}

/// Largest value that falls into bucket i.
constexpr uint64_t bucket_upper(unsigned i) {
    if (i + 1 >= kBucketCount) return UINT64_MAX;
    return bucket_lower(i + 1) - 1;
}

/// A plain-value histogram: mergeable, with exact min/max and percentiles
/// interpolated within a bucket (clamped to the exact min and max).
class Histogram {
  public:
    Histogram() : counts_(kBucketCount, 0) {}

    void add(uint64_t v, uint64_t n = 1);
    /// Adds raw bucket counts (as snapshotted from the engine) with exact extremes.
    void add_buckets(const std::vector<uint64_t>& counts, uint64_t min, uint64_t max, uint64_t sum);
    void merge(const Histogram& other);

    uint64_t count() const { return count_; }
    uint64_t sum() const { return sum_; }
    uint64_t min() const { return count_ ? min_ : 0; }
    uint64_t max() const { return max_; }
    double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }
    /// p in [0, 100].
    double percentile(double p) const;
    /// Median absolute deviation from the median.
    double mad() const;
    const std::vector<uint64_t>& counts() const { return counts_; }

  private:
    std::vector<uint64_t> counts_;
    uint64_t count_ = 0;
    uint64_t sum_ = 0;
    uint64_t min_ = UINT64_MAX;
    uint64_t max_ = 0;
};

/// Text rendering in the style of kernel micro-benchmarks:
/// "min=.. max=.. count=.. mean=.. p50=.. p90=.. p95=.. p99=.. mad=.." and one
/// row per non-empty value range with a bar. `rows` caps the number of rows;
/// `width` is the total line width.
std::string render_text(const Histogram& h, const std::string& unit, unsigned rows = 16,
                        unsigned width = 78);

}  // namespace pathscope::analysis
