// udp6_output: the send path, a source stage that drains every socket's send
// ring. Builds the UDP and IPv6 headers (source address: the egress port's
// first address), looks the route up per packet and resolves the next hop's
// link-layer address. Losses count in the send ledger.
#include "engine/nodes/nodes.h"

#include <cstring>

#include "engine/socket.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_tx, to_drop };

constexpr uint16_t kHeaders = sizeof(rte_ether_hdr) + sizeof(rte_ipv6_hdr) + sizeof(rte_udp_hdr);

rte_edge_t build(EngineContext& ctx, rte_mbuf* m) {
    PacketMeta* pm = meta(m);
    const SocketMeta* sm = socket_meta(m);
    const uint32_t payload = rte_pktmbuf_pkt_len(m);
    uint64_t nh_id = kNexthopNone;
    uint8_t dst[1][RTE_FIB6_IPV6_ADDR_SIZE];
    memcpy(dst[0], sm->peer, 16);
    rte_fib6_lookup_bulk(ctx.fib, dst, &nh_id, 1);
    if (nh_id == kNexthopNone || nh_id == kNexthopLocal)
        return drop_as(m, DropReason::ip6_no_route, to_drop);
    const Nexthop& nh = ctx.nexthops[nh_id];
    const PortRuntime& port = ctx.ports[nh.port];
    if (port.addresses.empty() || !rte_pktmbuf_prepend(m, kHeaders))
        return drop_as(m, DropReason::ip6_no_route, to_drop);
    auto* eth = rte_pktmbuf_mtod(m, rte_ether_hdr*);
    if (nh.kind == NexthopKind::onlink) {
        if (!ctx.neighbour(sm->peer, &eth->dst_addr))
            return drop_as(m, DropReason::nd_unresolved, to_drop);
    } else {
        eth->dst_addr = nh.mac;
    }
    eth->src_addr = port.mac;
    eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
    rte_ipv6_hdr* ip = ip6_hdr(m);
    const uint16_t l4_len = static_cast<uint16_t>(payload + sizeof(rte_udp_hdr));
    ip->vtc_flow = RTE_BE32(6u << 28);
    ip->payload_len = rte_cpu_to_be_16(l4_len);
    ip->proto = IPPROTO_UDP;
    ip->hop_limits = 64;
    memcpy(ip->src_addr, port.addresses[0].data(), 16);
    memcpy(ip->dst_addr, sm->peer, 16);
    auto* udp = reinterpret_cast<rte_udp_hdr*>(ip + 1);
    udp->src_port = rte_cpu_to_be_16(sm->local_port);
    udp->dst_port = rte_cpu_to_be_16(sm->peer_port);
    udp->dgram_len = rte_cpu_to_be_16(l4_len);
    udp->dgram_cksum = 0;
    udp->dgram_cksum =
        l4_checksum_field(m, ip, kL3Offset + sizeof(rte_ipv6_hdr), IPPROTO_UDP, l4_len);
    pm->tx_port = nh.port;
    return to_tx;
}

uint16_t udp6_output_process(rte_graph* graph, rte_node* node, void**, uint16_t) {
    EngineContext& ctx = *node_context(node);
    rte_mbuf* pkts[RTE_GRAPH_BURST_SIZE];
    uint16_t total = 0;
    for (UdpSocket* s : ctx.sockets) {
        const unsigned got = s->take_outgoing(pkts, RTE_GRAPH_BURST_SIZE);
        for (unsigned i = 0; i < got; ++i)
            rte_node_enqueue_x1(graph, node, build(ctx, pkts[i]), pkts[i]);
        total += static_cast<uint16_t>(got);
    }
    return total;
}

}  // namespace

void register_udp6_output() {
    register_node(kUdp6Output, udp6_output_process, {kEthTx, kDrop}, true);
}

}  // namespace pathscope::engine
