#include "common/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pathscope::analysis {

void Histogram::add(uint64_t v, uint64_t n) {
    if (n == 0) return;
    counts_[bucket_index(v)] += n;
    count_ += n;
    sum_ += v * n;
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
}

void Histogram::add_buckets(const std::vector<uint64_t>& counts, uint64_t min, uint64_t max,
                            uint64_t sum) {
    uint64_t n = 0;
    for (size_t i = 0; i < counts.size() && i < counts_.size(); ++i) {
        counts_[i] += counts[i];
        n += counts[i];
    }
    if (n == 0) return;
    count_ += n;
    sum_ += sum;
    min_ = std::min(min_, min);
    max_ = std::max(max_, max);
}

void Histogram::merge(const Histogram& other) {
    add_buckets(other.counts_, other.min_, other.max_, other.sum_);
}

double Histogram::percentile(double p) const {
    if (count_ == 0) return 0.0;
    p = std::clamp(p, 0.0, 100.0);
    // Rank of the wanted sample, 1-based, nearest-rank definition.
    const double rank = std::max(1.0, std::ceil(p / 100.0 * static_cast<double>(count_)));
    uint64_t seen = 0;
    for (unsigned i = 0; i < kBucketCount; ++i) {
        const uint64_t c = counts_[i];
        if (c == 0) continue;
        if (static_cast<double>(seen + c) >= rank) {
            const double lo = static_cast<double>(std::max(bucket_lower(i), min_));
            const double hi = static_cast<double>(std::min(bucket_upper(i), max_));
            const double frac = c == 1 ? 0.5 : (rank - seen - 1) / static_cast<double>(c - 1);
            return std::clamp(lo + (hi - lo) * frac, lo, hi);
        }
        seen += c;
    }
    return static_cast<double>(max_);
}

double Histogram::mad() const {
    if (count_ == 0) return 0.0;
    const double med = percentile(50);
    // Deviation histogram: each bucket contributes its midpoint's distance.
    Histogram dev;
    for (unsigned i = 0; i < kBucketCount; ++i) {
        if (counts_[i] == 0) continue;
        const double lo = static_cast<double>(std::max(bucket_lower(i), min_));
        const double hi = static_cast<double>(std::min(bucket_upper(i), max_));
        dev.add(static_cast<uint64_t>(std::llround(std::fabs((lo + hi) / 2 - med))), counts_[i]);
    }
    return dev.percentile(50);
}

std::string render_text(const Histogram& h, const std::string& unit, unsigned rows,
                        unsigned width) {
    char line[256];
    std::string out;
    std::snprintf(line, sizeof line,
                  "min=%llu max=%llu count=%llu mean=%.0f p50=%.0f p90=%.0f p95=%.0f p99=%.0f "
                  "mad=%.0f (%s)\n",
                  static_cast<unsigned long long>(h.min()),
                  static_cast<unsigned long long>(h.max()),
                  static_cast<unsigned long long>(h.count()), h.mean(), h.percentile(50),
                  h.percentile(90), h.percentile(95), h.percentile(99), h.mad(), unit.c_str());
    out += line;
    if (h.count() == 0 || rows == 0) return out;

    // Group the non-empty range [min, max] into at most `rows` rows of whole buckets.
    const unsigned first = bucket_index(h.min());
    const unsigned last = bucket_index(h.max());
    const unsigned span = last - first + 1;
    const unsigned per_row = (span + rows - 1) / rows;
    std::vector<std::pair<uint64_t, uint64_t>> table;  // lower bound, count
    uint64_t peak = 0;
    for (unsigned b = first; b <= last; b += per_row) {
        uint64_t c = 0;
        for (unsigned k = b; k < b + per_row && k <= last; ++k) c += h.counts()[k];
        table.emplace_back(std::max(bucket_lower(b), h.min()), c);
        peak = std::max(peak, c);
    }
    const unsigned bar_width = width > 28 ? width - 28 : 10;
    std::snprintf(line, sizeof line, "%10s |%-*s| %12s\n", "value", bar_width, "", "count");
    out += line;
    for (const auto& [lo, c] : table) {
        const unsigned len = peak ? static_cast<unsigned>((c * bar_width + peak - 1) / peak) : 0;
        std::string bar(len, '#');
        std::snprintf(line, sizeof line, "%10llu |%-*s| %12llu\n",
                      static_cast<unsigned long long>(lo), bar_width, bar.c_str(),
                      static_cast<unsigned long long>(c));
        out += line;
    }
    return out;
}

}  // namespace pathscope::analysis
