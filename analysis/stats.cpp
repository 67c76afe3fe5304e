#include "analysis/stats.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

namespace pathscope::analysis {

Summary summarize(const std::vector<double>& values) {
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

namespace {

// Continued fraction of the regularized incomplete beta function (modified
// Lentz), valid for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
    constexpr double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (std::fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double f = d;
    for (int m = 1; m < 1000; ++m) {
        const double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        for (int step = 0; step < 2; ++step) {
            d = 1 + num * d;
            if (std::fabs(d) < tiny) d = tiny;
            c = 1 + num / c;
            if (std::fabs(c) < tiny) c = tiny;
            d = 1 / d;
            const double delta = c * d;
            f *= delta;
            if (step == 1 && std::fabs(delta - 1) < 1e-15) return f;
            num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        }
    }
    return f;
}

double incomplete_beta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                  a * std::log(x) + b * std::log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
    return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

// P(T > t) for Student's t with df degrees of freedom, t >= 0.
double t_upper_tail(double t, double df) {
    return 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double solve_upper(double tail, double df) {
    double lo = 0, hi = 1e6;
    for (int i = 0; i < 80; ++i) {  // 1e6 / 2^80: far below the third decimal
        const double mid = (lo + hi) / 2;
        (df > 0 ? t_upper_tail(mid, df) : 1 - normal_cdf(mid)) > tail ? lo = mid : hi = mid;
    }
    return (lo + hi) / 2;
}

}  // namespace

namespace {

double critical_value(double percent, int row) {
    // ministat's "99.5" column holds the two-sided 99.8% values (one-sided
    // 99.9%); pathscope keeps it, so verdicts at 99.5 match ministat's.
    const double tail = percent == 99.5 ? 0.001 : (1 - percent / 100) / 2;
    return std::round(solve_upper(tail, row) * 1000) / 1000;
}

}  // namespace

double t_critical(double percent, int df) {
    // ministat's table: rows for 1 to 100 degrees of freedom and the normal
    // limit (row 0) beyond, three decimals. Each entry is computed on first
    // use; threads racing on one compute the same value.
    static std::array<std::array<std::atomic<double>, 6>, 101> table{};
    const int row = df > 100 || df < 1 ? 0 : df;
    const auto& levels = confidence_levels();
    const auto it = std::find(levels.begin(), levels.end(), percent);
    if (it == levels.end()) return critical_value(percent, row);
    std::atomic<double>& entry = table[row][static_cast<size_t>(it - levels.begin())];
    double t = entry.load(std::memory_order_relaxed);
    if (t == 0) {
        t = critical_value(percent, row);
        entry.store(t, std::memory_order_relaxed);
    }
    return t;
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
    const double t = t_critical(confidence, static_cast<int>(df));
    r.pooled_s = std::sqrt(((nb - 1) * vb + (nc - 1) * vc) / df);
    r.difference = c.mean - b.mean;
    r.half_width = t * r.pooled_s * std::sqrt(1 / nb + 1 / nc);
    r.significant = std::fabs(r.difference) > r.half_width;
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
    char buf[512];
    if (!t.possible) return "No test: " + t.warning + "\n";
    if (!t.significant) {
        std::snprintf(buf, sizeof buf, "No difference proven at %.1f%% confidence\n",
                      t.confidence);
        return buf;
    }
    std::snprintf(buf, sizeof buf,
                  "Difference at %.1f%% confidence\n\t%g +/- %g\n\t%g%% +/- %g%%\n"
                  "\t(Student's t, pooled s = %g)\n",
                  t.confidence, t.difference, t.half_width, t.percent, t.percent_half_width,
                  t.pooled_s);
    return buf;
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
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "N = %zu vs %zu cannot reach p < %g: no difference can be proven; "
                      "use at least 4 values a side (5 at 99%%)",
                      r.n_base, r.n_cand, alpha);
        r.warning = buf;
    }
    return r;
}

}  // namespace pathscope::analysis
