// ip6_lookup: the route lookup, in bulk over the burst on rte_fib6 (trie).
// Our own addresses are /128 routes to the "local" next hop; multicast goes
// to ip6_local when we joined the group.
#include "engine/nodes/nodes.h"

#include <cstring>

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_local, to_forward, to_drop, to_ila_late };

uint16_t ip6_lookup_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    EngineContext& ctx = *node_context(node);
    // One bulk FIB lookup per burst; the classifier below reads the results
    // in order (dispatch calls it once per packet, first to last).
    uint8_t dst[RTE_GRAPH_BURST_SIZE][RTE_FIB6_IPV6_ADDR_SIZE];
    uint64_t nh[RTE_GRAPH_BURST_SIZE];
    for (uint16_t base = 0; base < n; base += RTE_GRAPH_BURST_SIZE) {
        const uint16_t len = std::min<uint16_t>(RTE_GRAPH_BURST_SIZE, n - base);
        for (uint16_t i = 0; i < len; ++i)
            memcpy(dst[i], ip6_hdr(static_cast<rte_mbuf*>(objs[base + i]))->dst_addr, 16);
        rte_fib6_lookup_bulk(ctx.fib, dst, nh, len);
        uint16_t i = 0;
        dispatch(graph, node, objs + base, len, [&](rte_mbuf* m) -> rte_edge_t {
            const uint64_t hop = nh[i];
            const uint8_t* d = dst[i++];
            if (unlikely(d[0] == 0xff)) {
                if (!ctx.joined(d)) return drop_as(m, DropReason::ip6_mcast_not_joined, to_drop);
                return to_local;
            }
            if (hop == kNexthopLocal) return to_local;
            if (unlikely(hop == kNexthopNone)) return drop_as(m, DropReason::ip6_no_route, to_drop);
            if (unlikely(hop == kNexthopTranslate)) return to_ila_late;  // engine.ila late, nptv6
            meta(m)->nexthop = static_cast<uint32_t>(hop);
            return to_forward;
        });
    }
    return n;
}

}  // namespace

void register_ip6_lookup() {
    register_node(kIp6Lookup, ip6_lookup_process, {kIp6Local, kIp6Forward, kDrop, kIlaLate});
}

}  // namespace pathscope::engine
