#include "analysis/stats/multiple_tests.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/stats/stats.h"

namespace pathscope::analysis {

std::vector<double> bh_adjust(const std::vector<double>& p) {
    const size_t m = p.size();
    std::vector<size_t> order(m);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
    std::vector<double> q(m, 1.0);
    double running = 1.0;  // the smallest p_(j) m / j over j >= i, from the largest down
    for (size_t k = m; k-- > 0;) {
        const double scaled = p[order[k]] * static_cast<double>(m) / static_cast<double>(k + 1);
        running = std::min(running, scaled);
        q[order[k]] = std::min(1.0, running);
    }
    return q;
}

size_t bh_rejections(const std::vector<double>& p, double alpha) {
    const std::vector<double> q = bh_adjust(p);
    return static_cast<size_t>(std::count_if(q.begin(), q.end(), [&](double x) { return x <= alpha; }));
}

bool AlphaSpending::is_look(size_t blocks) const {
    if (blocks < first_look || max_blocks == 0) return false;
    if (blocks >= max_blocks) return blocks == max_blocks;
    size_t at = std::max<size_t>(first_look, 1);
    while (at < blocks) at *= 2;
    return at == blocks;
}

double AlphaSpending::spent(size_t blocks) const {
    if (blocks < first_look || max_blocks == 0) return 0;
    if (blocks >= max_blocks) return alpha;
    const double t = static_cast<double>(blocks) / static_cast<double>(max_blocks);
    // 2 - 2 Phi(z / sqrt t), Phi(x) = erfc(-x / sqrt 2) / 2.
    const double z = normal_critical(100 * (1 - alpha));  // z_{1-alpha/2}
    return std::erfc(z / std::sqrt(t) / std::sqrt(2.0));
}

double AlphaSpending::at_look(size_t blocks) const {
    if (!is_look(blocks)) return 0;
    size_t previous = 0;  // the look before this one
    for (size_t b = blocks - 1; b >= first_look && b > 0; --b)
        if (is_look(b)) {
            previous = b;
            break;
        }
    return spent(blocks) - spent(previous);
}

}  // namespace pathscope::analysis
