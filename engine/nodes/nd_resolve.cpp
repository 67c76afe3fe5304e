// nd_resolve: the link-layer address of an on-link destination. Known to
// the shared neighbour cache (read without a lock): written, and on to
// txq_select. Unknown: a new pending entry of this worker, its first
// solicitation at once, and the packet held (nd_queue_full when the entry
// holds its limit). nd_timer, on every worker, sends the packet back here
// once the cache knows its neighbour (learnt by whichever worker received
// the advertisement), solicits again when due, and drops what waited too
// long (nd_timeout): a held packet leaves on the worker that held it.
#include "engine/nodes/nodes.h"

#include <cstring>

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_txq_select, to_drop, to_nd_resolve };

uint16_t nd_resolve_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    const NeighbourCache& cache = *w.engine.neighbours;
    PendingNeighbours& pending = *w.pending_neighbours;
    uint64_t now = 0;
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        const rte_ipv6_hdr* ip = ip6_hdr(m);
        if (likely(cache.find(ip->dst_addr, rte_pktmbuf_mtod(m, rte_ether_hdr*)->dst_addr)))
            return to_txq_select;
        PendingNeighbours::Entry* e = pending.find(ip->dst_addr);
        if (!e) {
            if (!now) now = rte_rdtsc();
            e = pending.create(ip->dst_addr, meta(m)->tx_port, now);
            if (!e) return drop_as(m, DropReason::nd_queue_full, to_drop);
        }
        if (!pending.hold(*e, m)) return drop_as(m, DropReason::nd_queue_full, to_drop);
        return kConsumed;
    });
    // What the table sends on its own (solicitations, packets that timed
    // out) comes from the neighbour table, not from this call's packets.
    if (now) nd_service(w, graph, node, now, to_txq_select, to_drop, *w.neighbour_edges);
    return n;
}

/// Runs every graph walk of every worker; does nothing while the worker
/// holds no packet, and reads the clock only while it does.
uint16_t nd_timer_process(rte_graph* graph, rte_node* node, void**, uint16_t) {
    WorkerContext& w = *node_worker(node);
    PendingNeighbours& pending = *w.pending_neighbours;
    if (likely(pending.empty())) return 0;
    // Neighbours learnt since (by any worker): their packets go back to
    // nd_resolve, which now finds the address. They leave the neighbour
    // table, not this stage.
    uint16_t out = 0;
    pending.release_known(*w.engine.neighbours, [&](PendingNeighbours::Entry& e) {
        for (unsigned i = 0; i < e.held; ++i) rte_node_enqueue_x1(graph, node, to_nd_resolve, e.hold[i]);
        w.neighbour_edges->add(to_nd_resolve, e.held);
        out = static_cast<uint16_t>(out + e.held);
        e.held = 0;
    });
    if (pending.empty()) return out;
    const uint64_t now = rte_rdtsc();
    if (now < pending.next_due()) return out;
    return static_cast<uint16_t>(
        out + nd_service(w, graph, node, now, to_txq_select, to_drop, *node_edges(node)));
}

}  // namespace

uint16_t nd_service(WorkerContext& w, rte_graph* graph, rte_node* node, uint64_t now,
                    rte_edge_t to_tx, rte_edge_t to_drop, EdgeCounters& counted) {
    PendingNeighbours& pending = *w.pending_neighbours;
    uint16_t out = 0;
    pending.expire(
        now,
        [&](PendingNeighbours::Entry& e) {
            if (rte_mbuf* ns = make_solicitation(w, e.port, e.addr.data())) {
                rte_node_enqueue_x1(graph, node, to_tx, ns);
                counted.add(to_tx, 1);
                ++out;
            }
            pending.probed(e, now);
        },
        [&](PendingNeighbours::Entry& e) {
            for (unsigned i = 0; i < e.held; ++i) {
                meta(e.hold[i])->drop = DropReason::nd_timeout;
                rte_node_enqueue_x1(graph, node, to_drop, e.hold[i]);
            }
            counted.add(to_drop, e.held);
            out = static_cast<uint16_t>(out + e.held);
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
    register_node(kNdTimer, nd_timer_process, {kTxqSelect, kDrop, kNdResolve}, true);
}

}  // namespace pathscope::engine
