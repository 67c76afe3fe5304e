// A benchmark's table rows: a path measured once per repetition (runs of
// the paths interleaved), and the median of a figure over its readings.
// Shared by bench_forward, bench_kernel and bench_plugin.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace pathscope::bench {

/// The median of `v` (NAN when it is empty).
inline double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// A row of the table; `Args` are what measure() is given (a run's number).
template <typename Reading, typename... Args>
struct BenchPath {
    BenchPath(std::string n, std::function<Reading(Args...)> m)
        : name(std::move(n)), measure(std::move(m)) {}
    std::string name;
    std::function<Reading(Args...)> measure;
    std::vector<Reading> readings;
    std::string error;  ///< the first failure, which makes the row a failed one

    /// The median of one figure of the readings.
    double median_of(double Reading::*field) const {
        std::vector<double> v;
        for (const auto& r : readings) v.push_back(r.*field);
        return median(std::move(v));
    }
};

}  // namespace pathscope::bench
