// drop: the one sink for every dropped packet. Counts it under its reason in
// the receive ledger, or in the send ledger for locally built packets; the
// engine's own solicitations count apart. A received packet's time through
// the engine is recorded as a dropped sojourn.
#include "engine/nodes/nodes.h"
#include "engine/socket.h"

namespace pathscope::engine {

namespace {

uint16_t drop_process(rte_graph*, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    EngineContext& ctx = w.engine;
    const uint64_t now = ctx.latency_histograms ? rte_rdtsc() : 0;
    for (uint16_t i = 0; i < n; ++i) {
        auto* m = static_cast<rte_mbuf*>(objs[i]);
        const PacketMeta* pm = meta(m);
        if (unlikely(pm->fate == Fate::control)) {
            w.send_path.control_drops.add();
            continue;
        }
        release_if_sent(m);  // a dropped datagram leaves its socket's send buffer too
        Counter* ledger = pm->fate == Fate::local ? w.counters.send_drops : w.counters.drops;
        ledger[static_cast<unsigned>(pm->drop)].add();
        if (now && pm->fate != Fate::local) w.latency.record(Sojourn::dropped, now - pm->rx_tsc);
    }
    rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(objs), n);
    return n;
}

}  // namespace

void register_drop() { register_node(kDrop, drop_process, {}); }

}  // namespace pathscope::engine
