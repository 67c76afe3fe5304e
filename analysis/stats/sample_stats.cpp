#include "analysis/stats/sample_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pathscope::analysis {

uint64_t nearest_rank(const std::vector<uint64_t>& sorted, double p) {
    if (sorted.empty()) return 0;
    const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
    const size_t i = rank < 1 ? 0 : std::min(sorted.size(), static_cast<size_t>(rank)) - 1;
    return sorted[i];
}

SampleStats summarize(std::vector<uint64_t> v) {
    SampleStats s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.count = v.size();
    s.min = v.front();
    s.max = v.back();
    long double sum = 0;
    for (uint64_t x : v) sum += static_cast<long double>(x);
    s.mean = static_cast<double>(sum / static_cast<long double>(v.size()));
    s.p50 = nearest_rank(v, 50);
    s.p90 = nearest_rank(v, 90);
    s.p95 = nearest_rank(v, 95);
    s.p99 = nearest_rank(v, 99);
    for (uint64_t& x : v) x = x > s.p50 ? x - s.p50 : s.p50 - x;
    std::sort(v.begin(), v.end());
    s.mad = nearest_rank(v, 50);
    return s;
}

std::string render_histogram(const std::vector<uint64_t>& values, const std::string& unit,
                             unsigned rows, bool unicode, unsigned bar_width) {
    if (values.empty() || rows < 2) return "";
    std::vector<uint64_t> v = values;
    std::sort(v.begin(), v.end());
    const uint64_t lo = v.front(), top = nearest_rank(v, 99);
    // Values that come in steps (a virtual machine's TSC: multiples of 26
    // cycles) get buckets a whole number of steps wide, so none is empty
    // only because no step lands in it.
    uint64_t step = 0;
    for (size_t i = 1; i < v.size(); ++i)
        if (v[i] != v[i - 1] && (!step || v[i] - v[i - 1] < step)) step = v[i] - v[i - 1];
    step = std::max<uint64_t>(step, 1);
    uint64_t width = std::max<uint64_t>(1, (top - lo + rows - 2) / (rows - 1));
    width = (width + step - 1) / step * step;
    // Buckets up to the 99th percentile, and the one row above it.
    rows = static_cast<unsigned>(std::min<uint64_t>(rows, (top - lo) / width + 2));
    std::vector<uint64_t> counts(rows, 0);
    for (uint64_t x : v) counts[std::min<uint64_t>(rows - 1, (x - lo) / width)]++;
    while (counts.size() > 1 && counts.back() == 0) counts.pop_back();
    const uint64_t peak = *std::max_element(counts.begin(), counts.end());
    const char* full = unicode ? "\u2588" : "#";
    const char* light = unicode ? "\u2591" : ".";
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%11s  %-*s  %s\n", unit.c_str(), static_cast<int>(bar_width),
                  unicode ? "█ count, ░ cumulative share" : "# count, . cumulative share",
                  "count");
    out += line;
    uint64_t cumulative = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
        cumulative += counts[i];
        const bool last = i + 1 == counts.size() && i + 1 == rows;
        std::snprintf(line, sizeof line, "%s%9llu  ", last ? ">=" : "  ",
                      static_cast<unsigned long long>(lo + i * width));
        out += line;
        const unsigned bar = static_cast<unsigned>(
            std::llround(static_cast<double>(counts[i]) / static_cast<double>(peak) * bar_width));
        const unsigned cum = static_cast<unsigned>(std::llround(
            static_cast<double>(cumulative) / static_cast<double>(v.size()) * bar_width));
        // The count bar in front; the cumulative share fills on behind it.
        for (unsigned c = 0; c < bar_width; ++c) out += c < bar ? full : c < cum ? light : " ";
        std::snprintf(line, sizeof line, "  %llu\n", static_cast<unsigned long long>(counts[i]));
        out += line;
    }
    return out;
}

}  // namespace pathscope::analysis
