// ip6_forward: hop limit check and decrement, Ethernet rewrite toward the
// next hop found by ip6_lookup. Time-exceeded errors are not sent yet: such
// packets count as ip6_hop_limit drops.
#include "engine/nodes/nodes.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_tx, to_drop };

uint16_t ip6_forward_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    EngineContext& ctx = *node_context(node);
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        rte_ipv6_hdr* ip = ip6_hdr(m);
        if (unlikely(ip->hop_limits <= 1)) return drop_as(m, DropReason::ip6_hop_limit, to_drop);
        PacketMeta* pm = meta(m);
        const Nexthop& nh = ctx.nexthops[pm->nexthop];
        auto* eth = rte_pktmbuf_mtod(m, rte_ether_hdr*);
        if (nh.kind == NexthopKind::onlink) {
            if (unlikely(!ctx.neighbour(ip->dst_addr, &eth->dst_addr)))
                return drop_as(m, DropReason::nd_unresolved, to_drop);
        } else {
            eth->dst_addr = nh.mac;
        }
        --ip->hop_limits;
        eth->src_addr = ctx.ports[nh.port].mac;
        pm->tx_port = nh.port;
        return to_tx;
    });
    return n;
}

}  // namespace

void register_ip6_forward() { register_node(kIp6Forward, ip6_forward_process, {kEthTx, kDrop}); }

}  // namespace pathscope::engine
