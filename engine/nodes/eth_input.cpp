// eth_input: Ethernet checks. Accepts frames for our MAC (or any, on a
// promiscuous port) and multicast, with EtherType IPv6; VLAN tags are not
// handled and count as eth_unknown_type. A frame whose length is not what
// its segments hold (eth_bad_length) goes no further: every stage after this
// one reads up to the frame's length.
#include "engine/nodes/nodes.h"

namespace pathscope::engine {

namespace {

/// Whether the frame's length is the sum of its segments' (one compare for a
/// one-segment frame). DPDK 22.11's net_pcap gives a frame of more than
/// 65535 bytes (a BIG TCP capture) segments for its length modulo 65536.
bool length_matches_segments(const rte_mbuf* m) {
    if (likely(m->nb_segs == 1)) return m->pkt_len == m->data_len;
    uint32_t held = 0;
    unsigned segs = 0;
    for (const rte_mbuf* s = m; s; s = s->next) held += s->data_len, ++segs;
    return held == m->pkt_len && segs == m->nb_segs;
}

enum Edge : rte_edge_t { to_ip6_input, to_drop };

uint16_t eth_input_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    EngineContext& ctx = *node_context(node);
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        if (unlikely(!length_matches_segments(m)))
            return drop_as(m, DropReason::eth_bad_length, to_drop);
        if (unlikely(rte_pktmbuf_data_len(m) < sizeof(rte_ether_hdr)))
            return drop_as(m, DropReason::eth_short, to_drop);
        const auto* eth = rte_pktmbuf_mtod(m, const rte_ether_hdr*);
        if (unlikely(eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6)))
            return drop_as(m, DropReason::eth_unknown_type, to_drop);
        const PortRuntime& port = ctx.ports[meta(m)->rx_port];
        if (unlikely(!port.promiscuous && !rte_is_same_ether_addr(&eth->dst_addr, &port.mac) &&
                     !rte_is_multicast_ether_addr(&eth->dst_addr)))
            return drop_as(m, DropReason::eth_not_for_us, to_drop);
        return to_ip6_input;
    });
    return n;
}

}  // namespace

void register_eth_input() { register_node(kEthInput, eth_input_process, {kIp6Input, kDrop}); }

}  // namespace pathscope::engine
