#include "gui/models/trace_rows.h"

#include <set>

namespace pathscope::gui {

namespace {

bool same_trace(const db::PacketTraceRow& a, const db::PacketTraceRow& b) {
    return a.trial == b.trial && a.seq == b.seq && a.t == b.t && a.port == b.port;
}

}  // namespace

bool TraceRows::extends(const TraceRows& older) const {
    if (!run || !older.run || run->info.id != older.run->info.id) return false;
    if (size() < older.size()) return false;
    if (older.size() == 0) return true;
    // A live update appends to the rows read before (db::merge_run_rows):
    // the first and last of the older rows are still where they were.
    const size_t last = older.size() - 1;
    return same_trace(trace(0), older.trace(0)) && same_trace(trace(last), older.trace(last));
}

std::shared_ptr<const TraceRows> trace_rows(std::shared_ptr<const db::RunData> run) {
    auto out = std::make_shared<TraceRows>();
    if (!run) return out;
    const auto& traces = run->rows.traces;
    out->cycles.reserve(traces.size());
    std::set<std::string> outcomes;
    for (const auto& t : traces) {
        double cycles = 0;
        for (const auto& [stage, c] : t.stage_cycles) cycles += c;
        out->cycles.push_back(cycles);
        outcomes.insert(t.outcome);
    }
    out->outcomes.assign(outcomes.begin(), outcomes.end());
    out->run = std::move(run);
    return out;
}

}  // namespace pathscope::gui
