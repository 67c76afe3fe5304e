// nd_resolve: the link-layer address of an on-link destination from the
// neighbour table. Known: written and on to txq_select. Unknown: a new
// INCOMPLETE entry, its first solicitation at once, and the packet held
// (nd_queue_full when the entry holds its limit). Solicitations due again
// and neighbours that never answered are handled here and by nd_timer.
#include "engine/nodes/nodes.h"

#include <cstring>

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_txq_select, to_drop };

uint16_t nd_resolve_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    NeighbourTable& nd = *w.engine.neighbours;
    const NeighbourLock lock(w.engine);
    uint64_t now = 0;
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        const rte_ipv6_hdr* ip = ip6_hdr(m);
        NeighbourTable::Entry* e = nd.find(ip->dst_addr);
        if (likely(e && e->reachable)) {
            rte_pktmbuf_mtod(m, rte_ether_hdr*)->dst_addr = e->mac;
            return to_txq_select;
        }
        if (!e) {
            if (!now) now = rte_rdtsc();
            e = nd.create(ip->dst_addr, meta(m)->tx_port, now);
            if (!e) return drop_as(m, DropReason::nd_queue_full, to_drop);
        }
        if (!nd.hold(*e, m)) return drop_as(m, DropReason::nd_queue_full, to_drop);
        return kConsumed;
    });
    // What the table sends on its own (solicitations, packets that timed
    // out) comes from the neighbour table, not from this call's packets.
    if (now) nd_service(w, graph, node, now, to_txq_select, to_drop, *w.neighbour_edges);
    return n;
}

/// Runs every graph walk; reads the clock only while a neighbour is being resolved.
uint16_t nd_timer_process(rte_graph* graph, rte_node* node, void**, uint16_t) {
    WorkerContext& w = *node_worker(node);
    const NeighbourTable& nd = *w.engine.neighbours;
    if (likely(nd.next_due() == UINT64_MAX)) return 0;  // read without the lock: a hint
    const uint64_t now = rte_rdtsc();
    if (now < nd.next_due()) return 0;
    const NeighbourLock lock(w.engine);
    return nd_service(w, graph, node, now, to_txq_select, to_drop, *node_edges(node));
}

}  // namespace

uint16_t nd_service(WorkerContext& w, rte_graph* graph, rte_node* node, uint64_t now,
                    rte_edge_t to_tx, rte_edge_t to_drop, EdgeCounters& counted) {
    EngineContext& ctx = w.engine;
    uint16_t out = 0;
    ctx.neighbours->expire(
        now,
        [&](NeighbourTable::Entry& e) {
            if (rte_mbuf* ns = make_solicitation(w, e.port, e.addr.data())) {
                rte_node_enqueue_x1(graph, node, to_tx, ns);
                counted.add(to_tx, 1);
                ++out;
            }
            ctx.neighbours->probed(e, now);
        },
        [&](NeighbourTable::Entry& e) {
            for (unsigned i = 0; i < e.held; ++i) {
                meta(e.hold[i])->drop = DropReason::nd_timeout;
                rte_node_enqueue_x1(graph, node, to_drop, e.hold[i]);
            }
            counted.add(to_drop, e.held);
            out += e.held;
            e.held = 0;
        });
    return out;
}

rte_mbuf* make_solicitation(WorkerContext& w, uint16_t port_id, const uint8_t* target) {
    const EngineContext& ctx = w.engine;
    const PortRuntime& port = ctx.ports[port_id];
    uint8_t src[16];
    if (!ctx.ifaddrs->select_source(port_id, target, src)) return nullptr;  // nothing to ask from
    rte_mbuf* m = rte_pktmbuf_alloc(ctx.pool);
    if (!m) return nullptr;
    constexpr uint16_t kIcmpLen = 32;  // NS header, target, source link-layer address option
    auto* eth = reinterpret_cast<rte_ether_hdr*>(
        rte_pktmbuf_append(m, kL3Offset + sizeof(rte_ipv6_hdr) + kIcmpLen));
    // The target's solicited-node group (ff02::1:ff00:0/104 with the target's
    // last 24 bits) and that group's multicast MAC (33:33 and its last 32 bits).
    uint8_t group[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff};
    memcpy(group + 13, target + 13, 3);
    const uint8_t mac[6] = {0x33, 0x33, 0xff, target[13], target[14], target[15]};
    memcpy(eth->dst_addr.addr_bytes, mac, 6);
    eth->src_addr = port.mac;
    eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
    rte_ipv6_hdr* ip = ip6_hdr(m);
    ip->vtc_flow = RTE_BE32(6u << 28);
    ip->payload_len = rte_cpu_to_be_16(kIcmpLen);
    ip->proto = IPPROTO_ICMPV6;
    ip->hop_limits = 255;
    memcpy(ip->src_addr, src, 16);
    memcpy(ip->dst_addr, group, 16);
    auto* msg = reinterpret_cast<uint8_t*>(ip + 1);
    memset(msg, 0, kIcmpLen);
    msg[0] = 135;  // neighbour solicitation
    memcpy(msg + 8, target, 16);
    msg[24] = 1;  // source link-layer address option, 8 bytes
    msg[25] = 1;
    memcpy(msg + 26, port.mac.addr_bytes, 6);
    auto* icmp = reinterpret_cast<rte_icmp_hdr*>(msg);
    icmp->icmp_cksum =
        l4_checksum_field(m, ip, kL3Offset + sizeof(rte_ipv6_hdr), IPPROTO_ICMPV6, kIcmpLen);
    PacketMeta* pm = meta(m);
    pm->fate = Fate::control;
    pm->tx_port = port_id;
    pm->tx_queue = 0;
    pm->l4_off = sizeof(rte_ipv6_hdr);
    pm->l4_proto = IPPROTO_ICMPV6;
    pm->drop = DropReason::tx_full;
    w.send_path.solicitations.add();
    return m;
}

void register_nd_resolve() {
    register_node(kNdResolve, nd_resolve_process, {kTxqSelect, kDrop});
    register_node(kNdTimer, nd_timer_process, {kTxqSelect, kDrop}, true);
}

}  // namespace pathscope::engine
