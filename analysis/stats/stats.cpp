#include "analysis/stats/stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <numeric>
#include <stdexcept>

#include "analysis/stats/t_table.h"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>
#include <fmt/printf.h>

namespace pathscope::analysis {

Summary summarize(const std::vector<double>& all) {
    // Missing values (NaN) are left out.
    std::vector<double> kept;
    const bool missing = std::any_of(all.begin(), all.end(), [](double v) { return std::isnan(v); });
    if (missing)
        std::copy_if(all.begin(), all.end(), std::back_inserter(kept),
                     [](double v) { return !std::isnan(v); });
    const std::vector<double>& values = missing ? kept : all;
    Summary s;
    s.n = values.size();
    if (values.empty()) return s;
    // Sorted input (ministat's readers sort) is used as it is, without a copy.
    std::vector<double> sorted;
    if (!std::is_sorted(values.begin(), values.end())) {
        sorted = values;
        std::sort(sorted.begin(), sorted.end());
    }
    const std::vector<double>& v = sorted.empty() ? values : sorted;
    s.min = v.front();
    s.max = v.back();
    const size_t h = s.n / 2;
    s.median = s.n % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(s.n);
    if (s.n > 1) {
        double ss = 0;
        for (double x : v) ss += (x - s.mean) * (x - s.mean);
        s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
    }
    return s;
}

Summary summary_of(size_t n, double mean, double stddev) {
    Summary s;
    s.n = n;
    s.min = s.max = s.median = s.mean = mean;
    s.stddev = stddev;
    return s;
}

const std::vector<double>& confidence_levels() {
    static const std::vector<double> levels = {80, 90, 95, 98, 99, 99.5};
    return levels;
}

bool is_confidence_level(double percent) {
    const auto& l = confidence_levels();
    return std::find(l.begin(), l.end(), percent) != l.end();
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double t_critical(double percent, int df) {
    const auto& levels = confidence_levels();
    const auto it = std::find(levels.begin(), levels.end(), percent);
    if (it == levels.end())
        throw std::invalid_argument("no Student's t table column for " + fmt::format("{}", percent) +
                                    "% confidence (80, 90, 95, 98, 99 or 99.5)");
    const size_t row = df > 100 || df < 1 ? 0 : static_cast<size_t>(df);
    return kMinistatT[row][static_cast<size_t>(it - levels.begin())];
}

double t_critical_any(double percent, double df) {
    if (is_confidence_level(percent)) return t_critical(percent, static_cast<int>(df));
    if (!(percent > 0 && percent < 100) || !(df > 0))
        throw std::invalid_argument("no Student's t quantile at " + fmt::format("{}", percent) +
                                    "% confidence with " + fmt::format("{}", df) +
                                    " degrees of freedom");
    const boost::math::students_t dist(df);
    return boost::math::quantile(boost::math::complement(dist, (1 - percent / 100) / 2));
}

double t_two_sided_p(double t, double df) {
    if (!(df > 0) || !std::isfinite(t)) return std::isinf(t) ? 0 : 1;
    const boost::math::students_t dist(df);
    return std::min(1.0, 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
}

double normal_critical(double percent) {
    const boost::math::normal dist;
    return boost::math::quantile(boost::math::complement(dist, (1 - percent / 100) / 2));
}

TTest student_t(const Summary& b, const Summary& c, double confidence) {
    TTest r;
    r.confidence = confidence;
    r.n_base = b.n;
    r.n_cand = c.n;
    if (b.n < 2 || c.n < 2) {
        r.warning = "needs at least 2 values a side (N = " + std::to_string(b.n) + " vs " +
                    std::to_string(c.n) + ")";
        return r;
    }
    r.possible = true;
    const double nb = static_cast<double>(b.n), nc = static_cast<double>(c.n);
    const double vb = b.stddev * b.stddev, vc = c.stddev * c.stddev;
    const double df = nb + nc - 2;
    const double t = t_critical_any(confidence, df);
    r.pooled_s = std::sqrt(((nb - 1) * vb + (nc - 1) * vc) / df);
    r.difference = c.mean - b.mean;
    const double se = r.pooled_s * std::sqrt(1 / nb + 1 / nc);
    r.half_width = t * se;
    r.significant = std::fabs(r.difference) > r.half_width;
    r.p = se > 0 ? t_two_sided_p(r.difference / se, df) : (r.difference != 0 ? 0 : 1);
    // ministat's relative interval: the baseline's variance is scaled by the
    // squared ratio of the means before pooling, so it is not simply the
    // absolute interval over the baseline mean.
    const double ratio = b.mean != 0 ? c.mean / b.mean : 0;
    const double rel = ((nc - 1) * vc + (nb - 1) * vb * ratio * ratio) * (nb + nc) / (nb * nc * df);
    r.percent = b.mean != 0 ? r.difference * 100 / b.mean : 0;
    r.percent_half_width = b.mean != 0 ? t * std::sqrt(rel) * 100 / b.mean : 0;
    if (b.n < 3 || c.n < 3)
        r.warning = "fewer than 3 values a side: ministat refuses such sets; treat as a hint";
    return r;
}

std::string ministat_verdict(const TTest& t) {
    if (!t.possible) return "No test: " + t.warning + "\n";
    // fmt's printf: ministat's digits exactly, under any locale.
    if (!t.significant) return fmt::sprintf("No difference proven at %.1f%% confidence\n", t.confidence);
    return fmt::sprintf(
        "Difference at %.1f%% confidence\n\t%g +/- %g\n\t%g%% +/- %g%%\n"
        "\t(Student's t, pooled s = %g)\n",
        t.confidence, t.difference, t.half_width, t.percent, t.percent_half_width, t.pooled_s);
}

namespace {

// Ranks (1-based, ties get their mid-rank) of `all`, and the tie term
// sum(t^3 - t) over groups of equal values.
std::vector<double> mid_ranks(const std::vector<double>& all, double& tie_term) {
    std::vector<size_t> order(all.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return all[a] < all[b]; });
    std::vector<double> rank(all.size());
    tie_term = 0;
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        while (j + 1 < order.size() && all[order[j + 1]] == all[order[i]]) ++j;
        const double r = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
        for (size_t k = i; k <= j; ++k) rank[order[k]] = r;
        const double t = static_cast<double>(j - i + 1);
        tie_term += t * t * t - t;
        i = j + 1;
    }
    return rank;
}

// Exact distribution of U for samples of m and n without ties: ways[u] is the
// number of arrangements giving U = u, out of C(m + n, m).
std::vector<double> exact_u_ways(size_t m, size_t n) {
    // ways[j][s]: j values picked from the first k ranks with rank sum s.
    const size_t total = m + n, max_sum = m * total;
    std::vector<std::vector<double>> ways(m + 1, std::vector<double>(max_sum + 1, 0.0));
    ways[0][0] = 1;
    for (size_t k = 1; k <= total; ++k)
        for (size_t j = std::min(k, m); j >= 1; --j)
            for (size_t s = max_sum; s >= k; --s) ways[j][s] += ways[j - 1][s - k];
    const size_t base = m * (m + 1) / 2;
    return std::vector<double>(ways[m].begin() + static_cast<long>(base),
                               ways[m].begin() + static_cast<long>(base + m * n + 1));
}

double choose(size_t n, size_t k) {
    double c = 1;
    for (size_t i = 1; i <= k; ++i) c = c * static_cast<double>(n - k + i) / static_cast<double>(i);
    return c;
}

// Calls f(sum of the picked ranks) for every k-element subset of `rank`.
template <typename F>
void for_each_subset(const std::vector<double>& rank, size_t k, F&& f) {
    std::vector<size_t> pick(k);
    for (size_t i = 0; i < k; ++i) pick[i] = i;
    const size_t n = rank.size();
    while (true) {
        double sum = 0;
        for (size_t i : pick) sum += rank[i];
        f(sum);
        size_t i = k;
        while (i > 0 && pick[i - 1] == n - k + i - 1) --i;
        if (i == 0) return;
        ++pick[i - 1];
        for (size_t j = i; j < k; ++j) pick[j] = pick[j - 1] + 1;
    }
}

}  // namespace

UTest mann_whitney(const std::vector<double>& base, const std::vector<double>& cand,
                   double confidence) {
    UTest r;
    r.confidence = confidence;
    r.n_base = base.size();
    r.n_cand = cand.size();
    if (base.empty() || cand.empty()) {
        r.warning = "needs at least 1 value a side";
        return r;
    }
    r.possible = true;
    std::vector<double> all(base);
    all.insert(all.end(), cand.begin(), cand.end());
    double tie_term = 0;
    const std::vector<double> rank = mid_ranks(all, tie_term);
    const double m = static_cast<double>(cand.size()), n = static_cast<double>(base.size());
    double rank_sum = 0;
    for (size_t i = base.size(); i < all.size(); ++i) rank_sum += rank[i];
    r.u = rank_sum - m * (m + 1) / 2;

    std::vector<double> diffs;
    diffs.reserve(base.size() * cand.size());
    for (double c : cand)
        for (double b : base) diffs.push_back(c - b);
    r.shift = summarize(diffs).median;

    const double alpha = 1 - confidence / 100;
    const double big_n = m + n, mu = m * n / 2;
    if (tie_term != 0 && choose(all.size(), cand.size()) <= 200000) {
        // Ties in small samples: the exact permutation distribution of the
        // candidate's rank sum over every way to pick its members.
        r.exact = true;
        const double observed = std::fabs(r.u - mu);
        double extreme = 0, total = 0;
        std::map<double, double> by_distance;  // |U - mu| -> subsets
        for_each_subset(rank, cand.size(), [&](double sum) {
            const double distance = std::fabs(sum - m * (m + 1) / 2 - mu);
            total += 1;
            if (distance >= observed - 1e-9) extreme += 1;
            by_distance[distance] += 1;
        });
        r.p = std::min(1.0, extreme / total);
        r.min_p = std::min(1.0, by_distance.rbegin()->second / total);
    } else if (tie_term == 0 && cand.size() <= 40 && base.size() <= 40) {
        r.exact = true;
        const std::vector<double> ways = exact_u_ways(cand.size(), base.size());
        const double total = std::accumulate(ways.begin(), ways.end(), 0.0);
        const auto u = static_cast<size_t>(std::llround(r.u));
        double low = 0, high = 0;
        for (size_t k = 0; k < ways.size(); ++k) {
            if (k <= u) low += ways[k];
            if (k >= u) high += ways[k];
        }
        r.p = std::min(1.0, 2 * std::min(low, high) / total);
        r.min_p = std::min(1.0, 2 * ways.front() / total);
    } else {
        const double var = m * n / 12 * ((big_n + 1) - tie_term / (big_n * (big_n - 1)));
        const double z = var > 0 ? std::max(0.0, std::fabs(r.u - mu) - 0.5) / std::sqrt(var) : 0;
        r.p = std::min(1.0, 2 * (1 - normal_cdf(z)));
        const double z_best = var > 0 ? (mu - 0.5) / std::sqrt(var) : 0;
        r.min_p = std::min(1.0, 2 * (1 - normal_cdf(z_best)));
    }
    r.significant = r.p < alpha;
    if (r.min_p >= alpha) {
        r.warning = fmt::sprintf(
            "N = %zu vs %zu cannot reach p < %g: no difference can be proven; "
            "use at least 4 values a side (5 at 99%%)",
            r.n_base, r.n_cand, alpha);
    }
    return r;
}

}  // namespace pathscope::analysis
