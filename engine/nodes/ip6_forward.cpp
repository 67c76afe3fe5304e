// ip6_forward: hop limit check and decrement, Ethernet rewrite toward the
// next hop found by ip6_lookup (an on-link destination's link-layer address
// comes from nd_resolve), then on to txq_select. A packet whose hop limit runs out gets an
// ICMPv6 time exceeded back (rate-limited, counted as replied) or is dropped
// as ip6_hop_limit.
#include "engine/nodes/nodes.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_txq_select, to_nd_resolve, to_tx, to_drop };

constexpr uint8_t kTimeExceeded = 3, kHopLimitExceeded = 0;

rte_edge_t hop_limit_exceeded(WorkerContext& w, rte_mbuf* m) {
    EngineContext& ctx = w.engine;
    const PacketMeta* pm = meta(m);
    const PortRuntime& in = ctx.ports[pm->rx_port];
    if (!in.addresses.empty() && w.icmp_error_allowed(pm->rx_tsc) &&
        make_icmp6_error(ctx, m, kTimeExceeded, kHopLimitExceeded, in.addresses[0].data()))
        return to_tx;
    return drop_as(m, DropReason::ip6_hop_limit, to_drop);
}

uint16_t ip6_forward_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    EngineContext& ctx = w.engine;
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        rte_ipv6_hdr* ip = ip6_hdr(m);
        if (unlikely(ip->hop_limits <= 1)) return hop_limit_exceeded(w, m);
        PacketMeta* pm = meta(m);
        const Nexthop& nh = ctx.nexthops[pm->nexthop];
        auto* eth = rte_pktmbuf_mtod(m, rte_ether_hdr*);
        --ip->hop_limits;
        eth->src_addr = ctx.ports[nh.port].mac;
        pm->tx_port = nh.port;
        if (unlikely(nh.kind == NexthopKind::onlink)) return to_nd_resolve;
        eth->dst_addr = nh.mac;
        return to_txq_select;
    });
    return n;
}

}  // namespace

void register_ip6_forward() { register_node(kIp6Forward, ip6_forward_process, {kTxqSelect, kNdResolve, kEthTx, kDrop}); }

}  // namespace pathscope::engine
