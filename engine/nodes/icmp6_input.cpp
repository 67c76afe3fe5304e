// icmp6_input: answers echo requests and neighbour solicitations for our
// addresses in place (counted as replied), learns neighbours from
// solicitations and advertisements into the shared neighbour cache (the
// worker that held packets for them sends them on: nd_timer), and drops
// every other type by name.
#include "engine/nodes/nodes.h"

#include <cstring>

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_tx, to_drop };

constexpr uint8_t kEchoRequest = 128, kEchoReply = 129;
constexpr uint8_t kNeighSolicit = 135, kNeighAdvert = 136;
constexpr uint8_t kOptSourceLl = 1, kOptTargetLl = 2;
constexpr uint32_t kNdMsgLen = 24;  // type, code, checksum, flags/reserved, target

/// Makes the ICMPv6 message follow the IPv6 header directly (dropping any
/// extension headers) and returns a pointer to it.
uint8_t* strip_extensions(rte_mbuf* m) {
    PacketMeta* pm = meta(m);
    const uint16_t extra = pm->l4_off - sizeof(rte_ipv6_hdr);
    if (extra) {
        memmove(rte_pktmbuf_mtod_offset(m, uint8_t*, extra), rte_pktmbuf_mtod(m, uint8_t*),
                kL3Offset + sizeof(rte_ipv6_hdr));
        rte_pktmbuf_adj(m, extra);
        pm->l4_off = sizeof(rte_ipv6_hdr);
    }
    return rte_pktmbuf_mtod_offset(m, uint8_t*, kL3Offset + sizeof(rte_ipv6_hdr));
}

void finish_reply(EngineContext& ctx, rte_mbuf* m, uint32_t icmp_len) {
    rte_ipv6_hdr* ip = ip6_hdr(m);
    ip->proto = IPPROTO_ICMPV6;
    ip->payload_len = rte_cpu_to_be_16(static_cast<uint16_t>(icmp_len));
    auto* icmp = reinterpret_cast<rte_icmp_hdr*>(ip + 1);
    icmp->icmp_cksum = 0;
    icmp->icmp_cksum =
        l4_checksum_field(m, ip, kL3Offset + sizeof(rte_ipv6_hdr), IPPROTO_ICMPV6, icmp_len);
    reply_ethernet(ctx, m);
}

/// Finds a link-layer address option of `type` in ND options.
const uint8_t* find_ll_option(const uint8_t* opt, uint32_t len, uint8_t type) {
    while (len >= 8) {
        const uint32_t olen = opt[1] * 8u;
        if (olen == 0 || olen > len) return nullptr;
        if (opt[0] == type && olen >= 8) return opt + 2;
        opt += olen;
        len -= olen;
    }
    return nullptr;
}

rte_edge_t echo(EngineContext& ctx, rte_mbuf* m, uint32_t icmp_len) {
    rte_ipv6_hdr* ip = ip6_hdr(m);
    uint8_t src[16];
    memcpy(src, ip->dst_addr, 16);
    if (src[0] == 0xff) {  // answer a multicast echo from our address on that port
        const PortRuntime& port = ctx.ports[meta(m)->rx_port];
        if (port.addresses.empty()) return drop_as(m, DropReason::icmp6_unhandled, to_drop);
        memcpy(src, port.addresses[0].data(), 16);
    }
    uint8_t* msg = strip_extensions(m);
    ip = ip6_hdr(m);
    memcpy(ip->dst_addr, ip->src_addr, 16);
    memcpy(ip->src_addr, src, 16);
    ip->hop_limits = 64;
    msg[0] = kEchoReply;
    finish_reply(ctx, m, icmp_len);
    return to_tx;
}

rte_edge_t solicitation(WorkerContext& w, rte_mbuf* m, const uint8_t* msg, uint32_t icmp_len) {
    EngineContext& ctx = w.engine;
    const rte_ipv6_hdr* ip = ip6_hdr(m);
    const uint8_t* target = msg + 8;
    if (ip->hop_limits != 255 || msg[1] != 0 || icmp_len < kNdMsgLen || target[0] == 0xff ||
        !ctx.is_local(target))
        return drop_as(m, DropReason::icmp6_ns_invalid, to_drop);
    static const uint8_t unspecified[16] = {};
    if (memcmp(ip->src_addr, unspecified, 16) ==
        0)  // duplicate address detection: not ours to answer
        return drop_as(m, DropReason::icmp6_ns_invalid, to_drop);
    if (const uint8_t* ll = find_ll_option(msg + kNdMsgLen, icmp_len - kNdMsgLen, kOptSourceLl)) {
        rte_ether_addr mac;
        memcpy(mac.addr_bytes, ll, RTE_ETHER_ADDR_LEN);
        ctx.neighbours->learn(ip->src_addr, mac);
    }
    uint8_t tgt[16];
    memcpy(tgt, target, 16);
    // Build the advertisement: header, target, our link-layer address option.
    uint8_t* na = strip_extensions(m);
    constexpr uint32_t kNaLen = kNdMsgLen + 8;
    const uint32_t have = rte_pktmbuf_pkt_len(m) - kL3Offset - sizeof(rte_ipv6_hdr);
    if (have < kNaLen) {
        if (!rte_pktmbuf_append(m, kNaLen - have))
            return drop_as(m, DropReason::icmp6_ns_invalid, to_drop);
    } else if (have > kNaLen) {
        trim_frame(m, have - kNaLen);
    }
    rte_ipv6_hdr* oip = ip6_hdr(m);
    memcpy(oip->dst_addr, oip->src_addr, 16);
    memcpy(oip->src_addr, tgt, 16);
    oip->hop_limits = 255;
    na[0] = kNeighAdvert;
    na[1] = 0;
    memset(na + 4, 0, 4);
    na[4] = 0x60;  // solicited, override
    memcpy(na + 8, tgt, 16);
    na[24] = kOptTargetLl;
    na[25] = 1;
    memcpy(na + 26, ctx.ports[meta(m)->rx_port].mac.addr_bytes, RTE_ETHER_ADDR_LEN);
    finish_reply(ctx, m, kNaLen);
    return to_tx;
}

uint16_t icmp6_input_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    EngineContext& ctx = w.engine;
    uint16_t consumed = 0;
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        const PacketMeta* pm = meta(m);
        const rte_ipv6_hdr* ip = ip6_hdr(m);
        const uint32_t icmp_len =
            sizeof(rte_ipv6_hdr) + rte_be_to_cpu_16(ip->payload_len) - pm->l4_off;
        const uint32_t l4_off = kL3Offset + pm->l4_off;
        if (unlikely(icmp_len < 8 || rte_pktmbuf_data_len(m) < l4_off + 8))
            return drop_as(m, DropReason::icmp6_short, to_drop);
        if (unlikely(l4_checksum_sum(m, ip, l4_off, IPPROTO_ICMPV6, icmp_len) != 0xffff))
            return drop_as(m, DropReason::icmp6_bad_checksum, to_drop);
        const uint8_t* msg = rte_pktmbuf_mtod_offset(m, const uint8_t*, l4_off);
        if (msg[0] != kEchoRequest && msg[0] != kNeighSolicit && msg[0] != kNeighAdvert)
            return drop_as(m, DropReason::icmp6_unhandled, to_drop);
        if (rte_pktmbuf_data_len(m) < l4_off + icmp_len)  // ND and echo are handled in one segment
            return drop_as(m, DropReason::icmp6_short, to_drop);
        if (msg[0] == kEchoRequest) return echo(ctx, m, icmp_len);
        if (msg[0] == kNeighSolicit) return solicitation(w, m, msg, icmp_len);
        // Neighbour advertisement: learn, then the packet is consumed here.
        if (icmp_len >= kNdMsgLen && ip->hop_limits == 255) {
            if (const uint8_t* ll =
                    find_ll_option(msg + kNdMsgLen, icmp_len - kNdMsgLen, kOptTargetLl)) {
                rte_ether_addr mac;
                memcpy(mac.addr_bytes, ll, RTE_ETHER_ADDR_LEN);
                ctx.neighbours->learn(msg + 8, mac);
            }
        }
        if (ctx.latency_histograms) w.latency.record(Sojourn::delivered, rte_rdtsc() - pm->rx_tsc);
        rte_pktmbuf_free(m);  // consumed by the stack: counts as delivered
        ++consumed;
        return kConsumed;
    });
    w.counters.delivered.add(consumed);
    return n;
}

}  // namespace

void register_icmp6_input() { register_node(kIcmp6Input, icmp6_input_process, {kEthTx, kDrop}); }

}  // namespace pathscope::engine
