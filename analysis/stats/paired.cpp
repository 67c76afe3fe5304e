#include "analysis/stats/paired.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "analysis/stats/stats.h"

namespace pathscope::analysis {

PairedTest paired_t(const std::vector<double>& base, const std::vector<double>& cand,
                    double confidence) {
    PairedTest r;
    r.confidence = confidence;
    r.n = std::min(base.size(), cand.size());
    if (r.n < 2) {
        r.warning = fmt::format("needs at least 2 pairs (N = {})", r.n);
        return r;
    }
    r.possible = true;
    const double n = static_cast<double>(r.n);
    std::vector<double> d(r.n);
    for (size_t i = 0; i < r.n; ++i) d[i] = cand[i] - base[i];
    r.mean_base = std::accumulate(base.begin(), base.begin() + static_cast<long>(r.n), 0.0) / n;
    r.mean_cand = std::accumulate(cand.begin(), cand.begin() + static_cast<long>(r.n), 0.0) / n;
    r.difference = std::accumulate(d.begin(), d.end(), 0.0) / n;
    double ss = 0;
    for (double x : d) ss += (x - r.difference) * (x - r.difference);
    r.sd = std::sqrt(ss / (n - 1));
    const double se = r.sd / std::sqrt(n);
    r.half_width = t_critical_any(confidence, n - 1) * se;
    r.significant = std::fabs(r.difference) > r.half_width;
    r.t = se > 0 ? r.difference / se : (r.difference != 0 ? std::copysign(INFINITY, r.difference) : 0);
    r.p = t_two_sided_p(r.t, n - 1);
    if (r.n < 3) r.warning = "fewer than 3 pairs: treat as a hint";
    return r;
}

namespace {

// Ranks (1-based, mid-ranks for ties) of `v`; sets `ties` when two are equal
// and `tie_term` to sum(t^3 - t) over the groups of equal values.
std::vector<double> ranks_of(const std::vector<double>& v, bool& ties, double& tie_term) {
    std::vector<size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> rank(v.size());
    ties = false;
    tie_term = 0;
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
        for (size_t k = i; k <= j; ++k)
            rank[order[k]] = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
        const double t = static_cast<double>(j - i + 1);
        if (j > i) ties = true;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    return rank;
}

// ways[s]: how many of the 2^n sign patterns of ranks 1..n give W+ = s.
std::vector<double> signed_rank_ways(size_t n) {
    const size_t max_sum = n * (n + 1) / 2;
    std::vector<double> ways(max_sum + 1, 0.0);
    ways[0] = 1;
    for (size_t k = 1; k <= n; ++k)
        for (size_t s = max_sum; s >= k; --s) ways[s] += ways[s - k];
    return ways;
}

// The median of the Walsh averages (d_i + d_j) / 2, i <= j.
double walsh_median(const std::vector<double>& d) {
    std::vector<double> w;
    w.reserve(d.size() * (d.size() + 1) / 2);
    for (size_t i = 0; i < d.size(); ++i)
        for (size_t j = i; j < d.size(); ++j) w.push_back((d[i] + d[j]) / 2);
    if (w.empty()) return 0;
    const size_t h = w.size() / 2;
    std::nth_element(w.begin(), w.begin() + static_cast<long>(h), w.end());
    const double upper = w[h];
    if (w.size() % 2) return upper;
    return (*std::max_element(w.begin(), w.begin() + static_cast<long>(h)) + upper) / 2;
}

}  // namespace

SignedRankTest wilcoxon_signed_rank(const std::vector<double>& base,
                                    const std::vector<double>& cand) {
    SignedRankTest r;
    const size_t pairs = std::min(base.size(), cand.size());
    std::vector<double> d;
    for (size_t i = 0; i < pairs; ++i)
        if (cand[i] != base[i]) d.push_back(cand[i] - base[i]);
    const bool zeros = d.size() < pairs;
    r.n = d.size();
    if (d.empty()) {
        r.warning = pairs ? "every pair is equal: nothing to rank" : "needs at least 1 pair";
        return r;
    }
    r.possible = true;
    r.shift = walsh_median(d);
    std::vector<double> magnitude(d.size());
    for (size_t i = 0; i < d.size(); ++i) magnitude[i] = std::fabs(d[i]);
    bool ties = false;
    double tie_term = 0;
    const std::vector<double> rank = ranks_of(magnitude, ties, tie_term);
    double w_minus = 0;
    for (size_t i = 0; i < d.size(); ++i) (d[i] > 0 ? r.w_plus : w_minus) += rank[i];
    r.statistic = std::min(r.w_plus, w_minus);
    const double n = static_cast<double>(r.n);
    const double mean = n * (n + 1) / 4;
    // Exact without zeros and ties for up to 50 pairs, as SciPy decides;
    // with ties the table of untied ranks does not apply (SciPy uses it
    // anyway, on a truncated W+): up to 16 pairs every sign pattern of the
    // mid-ranks is counted, beyond them the normal approximation with its
    // tie correction is used.
    if ((ties || zeros) && r.n <= 16) {
        r.exact = true;
        const size_t patterns = size_t{1} << r.n;
        const double observed = std::fabs(r.w_plus - mean);
        double extreme = 0;
        for (size_t bits = 0; bits < patterns; ++bits) {
            double w = 0;
            for (size_t i = 0; i < r.n; ++i)
                if (bits >> i & 1) w += rank[i];
            if (std::fabs(w - mean) >= observed - 1e-9) extreme += 1;
        }
        r.p = std::min(1.0, extreme / static_cast<double>(patterns));
        r.min_p = std::min(1.0, 2 / static_cast<double>(patterns));
    } else if (!zeros && !ties && r.n <= 50) {
        r.exact = true;
        const std::vector<double> ways = signed_rank_ways(r.n);
        const double total = std::ldexp(1.0, static_cast<int>(r.n));
        const auto w = static_cast<size_t>(std::llround(r.w_plus));
        if (2 * w == ways.size() - 1) {
            r.p = 1;
        } else {
            double low = 0, high = 0;
            for (size_t s = 0; s < ways.size(); ++s) {
                if (s <= w) low += ways[s];
                if (s >= w) high += ways[s];
            }
            r.p = std::min(1.0, 2 * std::min(low, high) / total);
        }
        r.min_p = std::min(1.0, 2 / total);
    } else {
        const double se = std::sqrt((n * (n + 1) * (2 * n + 1) - tie_term / 2) / 24);
        const double z = se > 0 ? (r.statistic - mean) / se : 0;
        r.p = std::min(1.0, 2 * (1 - normal_cdf(std::fabs(z))));
        const double z_best = se > 0 ? mean / se : 0;
        r.min_p = std::min(1.0, 2 * (1 - normal_cdf(z_best)));
    }
    return r;
}

}  // namespace pathscope::analysis
