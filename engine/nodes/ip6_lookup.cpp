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

/// Each packet's destination into `dst`. On the fast path a run of packets to
/// the same address (the host's own address, a flow's train) keeps one copy:
/// `at[i]` is packet i's entry in `dst`, and the count of entries is
/// returned. A local address is a /128, 14 dependent reads down the trie, so
/// one lookup for the run instead of one per packet is most of this stage's
/// cost on the receive path. The rules walk selects on each packet's source
/// and port too, so it gets every packet's own entry.
inline uint16_t gather_destinations(void** objs, uint16_t len, bool runs,
                                    uint8_t (*dst)[RTE_FIB6_IPV6_ADDR_SIZE], uint8_t* at) {
    // Without a branch: every address is written at entry k, which becomes
    // an entry only when it differs from the one before (a repeat is
    // overwritten by the next), so a forwarded burst of many destinations
    // pays no mispredicted compare.
    uint16_t k = 0;
    uint64_t prev_lo = 0, prev_hi = 0;
    for_each_packet(reinterpret_cast<rte_mbuf**>(objs), len, [&](rte_mbuf* m, uint16_t i) {
        uint64_t lo, hi;
        memcpy(&lo, ip6_hdr(m)->dst_addr, 8);
        memcpy(&hi, ip6_hdr(m)->dst_addr + 8, 8);
        memcpy(dst[k], &lo, 8);
        memcpy(dst[k] + 8, &hi, 8);
        const bool repeat = runs && k && ((lo ^ prev_lo) | (hi ^ prev_hi)) == 0;
        k = static_cast<uint16_t>(k + !repeat);
        at[i] = static_cast<uint8_t>(k - 1);
        prev_lo = lo;
        prev_hi = hi;
    });
    return k;
}

// The table choice: one bulk lookup in the main table on the fast path
// (`direct`, of the `k` distinct entries), otherwise the rules walk per
// packet (source address and input port are selectors). Path events are
// counted once for the burst, a packet each: a packet that shares its run's
// lookup still had its route resolved in the main table.
inline void choose_routes(WorkerContext& w, void** objs,
                          uint8_t (*dst)[RTE_FIB6_IPV6_ADDR_SIZE], uint64_t* nh,
                          uint16_t len, uint16_t k, bool direct) {
    const FibRules& fib = w.engine.fib;
    if (likely(direct)) {
        rte_fib6_lookup_bulk(fib.main(), dst, nh, k);
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
    static_assert(RTE_GRAPH_BURST_SIZE <= 256, "at[] holds an entry index in a byte");
    uint8_t dst[RTE_GRAPH_BURST_SIZE][RTE_FIB6_IPV6_ADDR_SIZE];
    uint64_t nh[RTE_GRAPH_BURST_SIZE];
    uint8_t at[RTE_GRAPH_BURST_SIZE];
    const bool direct = ctx.fib.direct();  // one answer for the gather and the lookup
    for (uint16_t base = 0; base < n; base += RTE_GRAPH_BURST_SIZE) {
        const uint16_t len = std::min<uint16_t>(RTE_GRAPH_BURST_SIZE, n - base);
        const uint16_t k = gather_destinations(objs + base, len, direct, dst, at);
        choose_routes(w, objs + base, dst, nh, len, k, direct);
        uint16_t i = 0;
        dispatch(graph, node, objs + base, len, [&](rte_mbuf* m) -> rte_edge_t {
            const uint8_t e = at[i++];
            const uint64_t hop = nh[e];
            const uint8_t* d = dst[e];
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
