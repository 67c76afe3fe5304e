#include "capture/snapshot_rows.h"

#include <map>
#include <string_view>

#include "engine/drop_names.h"

namespace pathscope::capture {

using namespace engine;

namespace {

// The stage graph's sinks cross from the engine to the store by name.
static_assert(std::string_view(engine::kDeliverSink) == db::kDeliverSink &&
              std::string_view(engine::kWireSink) == db::kWireSink &&
              std::string_view(engine::kNeighbourTable) == db::kNeighbourTable);

db::QueueRow queue_row(int trial, int seq, const QueueSnapshot& q) {
    return {trial,        seq,          q.port,        q.queue,         q.rx ? "rx" : "tx",
            q.packets,    q.bytes,      q.bursts,      q.empty_polls,   q.full,
            q.calls,      q.cycles,     q.idle_calls,  q.idle_cycles,   static_cast<int>(q.worker)};
}

std::string queue_subject(const QueueSnapshot& q) { return q.port + "/" + std::to_string(q.queue); }

/// Each stage's place in the engine's (merged) stage list, by name: a
/// worker's rows carry it, so that its stages sort as the sums do.
std::map<std::string, int> stage_places(const EngineSnapshot& s) {
    std::map<std::string, int> out;
    for (size_t i = 0; i < s.stages.size(); ++i) out.emplace(s.stages[i].name, static_cast<int>(i));
    return out;
}

int place_of(const std::map<std::string, int>& places, const std::string& name) {
    const auto it = places.find(name);
    return it == places.end() ? static_cast<int>(places.size()) : it->second;
}

/// Only a run of several workers keeps rows per worker; one worker's rows
/// are the engine's.
bool several_workers(const EngineSnapshot& s) { return s.workers.size() >= 2; }

/// The worker rows of one trial: its stages, edges and per-call
/// histograms (seq -1), and its ledger with the window's packets.
void add_worker_totals(db::Batch& b, int trial, const RunResult& r) {
    const EngineSnapshot& s = r.snapshot;
    const auto places = stage_places(s);
    for (size_t i = 0; i < s.workers.size(); ++i) {
        const WorkerSnapshot& w = s.workers[i];
        const int id = static_cast<int>(w.worker);
        for (const auto& st : w.stages) {
            b.worker_stages.push_back({trial, -1, st.name, place_of(places, st.name), st.calls,
                                       st.packets, st.cycles, st.idle_calls, st.idle_cycles, id});
            if (st.cycles_per_call.count()) {
                b.worker_histograms.push_back(histogram_row(trial, db::kStageCallCycles, st.name,
                                                            "cycles", st.cycles_per_call));
                b.worker_histograms.back().worker = id;
            }
        }
        for (const auto& e : w.edges) b.worker_edges.push_back({trial, -1, e.from, e.to, e.packets, id});
        const Ledger& l = w.ledger;
        db::WorkerTrialRow row{trial,       id,         static_cast<int>(w.lcore),
                               l.received,  l.delivered, l.forwarded,
                               l.replied,   l.total_drops(), l.sent,
                               w.walks,     w.idle_walks,    l.sends};
        // The window's packets: the worker's ledger at the window's ends.
        if (i < r.window_start.workers.size() && i < r.window_end.workers.size()) {
            const Ledger& a = r.window_start.workers[i].ledger;
            const Ledger& e = r.window_end.workers[i].ledger;
            row.window_received = e.received - a.received;
            row.window_forwarded = e.forwarded - a.forwarded;
            row.window_delivered = e.delivered - a.delivered;
            row.window_sent = e.sent - a.sent;
        }
        b.worker_trials.push_back(row);
    }
}

/// Each worker's stage and edge deltas between two snapshots.
void add_worker_deltas(db::Batch& b, int trial, int seq, const EngineSnapshot& prev,
                       const EngineSnapshot& cur) {
    const auto places = stage_places(cur);
    for (size_t i = 0; i < cur.workers.size(); ++i) {
        const WorkerSnapshot& w = cur.workers[i];
        const WorkerSnapshot* o = i < prev.workers.size() ? &prev.workers[i] : nullptr;
        const int id = static_cast<int>(w.worker);
        for (size_t k = 0; k < w.stages.size(); ++k) {
            const StageSnapshot& n = w.stages[k];
            const StageSnapshot* p = o && k < o->stages.size() ? &o->stages[k] : nullptr;
            b.worker_stages.push_back({trial, seq, n.name, place_of(places, n.name),
                                       n.calls - (p ? p->calls : 0),
                                       n.packets - (p ? p->packets : 0),
                                       n.cycles - (p ? p->cycles : 0),
                                       n.idle_calls - (p ? p->idle_calls : 0),
                                       n.idle_cycles - (p ? p->idle_cycles : 0), id});
        }
        std::map<std::pair<std::string, std::string>, uint64_t> before;
        if (o)
            for (const auto& e : o->edges) before[{e.from, e.to}] = e.packets;
        for (const auto& e : w.edges) {
            const auto it = before.find({e.from, e.to});
            const uint64_t delta = e.packets - (it == before.end() ? 0 : it->second);
            if (delta) b.worker_edges.push_back({trial, seq, e.from, e.to, delta, id});
        }
    }
}

}  // namespace

db::HistogramRow histogram_row(int trial, const char* kind, const std::string& subject,
                               const char* unit, const analysis::Histogram& h) {
    db::HistogramRow row{trial, kind, subject, unit, h.count(), h.sum(), h.min(), h.max(), {}};
    const auto& counts = h.counts();
    for (uint32_t i = 0; i < counts.size(); ++i)
        if (counts[i]) row.buckets.emplace_back(i, counts[i]);
    return row;
}

double rate_pps(const EngineSnapshot& a, const EngineSnapshot& b, uint64_t Ledger::*field) {
    if (b.tsc <= a.tsc || b.tsc_hz == 0) return 0;
    const double secs = static_cast<double>(b.tsc - a.tsc) / static_cast<double>(b.tsc_hz);
    return static_cast<double>(b.ledger.*field - a.ledger.*field) / secs;
}

db::Batch trial_rows(int trial, const RunResult& r) {
    db::Batch b;
    const EngineSnapshot& s = r.snapshot;
    const Ledger& l = s.ledger;
    const double window = r.window_end.tsc > r.window_start.tsc && s.tsc_hz
                              ? static_cast<double>(r.window_end.tsc - r.window_start.tsc) /
                                    static_cast<double>(s.tsc_hz)
                              : 0;
    b.trials.push_back({trial, window, l.received, l.delivered, l.forwarded, l.replied,
                        l.total_drops(), l.sent,
                        rate_pps(r.window_start, r.window_end, &Ledger::received),
                        rate_pps(r.window_start, r.window_end, &Ledger::forwarded),
                        rate_pps(r.window_start, r.window_end, &Ledger::delivered),
                        r.window_end.ledger.received - r.window_start.ledger.received, s.walks,
                        s.idle_walks, l.sends,
                        rate_pps(r.window_start, r.window_end, &Ledger::sent),
                        r.window_end.ledger.sent - r.window_start.ledger.sent,
                        s.send_path.route_lookups, s.send_path.source_selections});
    db::TrialRow& row = b.trials.back();
    row.window_ns = r.conditions.window_ns;
    row.steal_ns = r.conditions.steal_ns;
    row.others_ns = r.conditions.others_ns;
    row.timer_cycles = r.conditions.timer_cycles;
    row.timing_period = r.conditions.timing_period;
    for (db::ThreadRow t : r.threads) {
        t.trial = trial;
        b.threads.push_back(std::move(t));
    }
    int ord = 0;
    for (const auto& st : s.stages) {
        b.stages.push_back({trial, -1, st.name, ord++, st.calls, st.packets, st.cycles,
                            st.idle_calls, st.idle_cycles});
        if (st.cycles_per_call.count())
            b.histograms.push_back(
                histogram_row(trial, db::kStageCallCycles, st.name, "cycles", st.cycles_per_call));
    }
    for (const auto& e : s.edges) b.edges.push_back({trial, -1, e.from, e.to, e.packets});
    for (const auto& q : s.queues) {
        b.queues.push_back(queue_row(trial, -1, q));
        if (q.rx && q.burst_size.count())
            b.histograms.push_back(
                histogram_row(trial, db::kRxBurstSize, queue_subject(q), "packets", q.burst_size));
    }
    for (unsigned i = 0; i < kDropSlots; ++i) {
        if (!l.drops[i] && !l.send_drops[i]) continue;
        // Built-in reasons and those plugin stages declared (drop_names.h).
        const std::string reason = drop_slot_name(i), stage = drop_slot_stage(i);
        if (l.drops[i]) b.drops.push_back({trial, reason, stage, "receive", l.drops[i]});
        if (l.send_drops[i]) b.drops.push_back({trial, reason, stage, "send", l.send_drops[i]});
    }
    for (unsigned e = 0; e < kPathEventCount; ++e)
        b.events.push_back({trial, std::string(kPathEventNames[e]), s.events[e],
                            r.window_end.events[e] - r.window_start.events[e]});
    for (unsigned o = 0; o < kSojournCount; ++o)
        if (s.sojourn[o].count())
            b.histograms.push_back(histogram_row(trial, db::kLatency,
                                                 std::string(kSojournNames[o]), "cycles",
                                                 s.sojourn[o]));
    if (s.rr_latency.count())
        b.histograms.push_back(histogram_row(trial, db::kLatency, "rr", "cycles", s.rr_latency));
    const SendPathSnapshot& sp = s.send_path;
    auto fact = [&](const char* key, uint64_t v) {
        if (v) b.facts.emplace_back("trial" + std::to_string(trial) + "." + key, std::to_string(v));
    };
    fact("nd_solicitations", sp.solicitations);
    fact("nd_solicitations_sent", sp.control_sent);
    fact("nd_solicitations_refused", sp.control_drops);
    fact("ifaddr_changes", sp.ifaddr_changes);
    if (r.generated) {
        b.facts.emplace_back("trial" + std::to_string(trial) + ".generated",
                             std::to_string(r.generated));
        b.facts.emplace_back("trial" + std::to_string(trial) + ".returned",
                             std::to_string(r.returned));
    }
    // The generator's malformed frames, so that a run says how many of its drops it asked for.
    fact("generated_malformed", r.mix.total_malformed());
    if (several_workers(s)) add_worker_totals(b, trial, r);
    return b;
}

db::Batch interval_rows(int trial, int seq, double t, const EngineSnapshot& prev,
                        const EngineSnapshot& cur) {
    db::Batch b;
    const Ledger& a = prev.ledger;
    const Ledger& c = cur.ledger;
    b.intervals.push_back({trial, seq, t, c.received - a.received, c.delivered - a.delivered,
                           c.forwarded - a.forwarded, c.replied - a.replied,
                           c.total_drops() - a.total_drops(), c.sent - a.sent});
    for (size_t i = 0; i < cur.stages.size(); ++i) {
        const StageSnapshot& n = cur.stages[i];
        const StageSnapshot* o = i < prev.stages.size() ? &prev.stages[i] : nullptr;
        b.stages.push_back({trial, seq, n.name, static_cast<int>(i), n.calls - (o ? o->calls : 0),
                            n.packets - (o ? o->packets : 0), n.cycles - (o ? o->cycles : 0),
                            n.idle_calls - (o ? o->idle_calls : 0),
                            n.idle_cycles - (o ? o->idle_cycles : 0)});
    }
    // An edge appears once it has carried a packet: one the previous
    // snapshot lacks started from zero.
    std::map<std::pair<std::string, std::string>, uint64_t> before;
    for (const auto& e : prev.edges) before[{e.from, e.to}] = e.packets;
    for (const auto& e : cur.edges) {
        const auto it = before.find({e.from, e.to});
        const uint64_t delta = e.packets - (it == before.end() ? 0 : it->second);
        if (delta) b.edges.push_back({trial, seq, e.from, e.to, delta});
    }
    for (size_t i = 0; i < cur.queues.size(); ++i) {
        QueueSnapshot d = cur.queues[i];
        if (i < prev.queues.size()) {
            const QueueSnapshot& o = prev.queues[i];
            d.packets -= o.packets;
            d.bytes -= o.bytes;
            d.bursts -= o.bursts;
            d.empty_polls -= o.empty_polls;
            d.full -= o.full;
            d.calls -= o.calls;
            d.cycles -= o.cycles;
            d.idle_calls -= o.idle_calls;
            d.idle_cycles -= o.idle_cycles;
        }
        b.queues.push_back(queue_row(trial, seq, d));
    }
    if (several_workers(cur)) add_worker_deltas(b, trial, seq, prev, cur);
    return b;
}

}  // namespace pathscope::capture
