#include "analysis/figures/queue_skew.h"

#include <algorithm>
#include <map>

#include <fmt/printf.h>

namespace pathscope::analysis {

std::vector<QueueSkew> queue_skew(const std::vector<db::QueueRow>& rows) {
    std::map<std::pair<std::string, std::string>, std::map<int, unsigned long long>> packets;
    std::map<std::pair<std::string, std::string>, std::map<int, unsigned long long>> bursts;
    for (const auto& q : rows)
        if (q.seq == -1) {
            packets[{q.port, q.dir}][q.queue] += q.packets;
            bursts[{q.port, q.dir}][q.queue] += q.bursts;
        }
    std::vector<QueueSkew> out;
    for (const auto& [key, per_queue] : packets) {
        QueueSkew s;
        s.port = key.first;
        s.dir = key.second;
        double sum = 0, sum_sq = 0, max = 0;
        for (const auto& [queue, n] : per_queue) {
            const double x = static_cast<double>(n);
            sum += x;
            sum_sq += x * x;
            max = std::max(max, x);
            s.queues.push_back({queue, n, 0, bursts[key][queue]});
        }
        const double n = static_cast<double>(s.queues.size());
        for (auto& q : s.queues) q.share = sum > 0 ? static_cast<double>(q.packets) / sum : 0;
        if (sum > 0) {
            s.max_over_mean = max / (sum / n);
            s.jain = sum * sum / (n * sum_sq);
        }
        if (s.queues.size() >= 2 && sum > 0) {
            const auto top = std::max_element(s.queues.begin(), s.queues.end(),
                                              [](auto& a, auto& b) { return a.packets < b.packets; });
            const size_t idle = static_cast<size_t>(std::count_if(
                s.queues.begin(), s.queues.end(),
                [&](auto& q) { return q.share < kIdleShare / n; }));
            if (top->share > 0.5 && idle > 0) {
                s.skewed = true;
                const std::string buf = fmt::sprintf(
                    "skewed: queue %d carries %.1f%% while %zu of %zu others sit idle "
                    "(under %.0f%% of an even share)",
                    top->queue, top->share * 100, idle, s.queues.size() - 1, kIdleShare * 100);
                s.flag = buf;
            }
        }
        out.push_back(std::move(s));
    }
    return out;
}

std::string queue_heading(const QueueSkew& s) {
    return fmt::sprintf("%s %s: %zu queue%s, max/mean %.2f, Jain's index %.3f%s", s.port, s.dir,
                        s.queues.size(), s.queues.size() == 1 ? "" : "s", s.max_over_mean, s.jain,
                        s.skewed ? "  SKEWED" : "");
}

}  // namespace pathscope::analysis
