#include "capture/runtime_table.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "engine/drop_reason.h"

namespace pathscope::capture {

using namespace engine;

double rate_pps(const EngineSnapshot& a, const EngineSnapshot& b, uint64_t Ledger::*field) {
    if (b.tsc <= a.tsc || b.tsc_hz == 0) return 0;
    const double secs = static_cast<double>(b.tsc - a.tsc) / static_cast<double>(b.tsc_hz);
    return static_cast<double>(b.ledger.*field - a.ledger.*field) / secs;
}

std::string format_rate(double pps) {
    char buf[32];
    if (pps >= 1e5)
        std::snprintf(buf, sizeof buf, "%.3f Mpps", pps / 1e6);
    else if (pps >= 1e3)
        std::snprintf(buf, sizeof buf, "%.1f kpps", pps / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f pps", pps);
    return buf;
}

std::string render_runtime(const RunResult& r, const TableOptions& opt) {
    const EngineSnapshot& s = r.snapshot;
    const Ledger& l = s.ledger;
    std::string out;
    char line[512];
    auto emit = [&](const char* fmt, auto... args) {
        std::snprintf(line, sizeof line, fmt, args...);
        out += line;
    };
    emit("ran %.2f s%s, TSC %.3f GHz\n\n", r.seconds, r.interrupted ? " (interrupted)" : "",
         static_cast<double>(s.tsc_hz) / 1e9);

    std::map<std::string, uint64_t> stage_drops;
    for (unsigned i = 0; i < kDropReasonCount; ++i)
        stage_drops[std::string(kDropReasonStage[i])] += l.drops[i];
    emit("%-12s %12s %14s %10s %12s %11s %12s\n", "stage", "calls", "packets", "pkts/call",
         "cycles/call", "cycles/pkt", "drops");
    for (const auto& st : s.stages) {
        const double ppc =
            st.calls ? static_cast<double>(st.packets) / static_cast<double>(st.calls) : 0;
        const double cpc =
            st.calls ? static_cast<double>(st.cycles) / static_cast<double>(st.calls) : 0;
        const double cpp =
            st.packets ? static_cast<double>(st.cycles) / static_cast<double>(st.packets) : 0;
        emit("%-12s %12llu %14llu %10.2f %12.1f %11.1f %12llu\n", st.name.c_str(),
             static_cast<unsigned long long>(st.calls), static_cast<unsigned long long>(st.packets),
             ppc, cpc, cpp, static_cast<unsigned long long>(stage_drops[st.name]));
    }

    const double secs = r.window_end.tsc > r.window_start.tsc
                            ? static_cast<double>(r.window_end.tsc - r.window_start.tsc) /
                                  static_cast<double>(s.tsc_hz)
                            : 0;
    emit("\nreceived %llu = delivered %llu + forwarded %llu + replied %llu + dropped %llu  [%s]\n",
         static_cast<unsigned long long>(l.received), static_cast<unsigned long long>(l.delivered),
         static_cast<unsigned long long>(l.forwarded), static_cast<unsigned long long>(l.replied),
         static_cast<unsigned long long>(l.total_drops()),
         l.balanced() ? "balanced" : "NOT BALANCED");
    if (r.generated)
        emit("generator offered %llu packets; %llu came back out of its port\n",
             static_cast<unsigned long long>(r.generated),
             static_cast<unsigned long long>(r.returned));
    uint64_t send_drops = 0;
    for (auto d : l.send_drops) send_drops += d;
    emit("sent by local sockets %llu, lost on the send path %llu\n",
         static_cast<unsigned long long>(l.sent), static_cast<unsigned long long>(send_drops));
    if (secs > 0)
        emit("steady-state rate over %.2f s: received %s, forwarded %s, delivered %s\n", secs,
             format_rate(rate_pps(r.window_start, r.window_end, &Ledger::received)).c_str(),
             format_rate(rate_pps(r.window_start, r.window_end, &Ledger::forwarded)).c_str(),
             format_rate(rate_pps(r.window_start, r.window_end, &Ledger::delivered)).c_str());

    if (l.total_drops() || send_drops) {
        emit("\n%-22s %12s %12s  %s\n", "drop reason", "received", "send path", "meaning");
        for (unsigned i = 0; i < kDropReasonCount; ++i) {
            if (!l.drops[i] && !l.send_drops[i]) continue;
            emit("%-22s %12llu %12llu  %s\n", std::string(kDropReasonNames[i]).c_str(),
                 static_cast<unsigned long long>(l.drops[i]),
                 static_cast<unsigned long long>(l.send_drops[i]),
                 std::string(kDropReasonText[i]).c_str());
        }
    }

    emit("\n%-10s %5s %3s %14s %14s %12s %12s %10s %10s %13s\n", "port", "queue", "dir", "packets",
         "bytes", "bursts", "empty-polls", "pkts/burst", "refused", "burst p50/p99");
    for (const auto& q : s.queues) {
        const double ppb =
            q.bursts ? static_cast<double>(q.packets) / static_cast<double>(q.bursts) : 0;
        char pct[32] = "-";
        if (q.rx && q.burst_size.count())
            std::snprintf(pct, sizeof pct, "%.0f/%.0f", q.burst_size.percentile(50),
                          q.burst_size.percentile(99));
        emit("%-10s %5u %3s %14llu %14llu %12llu %12llu %10.2f %10llu %13s\n", q.port.c_str(),
             q.queue, q.rx ? "rx" : "tx", static_cast<unsigned long long>(q.packets),
             static_cast<unsigned long long>(q.bytes), static_cast<unsigned long long>(q.bursts),
             static_cast<unsigned long long>(q.empty_polls), ppb,
             static_cast<unsigned long long>(q.full), pct);
    }

    if (opt.histograms) {
        std::vector<const StageSnapshot*> busy;
        for (const auto& st : s.stages)
            if (st.cycles_per_call.count()) busy.push_back(&st);
        std::sort(busy.begin(), busy.end(), [](auto* a, auto* b) { return a->cycles > b->cycles; });
        if (busy.size() > 3) busy.resize(3);
        for (const auto* st : busy) {
            out += "\ncycles per call, " + st->name + ":\n";
            out += analysis::render_text(st->cycles_per_call, "cycles", 12);
        }
    }
    return out;
}

}  // namespace pathscope::capture
