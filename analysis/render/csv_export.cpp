#include "analysis/render/csv_export.h"

#include <stdexcept>
#include <type_traits>
#include <variant>

#include "analysis/text/number_text.h"
#include "analysis/text/safe_text.h"
#include "db/tables.h"

namespace pathscope::analysis {

namespace {

std::string cell(const db::Value& v) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool>)
                return x ? "yes" : "no";
            else if constexpr (std::is_same_v<T, double>)
                return shortest_number(x);
            else if constexpr (std::is_same_v<T, std::string>)
                return csv_field(x);
            else if constexpr (std::is_same_v<T, std::vector<uint8_t>>)
                return std::to_string(x.size()) + " bytes";  // no exported table has one
            else
                return std::to_string(x);
        },
        v);
}

/// The store table's columns (but the run id: a CSV is one run's, and
/// `leave_out`) as the header, then a line a row.
template <typename Row>
std::string csv(const db::Table<Row>& t, const std::vector<Row>& rows,
                const std::string& leave_out = "") {
    std::string out, line;
    const auto shown = [&](const auto& c) { return c.role == db::Role::field && c.name != leave_out; };
    for (const auto& c : t.columns)
        if (shown(c)) line += (line.empty() ? "" : ",") + std::string(c.name);
    out += line + "\n";
    for (const Row& r : rows) {
        line.clear();
        bool first = true;
        for (const auto& c : t.columns)
            if (shown(c)) {
                line += (first ? "" : ",") + cell(c.get(r));
                first = false;
            }
        out += line + "\n";
    }
    return out;
}

}  // namespace

const std::vector<std::string>& csv_tables() {
    static const std::vector<std::string> t = {"trials", "intervals", "stages", "queues",
                                               "drops",  "perf",      "events", "threads"};
    return t;
}

std::string to_csv(const db::RunData& run, const std::string& table) {
    const db::Batch& b = run.rows;
    if (table == "trials") return csv(db::tables::trials(), b.trials);
    if (table == "intervals") return csv(db::tables::intervals(), b.intervals);
    // The run's stage rows, summed over its workers: no worker column.
    if (table == "stages") return csv(db::tables::stage_counters(), b.stages, "worker");
    if (table == "queues") return csv(db::tables::queue_counters(), b.queues);
    if (table == "drops") return csv(db::tables::drops(), b.drops);
    if (table == "perf") return csv(db::tables::perf_counters(), b.perf);
    if (table == "events") return csv(db::tables::trial_events(), b.events);
    // Each measured thread's CPU time over each trial's window (disturbance).
    if (table == "threads") return csv(db::tables::trial_threads(), b.threads);
    throw std::invalid_argument("no table '" + table + "'");
}

}  // namespace pathscope::analysis
