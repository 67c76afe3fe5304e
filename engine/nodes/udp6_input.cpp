// udp6_input: length and checksum checks, then the socket lookup: a socket
// connected to the sender (4-tuple) first, else one bound to the destination
// port, gets the datagram (delivered); with none, an ICMPv6 port unreachable
// goes back (rate-limited, counted as replied) or the packet is dropped as
// udp_no_socket.
#include "engine/nodes/nodes.h"

#include <cstring>

#include "engine/socket.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_tx, to_drop };

constexpr uint8_t kDestUnreachable = 1, kPortUnreachable = 4;
constexpr uint32_t kMinMtu = 1280;

/// Turns the packet into an ICMPv6 port unreachable carrying as much of the
/// original as fits in the minimum MTU, addressed back to its sender.
rte_edge_t port_unreachable(EngineContext& ctx, rte_mbuf* m) {
    const rte_ipv6_hdr* orig = ip6_hdr(m);
    uint8_t src[16], dst[16];
    memcpy(src, orig->dst_addr, 16);
    memcpy(dst, orig->src_addr, 16);
    const rte_ether_addr peer_mac = rte_pktmbuf_mtod(m, const rte_ether_hdr*)->src_addr;
    constexpr uint16_t kAdd = sizeof(rte_ipv6_hdr) + 8;
    if (!rte_pktmbuf_prepend(m, kAdd)) return drop_as(m, DropReason::udp_no_socket, to_drop);
    // Old Ethernet header now sits where the new IPv6 header goes: it is
    // overwritten; the original IPv6 packet follows the ICMPv6 header.
    const uint32_t ip_total = rte_pktmbuf_pkt_len(m) - kL3Offset;
    if (ip_total > kMinMtu) rte_pktmbuf_trim(m, ip_total - kMinMtu);
    const uint32_t icmp_len = rte_pktmbuf_pkt_len(m) - kL3Offset - sizeof(rte_ipv6_hdr);
    auto* eth = rte_pktmbuf_mtod(m, rte_ether_hdr*);
    eth->src_addr = peer_mac;  // reply_ethernet swaps it into the destination
    eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
    rte_ipv6_hdr* ip = ip6_hdr(m);
    ip->vtc_flow = RTE_BE32(6u << 28);
    ip->payload_len = rte_cpu_to_be_16(static_cast<uint16_t>(icmp_len));
    ip->proto = IPPROTO_ICMPV6;
    ip->hop_limits = 64;
    memcpy(ip->src_addr, src, 16);
    memcpy(ip->dst_addr, dst, 16);
    auto* icmp = reinterpret_cast<uint8_t*>(ip + 1);
    icmp[0] = kDestUnreachable;
    icmp[1] = kPortUnreachable;
    memset(icmp + 2, 0, 6);
    const uint16_t c =
        l4_checksum_field(m, ip, kL3Offset + sizeof(rte_ipv6_hdr), IPPROTO_ICMPV6, icmp_len);
    memcpy(icmp + 2, &c, 2);
    reply_ethernet(ctx, m);
    return to_tx;
}

uint16_t udp6_input_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    EngineContext& ctx = *node_context(node);
    uint16_t delivered = 0;
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        PacketMeta* pm = meta(m);
        const rte_ipv6_hdr* ip = ip6_hdr(m);
        const uint32_t l4_len =
            sizeof(rte_ipv6_hdr) + rte_be_to_cpu_16(ip->payload_len) - pm->l4_off;
        const uint32_t l4_off = kL3Offset + pm->l4_off;
        if (unlikely(l4_len < sizeof(rte_udp_hdr) ||
                     rte_pktmbuf_data_len(m) < l4_off + sizeof(rte_udp_hdr)))
            return drop_as(m, DropReason::udp_short, to_drop);
        const auto* udp = rte_pktmbuf_mtod_offset(m, const rte_udp_hdr*, l4_off);
        if (unlikely(rte_be_to_cpu_16(udp->dgram_len) != l4_len))
            return drop_as(m, DropReason::udp_bad_length, to_drop);
        if (unlikely(udp->dgram_cksum == 0 ||
                     ((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) != RTE_MBUF_F_RX_L4_CKSUM_GOOD &&
                      l4_checksum_sum(m, ip, l4_off, IPPROTO_UDP, l4_len) != 0xffff)))
            return drop_as(m, DropReason::udp_bad_checksum, to_drop);
        UdpSocket* s = nullptr;
        if (unlikely(ctx.connected_count)) {  // connected 4-tuple first
            ConnKey key;
            memcpy(key.remote, ip->src_addr, 16);
            key.remote_port = rte_be_to_cpu_16(udp->src_port);
            key.local_port = rte_be_to_cpu_16(udp->dst_port);
            void* found;
            if (rte_hash_lookup_data(ctx.connected, &key, &found) >= 0)
                s = static_cast<UdpSocket*>(found);
        }
        if (!s) s = ctx.bound[rte_be_to_cpu_16(udp->dst_port)];
        if (likely(s != nullptr)) {
            SocketMeta* sm = socket_meta(m);
            memcpy(sm->peer, ip->src_addr, 16);
            sm->peer_port = rte_be_to_cpu_16(udp->src_port);
            if (unlikely(!s->deliver(m))) return drop_as(m, DropReason::socket_full, to_drop);
            ++delivered;
            return kConsumed;
        }
        if (ip->dst_addr[0] != 0xff && ctx.icmp_error_allowed(pm->rx_tsc))
            return port_unreachable(ctx, m);
        return drop_as(m, DropReason::udp_no_socket, to_drop);
    });
    ctx.counters.delivered.add(delivered);
    return n;
}

}  // namespace

void register_udp6_input() { register_node(kUdp6Input, udp6_input_process, {kEthTx, kDrop}); }

}  // namespace pathscope::engine
