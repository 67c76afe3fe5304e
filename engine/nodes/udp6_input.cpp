// udp6_input: length and checksum checks, then the socket lookup: the
// socket early demux found (engine.early_demux), else a socket
// connected to the sender (4-tuple) first, else one bound to the destination
// port, gets the datagram (delivered); with none, an ICMPv6 port unreachable
// goes back (rate-limited, counted as replied) or the packet is dropped as
// udp_no_socket.
#include "engine/nodes/nodes.h"
#include "engine/tsan.h"

#include <cstring>

#include "engine/socket.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_tx, to_drop };

constexpr uint8_t kDestUnreachable = 1, kPortUnreachable = 4;

uint16_t udp6_input_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    EngineContext& ctx = w.engine;
    uint16_t delivered = 0;
    uint64_t now = 0;  // read once, at the first delivery
    uint64_t waited = 0, waiting = 0;  // a run of delivered packets with equal sojourns
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        PacketMeta* pm = meta(m);
        const rte_ipv6_hdr* ip = ip6_hdr(m);
        const uint32_t l4_len =
            sizeof(rte_ipv6_hdr) + rte_be_to_cpu_16(ip->payload_len) - pm->l4_off;
        const uint32_t l4_off = kL3Offset + pm->l4_off;
        if (unlikely(l4_len < sizeof(rte_udp_hdr) ||
                     rte_pktmbuf_data_len(m) < l4_off + sizeof(rte_udp_hdr)))
            return drop_as(m, DropReason::udp_short, to_drop);
        const auto* udp = rte_pktmbuf_mtod_offset(m, const rte_udp_hdr*, l4_off);
        if (unlikely(rte_be_to_cpu_16(udp->dgram_len) != l4_len))
            return drop_as(m, DropReason::udp_bad_length, to_drop);
        if (unlikely(udp->dgram_cksum == 0 ||
                     ((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) != RTE_MBUF_F_RX_L4_CKSUM_GOOD &&
                      l4_checksum_sum(m, ip, l4_off, IPPROTO_UDP, l4_len) != 0xffff)))
            return drop_as(m, DropReason::udp_bad_checksum, to_drop);
        // Early demux already found the connected socket of a packet it let through.
        UdpSocket* s = ctx.early_demux && pm->demuxed ? socket_meta(m)->socket : nullptr;
        if (!s && unlikely(ctx.connected_count.load(std::memory_order_relaxed))) {
            ConnKey key;  // connected 4-tuple first
            memcpy(key.remote, ip->src_addr, 16);
            key.remote_port = rte_be_to_cpu_16(udp->src_port);
            key.local_port = rte_be_to_cpu_16(udp->dst_port);
            void* found;
            if (rte_hash_lookup_data(ctx.connected, &key, &found) >= 0) {
                s = static_cast<UdpSocket*>(found);
                tsan_taken(s);  // published by connect() on another worker
            }
        }
        if (!s) s = ctx.bound[rte_be_to_cpu_16(udp->dst_port)].load(std::memory_order_acquire);
        if (likely(s != nullptr)) {
            SocketMeta* sm = socket_meta(m);
            memcpy(sm->peer, ip->src_addr, 16);
            sm->peer_port = rte_be_to_cpu_16(udp->src_port);
            const uint64_t rx_tsc = pm->rx_tsc;  // the socket's reader owns m once it is queued
            // The reader gets the payload. Cut here, where the packet's lines
            // are in cache, rather than by the reader, which finds them cold.
            const uint16_t headers = static_cast<uint16_t>(l4_off + sizeof(rte_udp_hdr));
            rte_pktmbuf_adj(m, headers);
            if (unlikely(!s->deliver(m))) {
                rte_pktmbuf_prepend(m, headers);  // dropped whole, headers and all
                return drop_as(m, DropReason::socket_full, to_drop);
            }
            ++delivered;
            if (ctx.latency_histograms) {
                if (!now) now = rte_rdtsc();
                // A burst's packets share their receive stamp: one record for a run.
                if (now - rx_tsc != waited) {
                    if (waiting) w.latency.record(Sojourn::delivered, waited, waiting);
                    waited = now - rx_tsc;
                    waiting = 0;
                }
                ++waiting;
            }
            return kConsumed;
        }
        // Answer from the address the datagram was sent to; never to multicast.
        if (ip->dst_addr[0] != 0xff && w.icmp_error_allowed(pm->rx_tsc)) {
            uint8_t ours[16];
            memcpy(ours, ip->dst_addr, 16);
            if (make_icmp6_error(ctx, m, kDestUnreachable, kPortUnreachable, ours)) return to_tx;
        }
        return drop_as(m, DropReason::udp_no_socket, to_drop);
    });
    if (waiting) w.latency.record(Sojourn::delivered, waited, waiting);
    w.counters.delivered.add(delivered);
    return n;
}

}  // namespace

void register_udp6_input() { register_node(kUdp6Input, udp6_input_process, {kEthTx, kDrop}); }

}  // namespace pathscope::engine
