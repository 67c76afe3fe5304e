// ip6_lookup: the route lookup, in bulk over the burst on rte_fib6 (trie).
// Our own addresses are /128 routes to the "local" next hop; multicast goes
// to ip6_local when we joined the group. With policy rules (or the fast path
// off) each packet walks the rules instead (fib_rules.h), and a rule may end
// it as unreachable, prohibit or blackhole.
#include "engine/nodes/nodes.h"

#include <cstring>

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_local, to_forward, to_drop, to_ila_late };

// The table choice: one bulk lookup in the main table on the fast path,
// otherwise the rules walk per packet (source address and input port are
// selectors). Path events are counted once for the burst.
inline void choose_routes(WorkerContext& w, void** objs,
                          uint8_t (*dst)[RTE_FIB6_IPV6_ADDR_SIZE], uint64_t* nh,
                          uint16_t len) {
    const FibRules& fib = w.engine.fib;
    if (likely(fib.direct())) {
        rte_fib6_lookup_bulk(fib.main(), dst, nh, len);
        w.events.add(PathEvent::routes_resolved, len);
        w.events.add(PathEvent::fib_lookups, len);
        return;
    }
    RuleTally tally;
    for (uint16_t i = 0; i < len; ++i) {
        auto* m = static_cast<rte_mbuf*>(objs[i]);
        nh[i] = fib.walk(dst[i], ip6_hdr(m)->src_addr, meta(m)->rx_port, tally);
    }
    tally.flush(w.events);
}

uint16_t ip6_lookup_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    EngineContext& ctx = w.engine;
    // One bulk FIB lookup per burst; the classifier below reads the results
    // in order (dispatch calls it once per packet, first to last).
    uint8_t dst[RTE_GRAPH_BURST_SIZE][RTE_FIB6_IPV6_ADDR_SIZE];
    uint64_t nh[RTE_GRAPH_BURST_SIZE];
    for (uint16_t base = 0; base < n; base += RTE_GRAPH_BURST_SIZE) {
        const uint16_t len = std::min<uint16_t>(RTE_GRAPH_BURST_SIZE, n - base);
        for_each_packet(reinterpret_cast<rte_mbuf**>(objs + base), len,
                        [&](rte_mbuf* m, uint16_t i) { memcpy(dst[i], ip6_hdr(m)->dst_addr, 16); });
        choose_routes(w, objs + base, dst, nh, len);
        uint16_t i = 0;
        dispatch(graph, node, objs + base, len, [&](rte_mbuf* m) -> rte_edge_t {
            const uint64_t hop = nh[i];
            const uint8_t* d = dst[i++];
            if (unlikely(d[0] == 0xff)) {
                if (!ctx.joined(d)) return drop_as(m, DropReason::ip6_mcast_not_joined, to_drop);
                return to_local;
            }
            if (hop == kNexthopLocal) return to_local;
            if (unlikely(hop == kNexthopTranslate)) return to_ila_late;  // engine.ila late, nptv6
            if (unlikely(hop < kNexthopFirstRoute)) return drop_as(m, outcome_drop(hop), to_drop);
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
