// early_demux (engine.early_demux = "on"): before the route lookup, a UDP
// packet's connected socket is looked up by its full 4-tuple, as Linux's
// udp_v6_early_demux does. The connection table is keyed by the remote end
// and our port; the packet's destination must then equal the socket's own
// address (so a packet to another of our addresses, or to an address not
// yet translated, misses), and the socket's cached route must still be
// current. A hit goes straight to udp6_input with the socket in its
// SocketMeta (skipping ip6_lookup and ip6_local); a miss goes on to the lookup.
#include "engine/nodes/nodes.h"
#include "engine/tsan.h"

#include <cstring>

#include "engine/socket.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_lookup, to_udp6 };

uint16_t early_demux_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    EngineContext& ctx = w.engine;
    uint64_t hits = 0, misses = 0;
    // One bulk lookup in the connection table per chunk of the burst; the
    // classifier below reads the results in order.
    constexpr uint16_t kChunk = RTE_HASH_LOOKUP_BULK_MAX;
    ConnKey keys[kChunk];
    const void* key_ptrs[kChunk];
    void* found[kChunk];
    int8_t slot[kChunk];  ///< a packet's key in the bulk lookup; -1: not a candidate
    for (uint16_t base = 0; base < n; base += kChunk) {
        const uint16_t len = std::min<uint16_t>(kChunk, n - base);
        uint32_t nkeys = 0;
        for (uint16_t i = 0; i < len; ++i) {
            rte_mbuf* m = static_cast<rte_mbuf*>(objs[base + i]);
            slot[i] = -1;
            PacketMeta* pm = meta(m);
            if (pm->l4_proto != IPPROTO_UDP) continue;  // not a candidate, not counted
            pm->demuxed = false;  // udp6_input reads it for every UDP packet
            // No connected socket: a miss that leaves the socket-path line
            // (the mbuf's third) untouched.
            if (ctx.connected_count.load(std::memory_order_relaxed) == 0) {
                slot[i] = static_cast<int8_t>(kChunk);
                continue;
            }
            const rte_ipv6_hdr* ip = ip6_hdr(m);
            const uint32_t l4 = kL3Offset + pm->l4_off;
            // A short header or a multicast destination is udp6_input's to judge, after the lookup.
            if (unlikely(rte_pktmbuf_data_len(m) < l4 + sizeof(rte_udp_hdr) ||
                         ip->dst_addr[0] == 0xff)) {
                slot[i] = static_cast<int8_t>(kChunk);  // a miss without a lookup
                continue;
            }
            const auto* udp = rte_pktmbuf_mtod_offset(m, const rte_udp_hdr*, l4);
            ConnKey& k = keys[nkeys];
            memcpy(k.remote, ip->src_addr, 16);
            k.remote_port = rte_be_to_cpu_16(udp->src_port);
            k.local_port = rte_be_to_cpu_16(udp->dst_port);
            key_ptrs[nkeys] = &k;
            slot[i] = static_cast<int8_t>(nkeys++);
        }
        uint64_t hit_mask = 0;
        if (nkeys) rte_hash_lookup_bulk_data(ctx.connected, key_ptrs, nkeys, &hit_mask, found);
        uint16_t i = 0;
        dispatch(graph, node, objs + base, len, [&](rte_mbuf* m) -> rte_edge_t {
            const int8_t k = slot[i++];
            if (k < 0) return to_lookup;
            if (k < kChunk && (hit_mask >> k & 1)) {
                auto* s = static_cast<UdpSocket*>(found[k]);
                tsan_taken(s);  // published by connect() on another worker
                uint32_t route;
                if (s->cached_route(ctx.route_generation, &route) &&
                    memcmp(s->fixed_source(), ip6_hdr(m)->dst_addr, 16) == 0) {
                    socket_meta(m)->socket = s;
                    meta(m)->demuxed = true;
                    ++hits;
                    return to_udp6;
                }
            }
            ++misses;
            return to_lookup;
        });
    }
    w.events.add(PathEvent::demux_hits, hits);
    w.events.add(PathEvent::demux_misses, misses);
    return n;
}

}  // namespace

void register_early_demux() {
    register_node(kEarlyDemux, early_demux_process, {kIp6Lookup, kUdp6Input});
}

}  // namespace pathscope::engine
