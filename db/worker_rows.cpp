#include "db/worker_rows.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace pathscope::db {

namespace {

/// Sums rows that share a key into the first row of that key, in the
/// order the keys first appear.
template <typename Row, typename Key, typename Add>
std::vector<Row> sum_by(const std::vector<Row>& rows, Key key, Add add) {
    std::vector<Row> out;
    std::map<decltype(key(rows.front())), size_t> at;
    for (const Row& r : rows) {
        auto [it, fresh] = at.try_emplace(key(r), out.size());
        if (fresh) {
            out.push_back(r);
            out.back().worker = kAllWorkers;
        } else {
            add(out[it->second], r);
        }
    }
    return out;
}

}  // namespace

std::vector<StageRow> sum_workers(const std::vector<StageRow>& rows) {
    if (rows.empty()) return {};
    return sum_by(
        rows, [](const StageRow& r) { return std::tuple(r.trial, r.seq, r.stage); },
        [](StageRow& into, const StageRow& r) {
            into.ord = std::min(into.ord, r.ord);
            into.calls += r.calls;
            into.packets += r.packets;
            into.cycles += r.cycles;
            into.idle_calls += r.idle_calls;
            into.idle_cycles += r.idle_cycles;
        });
}

std::vector<EdgeRow> sum_workers(const std::vector<EdgeRow>& rows) {
    if (rows.empty()) return {};
    return sum_by(
        rows, [](const EdgeRow& r) { return std::tuple(r.trial, r.seq, r.from, r.to); },
        [](EdgeRow& into, const EdgeRow& r) { into.packets += r.packets; });
}

std::vector<HistogramRow> sum_workers(const std::vector<HistogramRow>& rows) {
    if (rows.empty()) return {};
    return sum_by(
        rows, [](const HistogramRow& r) { return std::tuple(r.trial, r.kind, r.subject); },
        [](HistogramRow& into, const HistogramRow& r) {
            if (r.count == 0) return;
            into.min = into.count ? std::min(into.min, r.min) : r.min;
            into.max = into.count ? std::max(into.max, r.max) : r.max;
            into.count += r.count;
            into.sum += r.sum;
            std::map<uint32_t, uint64_t> buckets(into.buckets.begin(), into.buckets.end());
            for (const auto& [b, n] : r.buckets) buckets[b] += n;
            into.buckets.assign(buckets.begin(), buckets.end());
        });
}

void gather_worker_rows(Batch& b) {
    const auto other_worker = [](const auto& r) { return r.worker > 0; };
    const bool several = std::any_of(b.stages.begin(), b.stages.end(), other_worker) ||
                         std::any_of(b.edges.begin(), b.edges.end(), other_worker) ||
                         std::any_of(b.histograms.begin(), b.histograms.end(), other_worker);
    if (!several) return;
    b.worker_stages = std::move(b.stages);
    b.stages = sum_workers(b.worker_stages);
    std::stable_sort(b.stages.begin(), b.stages.end(), [](const StageRow& x, const StageRow& y) {
        return std::tie(x.trial, x.seq, x.ord) < std::tie(y.trial, y.seq, y.ord);
    });
    b.worker_edges = std::move(b.edges);
    b.edges = sum_workers(b.worker_edges);
    // Only the per-call histograms are per worker; the others are the engine's.
    std::vector<HistogramRow> engine;
    for (auto& h : b.histograms)
        (h.kind == kStageCallCycles ? b.worker_histograms : engine).push_back(std::move(h));
    for (auto& h : sum_workers(b.worker_histograms)) engine.push_back(std::move(h));
    std::stable_sort(engine.begin(), engine.end(), [](const HistogramRow& x, const HistogramRow& y) {
        return std::tie(x.trial, x.kind, x.subject) < std::tie(y.trial, y.kind, y.subject);
    });
    b.histograms = std::move(engine);
}

}  // namespace pathscope::db
