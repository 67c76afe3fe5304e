// eth_tx: transmits runs of packets that share an egress port on queue 0,
// counts each sent packet by its fate (forwarded, replied, sent) and hands
// what the queue refused to the drop stage as tx_full.
#include "engine/nodes/nodes.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_drop };

void count_sent(EngineContext& ctx, rte_mbuf** pkts, uint16_t n) {
    uint64_t fwd = 0, rep = 0, loc = 0;
    for (uint16_t i = 0; i < n; ++i) {
        const Fate f = meta(pkts[i])->fate;
        fwd += f == Fate::forward;
        rep += f == Fate::reply;
        loc += f == Fate::local;
    }
    if (fwd) ctx.counters.forwarded.add(fwd);
    if (rep) ctx.counters.replied.add(rep);
    if (loc) ctx.counters.sent.add(loc);
}

uint16_t eth_tx_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    EngineContext& ctx = *node_context(node);
    auto** pkts = reinterpret_cast<rte_mbuf**>(objs);
    uint16_t start = 0;
    while (start < n) {
        const uint16_t port_id = meta(pkts[start])->tx_port;
        uint16_t end = start + 1;
        while (end < n && meta(pkts[end])->tx_port == port_id) ++end;
        const uint16_t len = end - start;
        PortRuntime& port = ctx.ports[port_id];
        const uint16_t sent = port.nb_tx ? rte_eth_tx_burst(port_id, 0, pkts + start, len) : 0;
        uint64_t bytes = 0;
        for (uint16_t i = 0; i < sent; ++i) bytes += rte_pktmbuf_pkt_len(pkts[start + i]);
        if (port.nb_tx) {
            TxQueueCounters& qc = port.txq[0];
            qc.packets.add(sent);
            qc.bytes.add(bytes);
            qc.bursts.add();
            if (sent < len) qc.full.add(len - sent);
        }
        count_sent(ctx, pkts + start, sent);
        for (uint16_t i = sent; i < len; ++i) {
            meta(pkts[start + i])->drop = DropReason::tx_full;
            rte_node_enqueue_x1(graph, node, to_drop, pkts[start + i]);
        }
        start = end;
    }
    return n;
}

}  // namespace

void register_eth_tx() { register_node(kEthTx, eth_tx_process, {kDrop}); }

}  // namespace pathscope::engine
