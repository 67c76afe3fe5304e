// The graph walk, timed at every node boundary, and the loops that run it:
// the workers' (worker_main) and the control thread's (poll).
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

// rte_graph_walk with the engine's own timing: one timestamp at every node
// boundary (the end of one node call is the start of the next, so a walk of
// N node calls takes N + 1 timestamps, not the 2N of a pair a call), a
// per-call cycle histogram of busy calls, and the calls that handled
// nothing (source stages polling empty queues) counted apart, so that idle
// polling is never charged to packets. The bookkeeping after a call (the
// histogram, the counters: about 5 cycles) is charged to the next call.
//
// Untimed (engine.timing = "1/N", the walks between timed ones): no
// timestamp; each call is counted exactly and its cycles estimated from its
// stage's timed calls (UntimedCounters). A timed walk among untimed ones
// finds colder caches (its bookkeeping lines, touched one walk in N): on an
// AMD EPYC VM the estimate reads within 1% of timing every walk at N = 4
// and 1.5-3% above it at N = 16 (tests/engine/timing_test.cpp). Prefetching
// those lines before a timed walk did not close the gap, so it is not done.
//
// Traced (worker 0, a few dozen walks a second): the same timed walk,
// following one received packet: the first one eth_input sees, with its
// share of the eth_rx call that brought it in. Every stage whose input
// holds it records the packet's share of that call.
template <bool kTraced>
void Engine::walk_loop(Worker& w, const bool timed, uint64_t now) {
    WorkerContext& wc = *w.ctx;
    rte_graph* graph = w.graph;
    const rte_graph_off_t* cir_start = graph->cir_start;
    const rte_node_t mask = graph->cir_mask;
    uint32_t head = graph->head;
    HistogramRecorder* hist = wc.call_cycles.get();
    IdleCounters* idle = wc.idle.get();
    UntimedCounters* untimed = wc.untimed.get();
    uint32_t handled = 0;
    [[maybe_unused]] PacketTrace* tr = kTraced ? traces_.slot() : nullptr;
    [[maybe_unused]] const rte_mbuf* traced = nullptr;
    [[maybe_unused]] float source_share = 0;  ///< its eth_rx call's cycles per packet
    [[maybe_unused]] uint16_t source = 0;     ///< that eth_rx instance
    const uint64_t interrupted = interrupted_limit_;
    uint64_t stamp = timed ? rte_rdtsc() : 0;
    while (likely(head != graph->tail)) {
        rte_node* node =
            static_cast<rte_node*>(RTE_PTR_ADD(graph, cir_start[static_cast<int32_t>(head++)]));
        void** objs = node->objs;
        const uint16_t n = node->idx;
        [[maybe_unused]] bool holds = false;
        if constexpr (kTraced) {
            if (tr && n) holds = trace_input(*tr, *node, traced, now, source_share, source);
        } else {
            rte_prefetch0(objs);
        }
        const uint16_t rc = node->process(graph, node, objs, n);
        // The graph library's own totals, which snapshots read while the
        // worker runs: stored as our counters are (counters.h).
        store_count(node->total_calls, node->total_calls + 1);
        store_count(node->total_objs, node->total_objs + rc);
        handled += rc;
        if (timed) {
            const uint64_t after = rte_rdtsc();
            const uint64_t cycles = after - stamp;
            stamp = after;
            store_count(node->total_cycles, node->total_cycles + cycles);
            if (unlikely(cycles > interrupted)) {
                // Preempted in the call: counted as an untimed call (the
                // stage's recent cycles per packet), its wall cycles apart.
                wc.walks.interrupted.add();
                wc.walks.interrupted_cycles.add(cycles);
                if (rc)
                    untimed[node->id].untimed_busy(rc);
                else
                    untimed[node->id].untimed_idle();
            } else if (likely(rc)) {
                hist[node->id].record(cycles);
                untimed[node->id].timed_busy(cycles, rc);
            } else {
                idle[node->id].calls.add();
                idle[node->id].cycles.add(cycles);
                untimed[node->id].timed_idle(cycles);
            }
            if constexpr (kTraced) {
                // The first eth_rx instance that brought packets: the traced
                // packet is the first of eth_input's input, which that call's
                // packets head.
                if (!n && rc && !traced && source_share == 0 && is_rx_node_[node->id]) {
                    source_share = static_cast<float>(cycles) / static_cast<float>(rc);
                    source = static_cast<uint16_t>(node->id);
                }
                if (holds && tr->stages < PacketTrace::kMaxStages) {
                    tr->node[tr->stages] = static_cast<uint16_t>(node->id);
                    tr->cycles[tr->stages] = static_cast<float>(cycles) / static_cast<float>(n);
                    tr->stages++;
                }
            }
        } else if (likely(rc)) {
            untimed[node->id].untimed_busy(rc);
        } else {
            untimed[node->id].untimed_idle();
        }
        node->idx = 0;
        head = likely(static_cast<int32_t>(head) > 0) ? head & mask : head;
    }
    graph->tail = 0;
    wc.walks.walks.add();
    if (!handled) wc.walks.idle_walks.add();
    if constexpr (kTraced) {
        if (traced) {  // a walk without packets leaves the trace armed for the next one
            traces_.publish();
            trace_next_ = now + trace_period_.load(std::memory_order_relaxed);
        } else if (!tr) {
            trace_next_ = now + trace_period_.load(std::memory_order_relaxed);  // ring full: skip
        }
    }
}

bool Engine::trace_input(PacketTrace& tr, const rte_node& node, const rte_mbuf*& traced,
                         uint64_t now, float source_share, uint16_t source) const {
    void* const* objs = node.objs;
    const uint16_t n = node.idx;
    if (!traced && node.id == trace_entry_) {
        traced = static_cast<const rte_mbuf*>(objs[0]);
        tr.tsc = now;
        tr.port = meta(traced)->rx_port;  // mbuf->port is unset on ring ports
        tr.wire_len = static_cast<uint16_t>(rte_pktmbuf_pkt_len(traced));
        tr.cap_len = static_cast<uint16_t>(
            std::min<uint32_t>(rte_pktmbuf_data_len(traced), PacketTrace::kMaxBytes));
        std::memcpy(tr.data.data(), rte_pktmbuf_mtod(traced, const void*), tr.cap_len);
        tr.stages = 0;
        tr.outcome = PacketTrace::Outcome::unknown;
        if (source_share > 0) {
            tr.node[0] = source;
            tr.cycles[0] = source_share;
            tr.stages = 1;
        }
    }
    bool holds = false;
    for (uint16_t i = 0; traced && i < n && !holds; ++i) holds = objs[i] == traced;
    // The packet may be freed by this stage: read its fate first.
    if (holds && node.id == trace_drop_) {
        tr.outcome = PacketTrace::Outcome::dropped;
        tr.drop = static_cast<uint16_t>(meta(traced)->drop);
    } else if (holds && node.id == trace_tx_) {
        tr.outcome = meta(traced)->fate == Fate::reply ? PacketTrace::Outcome::replied
                                                       : PacketTrace::Outcome::forwarded;
    }
    return holds;
}

bool Engine::walk_once(Worker& w) {
    if (!cfg_.call_histograms) {
        rte_graph_walk(w.graph);
        return true;
    }
    WorkerContext& wc = *w.ctx;
    if (wc.index == 0) {
        const uint64_t period = trace_period_.load(std::memory_order_relaxed);
        if (unlikely(period != 0)) {
            const uint64_t now = rte_rdtsc();
            if (now >= trace_next_) {
                walk_loop<true>(w, true, now);
                return true;
            }
        }
    }
    const uint64_t every = timing_period_.load(std::memory_order_relaxed);
    const bool timed = every <= 1 || wc.walk_number++ % every == 0;
    walk_loop<false>(w, timed, 0);
    return timed;
}

void Engine::set_timing_period(uint32_t every) {
    if (every == 0) throw std::runtime_error("engine.timing must time one walk in N, N at least 1");
    timing_period_ = every;
}

void Engine::set_trace_rate(uint32_t per_second) {
    if (per_second && !cfg_.call_histograms)
        throw std::runtime_error(
            "packet traces need engine.call_histograms = true (they ride on the engine's own "
            "graph walk)");
    trace_period_ = per_second ? ctx_->tsc_hz / per_second : 0;
}

std::string Engine::node_name(uint16_t node) const {
    if (!rte_node_id_to_name(node)) return "node" + std::to_string(node);
    return stage_name(node);
}

int Engine::worker_tid(unsigned w) const {
    const Worker& wk = *workers_.at(w);
    while (running_ && wk.tid.load() == 0) std::this_thread::yield();
    return wk.tid.load();
}

uint64_t Engine::poll() {
    uint64_t before = 0;
    for (const auto& w : ctx_->workers) before += w->counters.received.get();
    bool timed = true;
    for (auto& w : workers_) {
        ctx_->ifaddrs->online(w->ctx->index);  // the caller is the reader while it walks
        const bool t = walk_once(*w);
        if (w->ctx->index == 0) timed = t;
        ctx_->ifaddrs->offline(w->ctx->index);
    }
    ctx_->ifaddrs->online(0);
    poll_apps(timed);
    ctx_->ifaddrs->offline(0);
    uint64_t after = 0;
    for (const auto& w : ctx_->workers) after += w->counters.received.get();
    return after - before;
}

void Engine::poll_apps(bool timed) {
    if (!cfg_.call_histograms) {
        for (auto& app : apps_) app->poll();
        return;
    }
    if (apps_.empty()) return;
    WorkerContext& wc = ctx_->app_worker();
    AppPollCounters& polls = wc.app_polls;
    if (!timed) {  // engine.timing = "1/N": counted, its cycles estimated
        unsigned handled = 0;
        for (auto& app : apps_) handled += app->poll();
        if (handled) {
            polls.untimed.untimed_busy(handled);
            polls.datagrams.add(handled);
        } else {
            polls.untimed.untimed_idle();
        }
        return;
    }
    const uint64_t start = rte_rdtsc();
    unsigned handled = 0;
    for (auto& app : apps_) handled += app->poll();
    const uint64_t cycles = rte_rdtsc() - start;
    if (unlikely(cycles > interrupted_limit_)) {  // preempted: as in walk_loop
        wc.walks.interrupted.add();
        wc.walks.interrupted_cycles.add(cycles);
        if (handled) {
            polls.untimed.untimed_busy(handled);
            polls.datagrams.add(handled);
        } else {
            polls.untimed.untimed_idle();
        }
    } else if (handled) {
        polls.busy.record(cycles);
        polls.datagrams.add(handled);
        polls.untimed.timed_busy(cycles, handled);
    } else {
        polls.idle.calls.add();
        polls.idle.cycles.add(cycles);
        polls.untimed.timed_idle(cycles);
    }
}

void Engine::run_until_idle(unsigned idle_polls) {
    for (unsigned idle = 0; idle < idle_polls;) idle = poll() ? 0 : idle + 1;
}

int Engine::worker_main(void* arg) {
    auto& w = *static_cast<Worker*>(arg);
    Engine* self = w.engine;
    w.tid = static_cast<int>(rte_sys_gettid());
    const unsigned me = w.ctx->index;
    const bool apps = me == 0;  // the applications run on worker 0
    const InterfaceAddresses& ifaddrs = *self->ctx_->ifaddrs;
    const bool rcu = ifaddrs.sync() == IfaddrSync::rcu;
    ifaddrs.online(me);
    while (!self->stop_.load(std::memory_order_relaxed)) {
        const bool timed = self->walk_once(w);
        if (apps) self->poll_apps(timed);
        if (rcu) ifaddrs.quiescent(me);  // no address list reference survives a walk
    }
    // What the applications queued in their last poll is still in the socket
    // send rings: one more walk sends it, so that sends = sent + send drops.
    if (apps) self->walk_once(w);
    ifaddrs.offline(me);
    w.done.store(true, std::memory_order_release);
    return 0;
}

}  // namespace pathscope::engine
