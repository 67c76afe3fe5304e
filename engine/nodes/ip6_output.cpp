// ip6_output: the rest of the IPv6 header of a locally sent datagram from
// its socket (hop limit, traffic class, flow label) and its length, then the
// Ethernet header toward the next hop of its route: a next hop with a known
// link-layer address goes straight to txq_select, an on-link destination to
// nd_resolve.
#include "engine/nodes/nodes.h"

#include "engine/socket.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_txq_select, to_nd_resolve };

uint16_t ip6_output_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    EngineContext& ctx = *node_context(node);
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        PacketMeta* pm = meta(m);
        const UdpSocket* s = socket_meta(m)->socket;
        rte_ipv6_hdr* ip = ip6_hdr(m);
        ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | uint32_t{s->traffic_class()} << 20 |
                                        s->flow_label());
        ip->hop_limits = s->hop_limit();
        ip->payload_len = rte_cpu_to_be_16(
            static_cast<uint16_t>(rte_pktmbuf_pkt_len(m) - kL3Offset - sizeof(rte_ipv6_hdr)));
        const Nexthop& nh = ctx.nexthops[pm->nexthop];
        auto* eth = rte_pktmbuf_mtod(m, rte_ether_hdr*);
        eth->src_addr = ctx.ports[nh.port].mac;
        eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
        pm->tx_port = nh.port;
        if (nh.kind == NexthopKind::onlink) return to_nd_resolve;
        eth->dst_addr = nh.mac;
        return to_txq_select;
    });
    return n;
}

}  // namespace

void register_ip6_output() {
    register_node(kIp6Output, ip6_output_process, {kTxqSelect, kNdResolve});
}

}  // namespace pathscope::engine
