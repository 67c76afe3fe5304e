// Snapshots of the engine's counters: per stage, per worker and for the
// whole engine, read while the workers run.
#include "engine/engine.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <chrono>
#include <map>
#include <stdexcept>
#include <thread>

#include "engine/apps.h"
#include "engine/eal.h"
#include "engine/nodes/node.h"
#include "engine/tsan.h"
#include "engine/plugins/plugin_stages.h"
#include "engine/route_gen.h"
#include "engine/routes.h"
#include "engine/socket.h"

namespace pathscope::engine {

namespace {

/// Adds `st` to the stage of its name in `stages` (appended when new):
/// eth_rx instances sum into one "eth_rx", and workers into the engine.
void add_stage(std::vector<StageSnapshot>& stages, const StageSnapshot& st) {
    for (StageSnapshot& sum : stages) {
        if (sum.name != st.name) continue;
        sum.calls += st.calls;
        sum.packets += st.packets;
        sum.cycles += st.cycles;
        sum.idle_calls += st.idle_calls;
        sum.idle_cycles += st.idle_cycles;
        sum.cycles_per_call.merge(st.cycles_per_call);
        return;
    }
    stages.push_back(st);
}

void add_edge(std::vector<EdgeSnapshot>& edges, const EdgeSnapshot& e) {
    for (EdgeSnapshot& sum : edges)
        if (sum.from == e.from && sum.to == e.to) return void(sum.packets += e.packets);
    edges.push_back(e);
}

Ledger read_ledger(const WorkerContext& w) {
    const PathCounters& c = w.counters;
    Ledger l;
    // Read the terminal counters before `received`, so that a snapshot taken
    // while running never shows more outcomes than arrivals: each get() is
    // an acquire of a release store (counters.h), so `received`, counted
    // before any outcome, is at least what the outcomes read imply.
    l.delivered = c.delivered.get();
    l.forwarded = c.forwarded.get();
    l.replied = c.replied.get();
    for (unsigned r = 0; r < kDropSlots; ++r) {
        l.drops[r] = c.drops[r].get();
        l.send_drops[r] = c.send_drops[r].get();
    }
    l.sent = c.sent.get();
    l.sends = w.send_path.sends.get();
    l.received = c.received.get();
    return l;
}

}  // namespace

StageSnapshot Engine::stage_snapshot(const Worker& w, rte_node_t id, bool histograms) const {
    const WorkerContext& wc = *w.ctx;
    const rte_node* n = rte_graph_node_get(w.graph_id, id);
    StageSnapshot st;
    st.name = stage_name(id);
    st.packets = __atomic_load_n(&n->total_objs, __ATOMIC_ACQUIRE);
    st.idle_calls = wc.idle[id].calls.get();
    st.idle_cycles = wc.idle[id].cycles.get();
    if (cfg_.call_histograms) {
        // Our walk counts each call once, as busy (the per-call
        // histogram's count and sum) or idle, from the same rdtsc pair as
        // the graph library's totals. Totals summed from these two
        // only-growing parts never hold less than
        // their idle part, and their deltas never run backwards; the graph
        // library's totals, read at another moment than the idle
        // counters, could (an idle call counted in one and not yet in the
        // other). They agree once the worker has stopped.
        // engine.timing = "1/N": the untimed walks' calls, counted, and
        // their estimated cycles (all zero when every walk is timed).
        const UntimedCounters& u = wc.untimed[id];
        st.idle_calls += u.idle_calls.get();
        st.idle_cycles += u.idle_cycles.get();
        st.calls = wc.call_cycles[id].count() + u.busy_calls.get() + st.idle_calls;
        st.cycles = wc.call_cycles[id].sum() + u.busy_cycles.get() + st.idle_cycles;
    } else {
        st.calls = __atomic_load_n(&n->total_calls, __ATOMIC_ACQUIRE);
        st.cycles = __atomic_load_n(&n->total_cycles, __ATOMIC_ACQUIRE);
    }
    if (histograms) st.cycles_per_call = wc.call_cycles[id].snapshot();
    return st;
}

WorkerSnapshot Engine::worker_snapshot(const Worker& w, bool histograms) const {
    const WorkerContext& wc = *w.ctx;
    WorkerSnapshot s;
    s.worker = wc.index;
    s.lcore = w.lcore;
    s.walks = wc.walks.walks.get();
    s.idle_walks = wc.walks.idle_walks.get();
    s.interrupted_calls = wc.walks.interrupted.get();
    s.interrupted_cycles = wc.walks.interrupted_cycles.get();
    for (const rte_node_t id : w.stages) {
        StageSnapshot st = stage_snapshot(w, id, histograms);
        add_stage(s.stages, st);
    }
    if (wc.index == 0 && !apps_.empty() && cfg_.call_histograms) {
        // The applications, after the graph's stages.
        const AppPollCounters& polls = wc.app_polls;
        StageSnapshot& st = s.stages.emplace_back();
        st.name = kAppsStage;
        st.packets = polls.datagrams.get();
        st.idle_calls = polls.idle.calls.get() + polls.untimed.idle_calls.get();
        st.idle_cycles = polls.idle.cycles.get() + polls.untimed.idle_cycles.get();
        st.calls = polls.busy.count() + polls.untimed.busy_calls.get() + st.idle_calls;
        st.cycles = polls.busy.sum() + polls.untimed.busy_cycles.get() + st.idle_cycles;
        if (histograms) st.cycles_per_call = polls.busy.snapshot();
    }
    for (size_t row = 0; row < edge_names_.size(); ++row) {
        const bool table = row + 1 == edge_names_.size();
        for (unsigned slot = 0; slot < edge_names_[row].size(); ++slot) {
            const uint64_t packets = wc.edges[row].to[slot].get();
            if (packets == 0) continue;
            add_edge(s.edges, {table ? kNeighbourTable : stage_name(static_cast<rte_node_t>(row)),
                               edge_names_[row][slot], packets});
        }
    }
    s.ledger = read_ledger(wc);
    return s;
}

EngineSnapshot Engine::snapshot(bool histograms) const {
    EngineSnapshot s;
    s.tsc_hz = ctx_->tsc_hz;
    s.tsc = rte_rdtsc();
    for (const auto& w : workers_) s.workers.push_back(worker_snapshot(*w, histograms));
    // The engine's figures: the workers' summed, stage by stage (each
    // worker's stages are in path order, and worker 0 has every stage the
    // others have), edge by edge.
    for (const auto& w : s.workers) {
        for (const StageSnapshot& st : w.stages) add_stage(s.stages, st);
        for (const EdgeSnapshot& e : w.edges) add_edge(s.edges, e);
        s.walks += w.walks;
        s.idle_walks += w.idle_walks;
        s.ledger.add(w.ledger);
    }
    for (uint16_t id = 0; id < port_names_.size(); ++id) {
        if (port_names_[id].empty()) continue;
        const PortRuntime& p = ctx_->ports[id];
        auto queue = [&](uint16_t q, bool rx) {
            QueueSnapshot& qs = s.queues.emplace_back();
            qs.port = p.name;
            qs.queue = q;
            qs.rx = rx;
            return &qs;
        };
        for (uint16_t q = 0; p.poll && q < p.nb_rx; ++q) {  // unpolled queues have nothing to show
            QueueSnapshot* qs = queue(q, true);
            const RxQueueCounters& c = p.rxq[q];
            qs->packets = c.packets.get();
            qs->bytes = c.bytes.get();
            qs->bursts = c.bursts.get();
            qs->empty_polls = c.empty_polls.get();
            if (histograms) qs->burst_size = c.burst_size.snapshot();
            for (const auto& w : workers_)
                for (const rte_node_t n : w->rx_nodes) {
                    if (ctx_->rx_queue_of[n].port != id || ctx_->rx_queue_of[n].queue != q) continue;
                    const StageSnapshot st = stage_snapshot(*w, n, false);
                    qs->worker = w->ctx->index;
                    qs->calls = st.calls;
                    qs->cycles = st.cycles;
                    qs->idle_calls = st.idle_calls;
                    qs->idle_cycles = st.idle_cycles;
                }
        }
        for (uint16_t q = 0; q < p.nb_tx; ++q) {
            QueueSnapshot* qs = queue(q, false);
            const TxQueueCounters& c = p.txq[q];
            qs->packets = c.packets.get();
            qs->bytes = c.bytes.get();
            qs->bursts = c.bursts.get();
            qs->full = c.full.get();
            qs->worker = q % cfg_.workers;
        }
    }
    s.send_path.ifaddr_changes = churned_.load();
    for (const auto& w : ctx_->workers) {
        const SendPathCounters& sp = w->send_path;
        s.send_path.route_lookups += sp.route_lookups.get();
        s.send_path.source_selections += sp.source_selections.get();
        s.send_path.solicitations += sp.solicitations.get();
        s.send_path.control_sent += sp.control_sent.get();
        s.send_path.control_drops += sp.control_drops.get();
        for (unsigned e = 0; e < kPathEventCount; ++e) s.events[e] += w->events.v[e].get();
        for (unsigned o = 0; o < kSojournCount; ++o)
            s.sojourn[o].merge(w->latency.sojourn[o].snapshot());
        s.rr_latency.merge(w->latency.rr.snapshot());
    }
    return s;
}

}  // namespace pathscope::engine
