#include "analysis/run_view.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/text_builder.h"

namespace pathscope::analysis {

namespace {

using ull = unsigned long long;

double ratio(uint64_t a, uint64_t b) {
    return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

}  // namespace

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

Histogram to_histogram(const db::HistogramRow& row) {
    std::vector<uint64_t> counts(kBucketCount, 0);
    for (const auto& [i, n] : row.buckets)
        if (i < kBucketCount) counts[i] = n;
    Histogram h;
    h.add_buckets(counts, row.min, row.max, row.sum);
    return h;
}

std::string render_run(const db::RunData& run, const RunViewOptions& opt) {
    const db::RunInfo& info = run.info;
    const db::Batch& rows = run.rows;
    TextBuilder t;
    t.emit("run %lld  \"%s\"  %s  %s\n", static_cast<long long>(info.id), info.label.c_str(),
           info.kind.c_str(), info.status.c_str());
    t.emit("host %s, %s, TSC %.3f GHz, pathscope %s%s%s\n", info.host.c_str(),
           info.cpu_model.empty() ? "unknown CPU" : info.cpu_model.c_str(),
           static_cast<double>(info.tsc_hz) / 1e9, info.engine_version.c_str(),
           info.git_revision.empty() ? "" : " @ ", info.git_revision.c_str());
    t.emit("started %s, ended %s\n", info.started_at.c_str(),
           info.ended_at.empty() ? "-" : info.ended_at.c_str());
    if (!info.scenario_path.empty()) t.emit("scenario %s\n", info.scenario_path.c_str());
    if (!info.settings.empty()) {
        std::string s = info.settings;
        std::replace(s.begin(), s.end(), '\n', ' ');
        t.emit("settings %s\n", s.c_str());
    }
    if (!info.pmu.empty()) t.emit("perf_event %s\n", info.pmu.substr(0, info.pmu.find('\n')).c_str());
    if (!info.note.empty()) t.emit("note: %s\n", info.note.c_str());

    // Trials: steady-state rates, one row each (an import has no time to rate over).
    if (!rows.trials.empty() && info.kind != "pcap-import") {
        t.emit("\n%-6s %10s %14s %14s %14s %14s\n", "trial", "window s", "received", "rx rate",
               "forwarded", "delivered");
        for (const auto& tr : rows.trials)
            t.emit("%-6d %10.2f %14llu %14s %14s %14s\n", tr.trial, tr.seconds,
                   static_cast<ull>(tr.received), format_rate(tr.rx_pps).c_str(),
                   format_rate(tr.forwarded_pps).c_str(), format_rate(tr.delivered_pps).c_str());
    }

    // The time series, summarised: how steady the receive rate was.
    if (!rows.intervals.empty() && info.interval_seconds > 0) {
        std::vector<double> rates;
        double prev_t = 0;
        int prev_trial = -1;
        for (const auto& iv : rows.intervals) {
            if (iv.trial != prev_trial) prev_t = 0;
            const double dt = iv.t - prev_t;
            if (dt > 0) rates.push_back(static_cast<double>(iv.received) / dt);
            prev_t = iv.t;
            prev_trial = iv.trial;
        }
        std::sort(rates.begin(), rates.end());
        if (!rates.empty())
            t.emit("\n%zu intervals of %.2f s: receive rate min %s, median %s, max %s\n",
                   rates.size(), info.interval_seconds, format_rate(rates.front()).c_str(),
                   format_rate(rates[rates.size() / 2]).c_str(), format_rate(rates.back()).c_str());
    }

    // Stage totals summed over trials, in graph order.
    std::vector<db::StageRow> stages;
    for (const auto& s : rows.stages) {
        if (s.seq != -1) continue;
        auto it = std::find_if(stages.begin(), stages.end(),
                               [&](const db::StageRow& x) { return x.stage == s.stage; });
        if (it == stages.end()) {
            stages.push_back(s);
        } else {
            it->calls += s.calls;
            it->packets += s.packets;
            it->cycles += s.cycles;
        }
    }
    std::stable_sort(stages.begin(), stages.end(),
                     [](const auto& a, const auto& b) { return a.ord < b.ord; });
    std::map<std::string, uint64_t> stage_drops;
    for (const auto& d : rows.drops) stage_drops[d.stage] += d.packets;
    if (!stages.empty()) {
        t.emit("\n%-12s %12s %14s %10s %12s %11s %12s\n", "stage", "calls", "packets", "pkts/call",
               "cycles/call", "cycles/pkt", "drops");
        for (const auto& st : stages)
            t.emit("%-12s %12llu %14llu %10.2f %12.1f %11.1f %12llu\n", st.stage.c_str(),
                   static_cast<ull>(st.calls), static_cast<ull>(st.packets),
                   ratio(st.packets, st.calls), ratio(st.cycles, st.calls),
                   ratio(st.cycles, st.packets), static_cast<ull>(stage_drops[st.stage]));
    }

    db::TrialRow sum;
    for (const auto& tr : rows.trials) {
        sum.received += tr.received;
        sum.delivered += tr.delivered;
        sum.forwarded += tr.forwarded;
        sum.replied += tr.replied;
        sum.dropped += tr.dropped;
        sum.sent += tr.sent;
    }
    if (!rows.trials.empty()) {
        const bool balanced =
            sum.received == sum.delivered + sum.forwarded + sum.replied + sum.dropped;
        t.emit(
            "\nreceived %llu = delivered %llu + forwarded %llu + replied %llu + dropped %llu  "
            "[%s]\n",
            static_cast<ull>(sum.received), static_cast<ull>(sum.delivered),
            static_cast<ull>(sum.forwarded), static_cast<ull>(sum.replied),
            static_cast<ull>(sum.dropped), balanced ? "balanced" : "NOT BALANCED");
        t.emit("sent by local sockets %llu\n", static_cast<ull>(sum.sent));
    }

    if (!rows.drops.empty()) {
        std::map<std::pair<std::string, std::string>, uint64_t> by_reason;
        for (const auto& d : rows.drops) by_reason[{d.reason, d.path}] += d.packets;
        t.emit("\n%-22s %-8s %14s\n", "drop reason", "path", "packets");
        for (const auto& [k, n] : by_reason)
            t.emit("%-22s %-8s %14llu\n", k.first.c_str(), k.second.c_str(), static_cast<ull>(n));
    }

    std::vector<db::QueueRow> queues;
    for (const auto& q : rows.queues) {
        if (q.seq != -1) continue;
        auto it = std::find_if(queues.begin(), queues.end(), [&](const db::QueueRow& x) {
            return x.port == q.port && x.queue == q.queue && x.dir == q.dir;
        });
        if (it == queues.end()) {
            queues.push_back(q);
        } else {
            it->packets += q.packets;
            it->bytes += q.bytes;
            it->bursts += q.bursts;
            it->empty_polls += q.empty_polls;
            it->full += q.full;
        }
    }
    std::map<std::string, Histogram> burst_sizes;
    std::map<std::string, Histogram> call_cycles;
    for (const auto& h : rows.histograms) {
        if (h.kind == "rx_burst_size") burst_sizes[h.subject].merge(to_histogram(h));
        if (h.kind == "stage_call_cycles") call_cycles[h.subject].merge(to_histogram(h));
    }
    if (!queues.empty()) {
        t.emit("\n%-10s %5s %3s %14s %14s %12s %12s %10s %10s %13s\n", "port", "queue", "dir",
               "packets", "bytes", "bursts", "empty-polls", "pkts/burst", "refused",
               "burst p50/p99");
        for (const auto& q : queues) {
            char pct[32] = "-";
            auto it = burst_sizes.find(q.port + "/" + std::to_string(q.queue));
            if (q.dir == "rx" && it != burst_sizes.end() && it->second.count())
                std::snprintf(pct, sizeof pct, "%.0f/%.0f", it->second.percentile(50),
                              it->second.percentile(99));
            t.emit("%-10s %5d %3s %14llu %14llu %12llu %12llu %10.2f %10llu %13s\n", q.port.c_str(),
                   q.queue, q.dir.c_str(), static_cast<ull>(q.packets), static_cast<ull>(q.bytes),
                   static_cast<ull>(q.bursts), static_cast<ull>(q.empty_polls),
                   ratio(q.packets, q.bursts), static_cast<ull>(q.full), pct);
        }
    }

    if (!rows.perf.empty()) {
        std::map<std::string, db::PerfCounterRow> perf;
        for (const auto& p : rows.perf) {
            auto [it, fresh] = perf.emplace(p.event, p);
            if (!fresh) it->second.value += p.value;
        }
        t.emit("\n%-26s %16s %-7s %14s\n", "perf event (worker)", "count", "unit",
               "per packet");
        for (const auto& [name, p] : perf) {
            // The clock events count nanoseconds; everything else counts events.
            const bool clock = name.find("clock") != std::string::npos;
            if (p.supported)
                t.emit("%-26s %16llu %-7s %14.3f\n", name.c_str(), static_cast<ull>(p.value),
                       clock ? "ns" : "events", ratio(p.value, sum.received));
            else
                t.emit("%-26s %16s %-7s %14s  %s\n", name.c_str(), "-", "", "-", p.note.c_str());
        }
    }

    if (!rows.stacks.empty() && opt.top_frames) {
        std::map<std::string, uint64_t> self;
        uint64_t total = 0;
        std::string event;
        for (const auto& s : rows.stacks) {
            if (s.frames.empty()) continue;
            self[s.frames.back().symbol] += s.weight;
            total += s.weight;
            event = s.event;
        }
        std::vector<std::pair<std::string, uint64_t>> top(self.begin(), self.end());
        std::sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.second > b.second; });
        if (top.size() > opt.top_frames) top.resize(opt.top_frames);
        t.emit("\nhottest functions (self), %llu %s samples of the worker:\n",
               static_cast<ull>(total), event.c_str());
        for (const auto& [name, w] : top)
            t.emit("  %6.2f%%  %s\n", 100.0 * ratio(w, total), name.c_str());
    }
    if (!rows.traces.empty())
        t.emit("\n%zu packet traces stored (pathscope export RUN --format pcapng)\n",
               rows.traces.size());
    if (!rows.facts.empty()) {
        t.emit("\n");
        for (const auto& [k, v] : rows.facts) t.emit("%-28s %s\n", k.c_str(), v.c_str());
    }

    if (opt.histograms) {
        std::vector<std::pair<std::string, const Histogram*>> busy;
        std::map<std::string, uint64_t> cycles;
        for (const auto& s : stages) cycles[s.stage] = s.cycles;
        for (const auto& [name, h] : call_cycles) busy.emplace_back(name, &h);
        std::sort(busy.begin(), busy.end(),
                  [&](auto& a, auto& b) { return cycles[a.first] > cycles[b.first]; });
        if (busy.size() > 3) busy.resize(3);
        for (const auto& [name, h] : busy) {
            t.text += "\ncycles per call, " + name + ":\n";
            t.text += render_text(*h, "cycles", 12);
        }
    }
    return t.text;
}

}  // namespace pathscope::analysis
