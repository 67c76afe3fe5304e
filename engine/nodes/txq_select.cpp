// txq_select: the transmit queue of each packet. engine.txq_hash = flow
// spreads flows over the egress port's queues by a hash of the addresses and
// (for UDP and TCP) the ports, so one flow stays on one queue and keeps its
// order; none puts everything on queue 0.
#include "engine/nodes/nodes.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_eth_tx };

inline uint16_t flow_queue(rte_mbuf* m, const PacketMeta* pm, uint16_t queues) {
    const rte_ipv6_hdr* ip = ip6_hdr(m);
    uint32_t h = rte_hash_crc(ip->src_addr, 32, 0);  // source and destination addresses
    const uint32_t l4 = kL3Offset + pm->l4_off;
    if ((pm->l4_proto == IPPROTO_UDP || pm->l4_proto == IPPROTO_TCP) &&
        rte_pktmbuf_data_len(m) >= l4 + 4)
        h = rte_hash_crc_4byte(*rte_pktmbuf_mtod_offset(m, const uint32_t*, l4), h);
    return static_cast<uint16_t>((uint64_t{h} * queues) >> 32);  // multiply-shift, no division
}

uint16_t txq_select_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    EngineContext& ctx = *node_context(node);
    const bool hash = ctx.txq_hash == TxqHash::flow;
    for (uint16_t i = 0; i < n; ++i) {
        auto* m = static_cast<rte_mbuf*>(objs[i]);
        PacketMeta* pm = meta(m);
        const uint16_t queues = ctx.ports[pm->tx_port].nb_tx;
        pm->tx_queue = hash && queues > 1 && pm->fate != Fate::control ? flow_queue(m, pm, queues)
                                                                        : 0;
    }
    rte_node_next_stream_move(graph, node, to_eth_tx);
    return n;
}

}  // namespace

void register_txq_select() { register_node(kTxqSelect, txq_select_process, {kEthTx}); }

}  // namespace pathscope::engine
