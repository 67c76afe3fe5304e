#include "analysis/csv_export.h"

#include <algorithm>
#include <stdexcept>

#include "analysis/number_text.h"

namespace pathscope::analysis {

namespace {

std::string field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

struct Csv {
    std::string out;
    template <typename... F>
    void row(const F&... fields) {
        std::string line;
        ((line += (line.empty() ? "" : ",") + cell(fields)), ...);
        out += line + "\n";
    }
    static std::string cell(const std::string& s) { return field(s); }
    static std::string cell(const char* s) { return field(s); }
    static std::string cell(double v) { return shortest_number(v); }
    static std::string cell(uint64_t v) { return std::to_string(v); }
    static std::string cell(int v) { return std::to_string(v); }
};

}  // namespace

const std::vector<std::string>& csv_tables() {
    static const std::vector<std::string> t = {"trials", "intervals", "stages",
                                               "queues", "drops",     "perf"};
    return t;
}

std::string to_csv(const db::RunData& run, const std::string& table) {
    const db::Batch& b = run.rows;
    Csv c;
    if (table == "trials") {
        c.row("trial", "seconds", "received", "delivered", "forwarded", "replied", "dropped",
              "sent", "rx_pps", "forwarded_pps", "delivered_pps", "sends", "sent_pps",
              "route_lookups", "source_selections");
        for (const auto& t : b.trials)
            c.row(t.trial, t.seconds, t.received, t.delivered, t.forwarded, t.replied, t.dropped,
                  t.sent, t.rx_pps, t.forwarded_pps, t.delivered_pps, t.sends, t.sent_pps,
                  t.route_lookups, t.source_selections);
    } else if (table == "intervals") {
        c.row("trial", "seq", "t_seconds", "received", "delivered", "forwarded", "replied",
              "dropped", "sent");
        for (const auto& i : b.intervals)
            c.row(i.trial, i.seq, i.t, i.received, i.delivered, i.forwarded, i.replied, i.dropped,
                  i.sent);
    } else if (table == "stages") {
        c.row("trial", "seq", "stage", "calls", "packets", "cycles");
        for (const auto& s : b.stages) c.row(s.trial, s.seq, s.stage, s.calls, s.packets, s.cycles);
    } else if (table == "queues") {
        c.row("trial", "seq", "port", "queue", "dir", "packets", "bytes", "bursts", "empty_polls",
              "full");
        for (const auto& q : b.queues)
            c.row(q.trial, q.seq, q.port, q.queue, q.dir, q.packets, q.bytes, q.bursts,
                  q.empty_polls, q.full);
    } else if (table == "drops") {
        c.row("trial", "reason", "stage", "path", "packets");
        for (const auto& d : b.drops) c.row(d.trial, d.reason, d.stage, d.path, d.packets);
    } else if (table == "perf") {
        c.row("trial", "event", "supported", "value", "time_enabled_ns", "time_running_ns", "note");
        for (const auto& p : b.perf)
            c.row(p.trial, p.event, p.supported ? "yes" : "no", p.value, p.time_enabled,
                  p.time_running, p.note);
    } else {
        throw std::invalid_argument("no table '" + table + "'");
    }
    return c.out;
}

}  // namespace pathscope::analysis
