#include "analysis/multiple_tests.h"

#include <algorithm>
#include <cmath>
#include <numeric>

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

double AlphaSpending::spent(size_t blocks) const {
    if (blocks < first_look || max_blocks == 0) return 0;
    if (blocks >= max_blocks) return alpha;
    const double t = static_cast<double>(blocks) / static_cast<double>(max_blocks);
    return alpha * std::log(1 + (std::exp(1.0) - 1) * t);
}

double AlphaSpending::at_look(size_t blocks) const {
    if (blocks < first_look) return 0;
    return spent(blocks) - (blocks > first_look ? spent(blocks - 1) : 0);
}

}  // namespace pathscope::analysis
