// udp6_output: the send path's source stage. Drains every socket's send
// ring and, per datagram, finds the route (the one a connected socket keeps
// when engine.route_cache is on, otherwise a FIB lookup) and the source
// address (fixed by bind or connect, otherwise RFC 6724 selection over the
// egress port's current addresses), then writes the UDP header with its
// checksum and the IPv6 addresses. Each failure has its own drop reason, in
// the send ledger.
#include "engine/nodes/nodes.h"

#include <cstring>

#include "engine/socket.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_ip6_output, to_drop };

constexpr uint16_t kHeaders = sizeof(rte_ether_hdr) + sizeof(rte_ipv6_hdr) + sizeof(rte_udp_hdr);

/// The checksum field of the datagram whose headers were just written, from
/// the addresses given and the UDP header's 16-bit fields read at the width
/// they were written, rather than the header read back in 8-byte words: a
/// wide load of what narrower stores just wrote cannot be forwarded from
/// them and waits for them to reach the cache (a third of this stage's
/// cycles on an AMD EPYC VM when it read the header back).
uint16_t udp_checksum(const rte_mbuf* m, const rte_ipv6_hdr* ip, const uint8_t* src,
                      const uint8_t* dst, const rte_udp_hdr* udp, uint32_t payload) {
    if (unlikely(m->nb_segs != 1)) {  // over several segments: summed from the mbuf
        return l4_checksum_field(m, ip, kL3Offset + sizeof(rte_ipv6_hdr), IPPROTO_UDP,
                                 static_cast<uint32_t>(payload + sizeof(rte_udp_hdr)));
    }
    // Pseudo header, then the UDP header with a zero checksum: 16-bit words
    // in network order, as the payload's.
    const auto l4_len = static_cast<uint32_t>(payload + sizeof(rte_udp_hdr));
    const uint64_t sum = pseudo_header_sum(src, dst, IPPROTO_UDP, l4_len) + udp->src_port +
                         udp->dst_port + udp->dgram_len;
    const uint16_t c = static_cast<uint16_t>(~ones_sum(udp + 1, payload, sum));
    return c == 0 ? 0xffff : c;  // RFC 8200 8.1: zero is sent as all ones
}

rte_edge_t build(WorkerContext& w, const UdpSocket& s, rte_mbuf* m, RuleTally& tally) {
    EngineContext& ctx = w.engine;
    PacketMeta* pm = meta(m);
    const SocketMeta* sm = socket_meta(m);
    uint32_t nh_id;
    if (!(ctx.route_cache && s.cached_route(ctx.route_generation, &nh_id)))
        nh_id = ctx.route(sm->peer, s.fixed_source(), tally);
    // No route, our own address, or a policy rule's unreachable / prohibit /
    // blackhole: each its own drop reason.
    if (unlikely(nh_id < kNexthopFirstRoute)) return drop_as(m, outcome_drop(nh_id), to_drop);
    uint8_t selected[16];
    const uint8_t* src = s.fixed_source();  // read in place: no copy to read back
    if (!src) {
        w.send_path.source_selections.add();
        if (unlikely(!ctx.ifaddrs->select_source(ctx.nexthops[nh_id].port, sm->peer, selected)))
            return drop_as(m, DropReason::udp_no_source, to_drop);
        src = selected;
    }
    const uint32_t payload = rte_pktmbuf_pkt_len(m);
    if (unlikely(payload > UINT16_MAX - sizeof(rte_udp_hdr) || !rte_pktmbuf_prepend(m, kHeaders)))
        return drop_as(m, DropReason::udp_no_headroom, to_drop);
    rte_ipv6_hdr* ip = ip6_hdr(m);
    const uint16_t l4_len = static_cast<uint16_t>(payload + sizeof(rte_udp_hdr));
    ip->proto = IPPROTO_UDP;
    memcpy(ip->src_addr, src, 16);
    memcpy(ip->dst_addr, sm->peer, 16);
    auto* udp = reinterpret_cast<rte_udp_hdr*>(ip + 1);
    udp->src_port = rte_cpu_to_be_16(s.local_port());
    udp->dst_port = rte_cpu_to_be_16(sm->peer_port);
    udp->dgram_len = rte_cpu_to_be_16(l4_len);
    udp->dgram_cksum = 0;
    udp->dgram_cksum = udp_checksum(m, ip, src, sm->peer, udp, payload);
    pm->nexthop = nh_id;
    pm->l4_off = sizeof(rte_ipv6_hdr);
    pm->l4_proto = IPPROTO_UDP;
    pm->rx_tsc = 0;
    // engine.ila: a SIR (internal) source goes out as its locator (external prefix).
    DropReason why;
    if (unlikely(ctx.ila != IlaMode::off) && !xlat_output(w, m, &why))
        return drop_as(m, why, to_drop);
    return to_ip6_output;
}

uint16_t udp6_output_process(rte_graph* graph, rte_node* node, void**, uint16_t) {
    WorkerContext& w = *node_worker(node);
    EngineContext& ctx = w.engine;
    rte_mbuf* pkts[RTE_GRAPH_BURST_SIZE];
    uint16_t total = 0;
    RuleTally tally;  // the route lookups' path events, added once per call
    for (UdpSocket* s : ctx.sockets) {
        const unsigned got = s->take_outgoing(pkts, RTE_GRAPH_BURST_SIZE);
        if (!got) continue;
        dispatch(graph, node, reinterpret_cast<void**>(pkts), static_cast<uint16_t>(got),
                 [&](rte_mbuf* m) { return build(w, *s, m, tally); });
        total += static_cast<uint16_t>(got);
    }
    tally.flush(w.events);
    return total;
}

}  // namespace

void register_udp6_output() {
    register_node(kUdp6Output, udp6_output_process, {kIp6Output, kDrop}, true);
}

}  // namespace pathscope::engine
