// early_demux (engine.early_demux = "on"): before the route lookup, a UDP
// packet's connected socket is looked up by its full 4-tuple, as Linux's
// udp_v6_early_demux does. The connection table is keyed by the remote end
// and our port; the packet's destination must then equal the socket's own
// address (so a packet to another of our addresses, or to an address not
// yet translated, misses), and the socket's cached route must still be
// current. A hit goes straight to udp6_input with the socket in its
// SocketMeta (skipping ip6_lookup and ip6_local); a miss goes on to the lookup.
#include "engine/nodes/nodes.h"

#include <cstring>

#include "engine/socket.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_lookup, to_udp6 };

uint16_t early_demux_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    EngineContext& ctx = *node_context(node);
    uint64_t hits = 0, misses = 0;
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        const PacketMeta* pm = meta(m);
        if (pm->l4_proto != IPPROTO_UDP) return to_lookup;  // not a candidate
        SocketMeta* sm = socket_meta(m);
        sm->socket = nullptr;  // udp6_input reads it for every UDP packet
        const rte_ipv6_hdr* ip = ip6_hdr(m);
        const uint32_t l4 = kL3Offset + pm->l4_off;
        // A short header or a multicast destination is udp6_input's to judge, after the lookup.
        if (unlikely(rte_pktmbuf_data_len(m) < l4 + sizeof(rte_udp_hdr) ||
                     ip->dst_addr[0] == 0xff || ctx.connected_count == 0)) {
            ++misses;
            return to_lookup;
        }
        const auto* udp = rte_pktmbuf_mtod_offset(m, const rte_udp_hdr*, l4);
        ConnKey key;
        memcpy(key.remote, ip->src_addr, 16);
        key.remote_port = rte_be_to_cpu_16(udp->src_port);
        key.local_port = rte_be_to_cpu_16(udp->dst_port);
        void* found;
        if (rte_hash_lookup_data(ctx.connected, &key, &found) >= 0) {
            const auto* s = static_cast<const UdpSocket*>(found);
            uint32_t route;
            if (s->cached_route(ctx.route_generation, &route) &&
                memcmp(s->fixed_source(), ip->dst_addr, 16) == 0) {
                sm->socket = s;
                ++hits;
                return to_udp6;
            }
        }
        ++misses;
        return to_lookup;
    });
    ctx.events.add(PathEvent::demux_hits, hits);
    ctx.events.add(PathEvent::demux_misses, misses);
    return n;
}

}  // namespace

void register_early_demux() {
    register_node(kEarlyDemux, early_demux_process, {kIp6Lookup, kUdp6Input});
}

}  // namespace pathscope::engine
