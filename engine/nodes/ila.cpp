// Address translation on the packet path (engine.ila): the receive side in
// two places, and the send side called by udp6_output.
//   ila_early (ila = "early"): right after ip6_input's checks, before early
//     demux, so that demux sees the SIR address a connected socket holds. A
//     destination without a mapping goes on untranslated.
//   ila_late (ila = "late" or "nptv6"): where ip6_lookup sends a destination
//     whose route's next hop is "translate", as Linux's ILA lightweight
//     tunnel input does. It translates, then looks the new destination up
//     again (local delivery, usually). Early demux has already missed.
// ILA keeps upper-layer checksums valid by an incremental adjustment (RFC
// 1624) of the UDP or ICMPv6 checksum for the 64 bits that changed (Linux's
// "adj-transport" mode); NPTv6 is checksum-neutral by construction.
#include "engine/nodes/nodes.h"

#include <cstring>

namespace pathscope::engine {

namespace {

/// Adjusts the UDP/ICMPv6 checksum of `m` for upper 64 address bits going
/// from `from` to `to`. False when the checksum is not in the packet.
bool adjust_l4(rte_mbuf* m, const PacketMeta* pm, const uint8_t* from, const uint8_t* to) {
    uint32_t field;
    if (pm->l4_proto == IPPROTO_UDP)
        field = offsetof(rte_udp_hdr, dgram_cksum);
    else if (pm->l4_proto == IPPROTO_ICMPV6)
        field = 2;
    else
        return true;  // no checksum the engine knows covers the address (nothing else is delivered)
    // ip6_input trimmed a received packet to its IPv6 length (and a datagram
    // being sent has no payload length yet): the first segment's end bounds it.
    const uint32_t at = kL3Offset + pm->l4_off + field;
    if (unlikely(at + 2 > rte_pktmbuf_data_len(m))) return false;
    auto* p = rte_pktmbuf_mtod_offset(m, uint8_t*, at);
    uint16_t c;
    memcpy(&c, p, 2);
    if (pm->l4_proto == IPPROTO_UDP && c == 0) return true;  // none: udp6_input drops it
    c = adjust_checksum64(c, from, to);
    if (pm->l4_proto == IPPROTO_UDP && c == 0)
        c = 0xffff;  // RFC 768: a computed zero is sent as ones
    memcpy(p, &c, 2);
    return true;
}

/// Rewrites the upper half of `addr` (in `m`) to `upper`, keeping the checksum valid.
bool ila_rewrite(WorkerContext& w, rte_mbuf* m, uint8_t* addr, const uint8_t* upper,
                 DropReason* why) {
    if (unlikely(!adjust_l4(m, meta(m), addr, upper))) {
        *why = DropReason::ila_no_checksum;
        return false;
    }
    memcpy(addr, upper, 8);
    w.events.add(PathEvent::ila_translations);
    return true;
}

/// Counts an NPTv6 rewrite's result: true when the address was translated,
/// or (refused) false with `why` set; no mapping is false with `why` untouched.
bool nptv6_done(WorkerContext& w, Nptv6Table::Result r, DropReason* why, bool* refused) {
    *refused = r == Nptv6Table::Result::no_adjust_word;
    if (*refused) *why = DropReason::nptv6_no_adjust_word;
    if (r != Nptv6Table::Result::translated) return false;
    w.events.add(PathEvent::nptv6_translations);
    return true;
}

}  // namespace

bool xlat_input(WorkerContext& w, rte_mbuf* m, DropReason* why) {
    const EngineContext& ctx = w.engine;
    uint8_t* dst = ip6_hdr(m)->dst_addr;
    if (ctx.ila == IlaMode::nptv6) {
        bool refused;
        if (nptv6_done(w, ctx.nptv6.rx(dst), why, &refused)) return true;
        if (!refused) *why = DropReason::xlat_no_mapping;
        return false;
    }
    uint8_t sir[8];
    if (!ctx.ila_table || !ctx.ila_table->rx(dst, meta(m)->rx_port, sir)) {
        *why = DropReason::xlat_no_mapping;
        return false;
    }
    return ila_rewrite(w, m, dst, sir, why);
}

bool xlat_output(WorkerContext& w, rte_mbuf* m, DropReason* why) {
    const EngineContext& ctx = w.engine;
    uint8_t* src = ip6_hdr(m)->src_addr;
    if (ctx.ila == IlaMode::nptv6) {
        bool refused;
        nptv6_done(w, ctx.nptv6.tx(src), why, &refused);
        return !refused;  // translated, or not an internal source: sent as it is
    }
    uint8_t locator[8];
    if (!ctx.ila_table || !ctx.ila_table->tx(src, locator)) return true;  // not a SIR address
    return ila_rewrite(w, m, src, locator, why);
}

namespace {

enum EarlyEdge : rte_edge_t { early_to_demux, early_to_lookup, early_to_drop };

uint16_t ila_early_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    const EngineContext& ctx = w.engine;
    const rte_edge_t next = ctx.early_demux ? early_to_demux : early_to_lookup;
    // One bulk lookup in the mapping table per chunk; multicast is never translated.
    constexpr uint16_t kChunk = RTE_HASH_LOOKUP_BULK_MAX;
    const uint8_t* addrs[kChunk];
    uint16_t ports[kChunk];
    uint8_t upper[kChunk][8];
    int8_t slot[kChunk];  ///< a packet's place in the bulk lookup; -1: none
    for (uint16_t base = 0; base < n; base += kChunk) {
        const uint16_t len = std::min<uint16_t>(kChunk, n - base);
        unsigned nkeys = 0;
        for (uint16_t i = 0; i < len; ++i) {
            rte_mbuf* m = static_cast<rte_mbuf*>(objs[base + i]);
            const uint8_t* dst = ip6_hdr(m)->dst_addr;
            slot[i] = -1;
            if (unlikely(dst[0] == 0xff) || !ctx.ila_table) continue;
            addrs[nkeys] = dst;
            ports[nkeys] = meta(m)->rx_port;
            slot[i] = static_cast<int8_t>(nkeys++);
        }
        const uint64_t hits = nkeys ? ctx.ila_table->rx_bulk(addrs, ports, nkeys, upper) : 0;
        uint16_t i = 0;
        dispatch(graph, node, objs + base, len, [&](rte_mbuf* m) -> rte_edge_t {
            const int8_t k = slot[i++];
            if (k < 0 || !(hits >> k & 1)) return next;  // no mapping: on as it is
            DropReason why;
            if (ila_rewrite(w, m, ip6_hdr(m)->dst_addr, upper[k], &why)) return next;
            return drop_as(m, why, early_to_drop);
        });
    }
    return n;
}

enum LateEdge : rte_edge_t { late_to_local, late_to_forward, late_to_drop };

uint16_t ila_late_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    EngineContext& ctx = w.engine;
    // Translate the chunk, then the second lookup of a lightweight tunnel's
    // input on the new destinations, in bulk as ip6_lookup does the first.
    uint8_t dst[RTE_GRAPH_BURST_SIZE][RTE_FIB6_IPV6_ADDR_SIZE];
    uint64_t hop[RTE_GRAPH_BURST_SIZE];
    DropReason why[RTE_GRAPH_BURST_SIZE];
    bool ok[RTE_GRAPH_BURST_SIZE];
    for (uint16_t base = 0; base < n; base += RTE_GRAPH_BURST_SIZE) {
        const uint16_t len = std::min<uint16_t>(RTE_GRAPH_BURST_SIZE, n - base);
        for (uint16_t i = 0; i < len; ++i) {
            rte_mbuf* m = static_cast<rte_mbuf*>(objs[base + i]);
            ok[i] = xlat_input(w, m, &why[i]);
            memcpy(dst[i], ip6_hdr(m)->dst_addr, 16);
        }
        // The second lookup is in the main table (which holds our addresses
        // too): the translated destination is one of ours or routed on.
        rte_fib6_lookup_bulk(ctx.fib.main(), dst, hop, len);
        w.events.add(PathEvent::routes_resolved, len);  // the late path's second route
        w.events.add(PathEvent::fib_lookups, len);
        uint16_t i = 0;
        dispatch(graph, node, objs + base, len, [&](rte_mbuf* m) -> rte_edge_t {
            const uint16_t k = i++;
            if (unlikely(!ok[k])) return drop_as(m, why[k], late_to_drop);
            if (likely(hop[k] == kNexthopLocal)) return late_to_local;
            if (hop[k] < kNexthopFirstRoute)  // none, or translate again
                return drop_as(m, DropReason::xlat_no_route, late_to_drop);
            meta(m)->nexthop = static_cast<uint32_t>(hop[k]);
            return late_to_forward;
        });
    }
    return n;
}

}  // namespace

void register_ila() {
    register_node(kIlaEarly, ila_early_process, {kEarlyDemux, kIp6Lookup, kDrop});
    register_node(kIlaLate, ila_late_process, {kIp6Local, kIp6Forward, kDrop});
}

}  // namespace pathscope::engine
