// Shared pieces of every stage: registration of a node from C++, and the
// dispatch of a burst to its next edges.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "engine/context.h"
#include "engine/dpdk.h"
#include "engine/nodes/checksum.h"
#include "engine/packet_meta.h"

namespace pathscope::engine {

/// Registers a node with DPDK's graph library. `rte_node_register` ends in a
/// flexible array of edge names, which C++ cannot declare statically, so the
/// struct is allocated with room for its edges. Every node's init callback
/// binds it to the worker whose graph is being built (see building_worker()).
rte_node_t register_node(const char* name, rte_node_process_t process,
                         std::initializer_list<const char*> next_nodes, bool source = false);

/// Returned by a classifier that took ownership of the packet (delivered to a
/// socket, consumed by the stack): it is not enqueued anywhere.
inline constexpr rte_edge_t kConsumed = RTE_EDGE_ID_INVALID;

/// Counts `n` packets that `node` moved along `edge` (or kept: kConsumed).
inline void count_edge(rte_node* node, rte_edge_t edge, uint64_t n) { node_edges(node)->add(edge, n); }

/// An edge's slot in EdgeCounters (kConsumed: the kept slot).
inline constexpr unsigned edge_slot(rte_edge_t e) {
    return e < EdgeCounters::kEdges ? e : EdgeCounters::kKept;
}

/// The edge the node's last packet took (kConsumed when the node kept it):
/// the dispatcher's guess for the next call. It lives in the low bits of the
/// edge-row pointer in node->ctx (node_edges()), so it survives from call
/// to call on the line the node reads anyway.
inline rte_edge_t speculated_edge(const rte_node* node) {
    static_assert(EdgeCounters::kKept <= kEdgeRowTagMask);
    uintptr_t w;
    memcpy(&w, node->ctx + sizeof(WorkerContext*), sizeof w);
    const auto slot = static_cast<rte_edge_t>(w & kEdgeRowTagMask);
    return slot == EdgeCounters::kKept ? kConsumed : slot;
}

inline void remember_edge(rte_node* node, rte_edge_t e) {
    uintptr_t w;
    memcpy(&w, node->ctx + sizeof(WorkerContext*), sizeof w);
    w = (w & ~kEdgeRowTagMask) | edge_slot(e);
    memcpy(node->ctx + sizeof(WorkerContext*), &w, sizeof w);
}

/// Cuts `len` bytes (at most the frame's length) off the end of the frame.
/// rte_pktmbuf_trim cuts within the last segment only (more is refused and
/// the frame left as it was) and takes 16 bits; a frame of several segments
/// whose tail reaches into an earlier one is cut there, and the segments
/// left empty are freed. eth_input has checked that the frame's length is
/// what its segments hold.
inline void trim_frame(rte_mbuf* m, uint32_t len) {
    const uint32_t keep = rte_pktmbuf_pkt_len(m) - len;
    rte_mbuf* s = m;
    uint32_t held = 0;
    uint16_t segs = 1;
    while (held + s->data_len < keep) held += s->data_len, s = s->next, ++segs;
    s->data_len = static_cast<uint16_t>(keep - held);
    m->pkt_len = keep;
    if (unlikely(s->next != nullptr)) {
        rte_pktmbuf_free(s->next);
        s->next = nullptr;
        m->nb_segs = segs;
    }
}

/// Prefetches both lines of an mbuf the stages read: the first (data offset,
/// lengths, offload flags) and the second (PacketMeta, a dynamic field).
inline void prefetch_mbuf(const rte_mbuf* m) {
    rte_prefetch0(m);
    rte_prefetch0(RTE_PTR_ADD(m, RTE_CACHE_LINE_SIZE));
}

/// Prefetches a packet's first data line: the Ethernet, IPv6 and UDP headers.
inline void prefetch_headers(const rte_mbuf* m) { rte_prefetch0(rte_pktmbuf_mtod(m, const void*)); }

/// What a four-at-a-time loop prefetches ahead of its per-packet step.
/// `none`: the stage before just read or wrote these packets, so their mbufs
/// and headers are in cache; measured here (32-packet bursts), prefetching
/// them again costs 3-10 cycles a packet in every stage and gains nothing.
/// `headers`: the mbufs eight packets ahead and the first data line (Ethernet,
/// IPv6 and UDP headers) four ahead. It is meant for the first stage that
/// reads what a device wrote (eth_input) when a NIC's DMA leaves the data out
/// of cache; on net_pcap, which copies each frame in, it cost eth_input 2-3
/// cycles a packet (bench_forward), so no stage asks for it today.
enum class Prefetch : bool { none, headers };

inline void prefetch_start(rte_mbuf* const* pkts, uint16_t n) {
    for (uint16_t i = 0; i < n && i < 8; ++i) prefetch_mbuf(pkts[i]);
    for (uint16_t i = 0; i < n && i < 4; ++i) prefetch_headers(pkts[i]);
}

/// Step i's prefetches (whose headers' mbuf line came in a step before).
inline void prefetch_step(rte_mbuf* const* pkts, uint16_t i, uint16_t n) {
    if (likely(i + 12 <= n))
        for (uint16_t k = 8; k < 12; ++k) prefetch_mbuf(pkts[i + k]);
    if (likely(i + 8 <= n))
        for (uint16_t k = 4; k < 8; ++k) prefetch_headers(pkts[i + k]);
}

/// Calls f(m, i) on each packet pkts[i], first to last, in dispatch()'s loop
/// shape (four a step, then one at a time): for stages that move the whole
/// burst along one edge and only need a per-packet step.
template <Prefetch P = Prefetch::none, typename F>
inline void for_each_packet(rte_mbuf* const* pkts, uint16_t n, F&& f) {
    if constexpr (P == Prefetch::headers) prefetch_start(pkts, n);
    uint16_t i = 0;
    for (; i + 4 <= n; i += 4) {
        if constexpr (P == Prefetch::headers) prefetch_step(pkts, i, n);
        f(pkts[i], i);
        f(pkts[i + 1], static_cast<uint16_t>(i + 1));
        f(pkts[i + 2], static_cast<uint16_t>(i + 2));
        f(pkts[i + 3], static_cast<uint16_t>(i + 3));
    }
    for (; i < n; ++i) f(pkts[i], i);
}

/// Sends each object to the edge `classify` returns, in the loop shape of
/// DPDK's ip4_lookup and VPP's nodes:
/// - speculative next edge: every packet is assumed to take the edge the
///   stage's last packet took (kept across calls, see speculated_edge()) and
///   is written straight into that edge's stream; a packet that goes another
///   way (an exception) first flushes the agreeing run into the stream, then
///   is enqueued alone. A whole stream that agrees is handed over without a
///   copy (rte_node_next_stream_move);
/// - four packets a step with a single-packet tail, with the prefetch `P`
///   asks for (see Prefetch).
/// `classify` is called once per packet, first to last, and must not enqueue
/// to this node's edges itself. Each edge's packets are counted on it once a
/// call (EdgeCounters), and so are the packets the classifier kept (kConsumed,
/// not enqueued: speculating on kConsumed writes no stream at all).
template <Prefetch P = Prefetch::none, typename Classify>
inline void dispatch(rte_graph* graph, rte_node* node, void** objs, uint16_t n,
                     Classify&& classify) {
    if (n == 0) return;
    auto** pkts = reinterpret_cast<rte_mbuf**>(objs);
    const rte_edge_t spec = speculated_edge(node);
    const bool spec_kept = spec == kConsumed;
    void** to = spec_kept ? nullptr : rte_node_next_stream_get(graph, node, spec, n);
    uint16_t held = 0;  ///< packets that took `spec` and are written to its stream
    uint16_t run = 0;   ///< agreeing packets since the last exception, not yet written
    uint16_t odd[EdgeCounters::kEdges + 1] = {};  ///< exceptions, by edge slot
    rte_edge_t last = spec;

    // Writes the agreeing run that ends before packet `at` into the stream.
    auto flush = [&](uint16_t at) {
        if (!spec_kept) memcpy(to + held, objs + at - run, run * sizeof(void*));
        held += run;
        run = 0;
    };
    // Packet `at` of an exceptional group, which took edge `e`.
    auto place = [&](uint16_t at, rte_edge_t e) {
        if (e == spec) {
            if (!spec_kept) to[held] = objs[at];
            ++held;
            return;
        }
        ++odd[edge_slot(e)];
        if (e != kConsumed) rte_node_enqueue_x1(graph, node, e, objs[at]);
    };

    if constexpr (P == Prefetch::headers) prefetch_start(pkts, n);
    uint16_t i = 0;
    for (; i + 4 <= n; i += 4) {
        if constexpr (P == Prefetch::headers) prefetch_step(pkts, i, n);
        const rte_edge_t e0 = classify(pkts[i]);
        const rte_edge_t e1 = classify(pkts[i + 1]);
        const rte_edge_t e2 = classify(pkts[i + 2]);
        const rte_edge_t e3 = classify(pkts[i + 3]);
        if (likely(((e0 ^ spec) | (e1 ^ spec) | (e2 ^ spec) | (e3 ^ spec)) == 0)) {
            run += 4;
            continue;
        }
        flush(i);
        place(i, e0);
        place(i + 1, e1);
        place(i + 2, e2);
        place(i + 3, e3);
        last = e3;
    }
    for (; i < n; ++i) {
        const rte_edge_t e = classify(pkts[i]);
        last = e;
        if (likely(e == spec)) {
            ++run;
            continue;
        }
        flush(i);
        place(i, e);
    }
    // The last packet's edge is the next call's guess; it is `spec` unless the
    // call ended on an exception.
    if (unlikely(run == 0 && last != spec)) remember_edge(node, last);
    EdgeCounters& counted = *node_edges(node);
    if (run == n && !spec_kept && objs == node->objs && n == node->idx) {
        rte_node_next_stream_move(graph, node, spec);  // the whole stream agreed: no copy
        held = n;
    } else {
        flush(n);
        if (!spec_kept) rte_node_next_stream_put(graph, node, spec, held);
    }
    if (held) counted.add(spec, held);
    for (unsigned s = 0; s <= EdgeCounters::kEdges; ++s)
        if (odd[s]) counted.add(s, odd[s]);
}

/// Marks `m` as dropped for reason `r` and returns the node's drop edge.
inline rte_edge_t drop_as(rte_mbuf* m, DropReason r, rte_edge_t drop_edge) {
    meta(m)->drop = r;
    return drop_edge;
}

/// One's-complement sum of the IPv6 pseudo header (source, destination,
/// upper-layer length and next header as two big-endian 32-bit words),
/// unfolded (see ones_add).
inline uint64_t pseudo_header_sum(const uint8_t* src, const uint8_t* dst, uint8_t proto,
                                  uint32_t l4_len) {
    const uint64_t sum = uint64_t{rte_cpu_to_be_32(l4_len)} + rte_cpu_to_be_32(uint32_t{proto});
    return ones_add(dst, 16, ones_add(src, 16, sum));
}

/// The same for a message under the IPv6 header `ip`.
inline uint64_t pseudo_header_sum(const rte_ipv6_hdr* ip, uint8_t proto, uint32_t l4_len) {
    return pseudo_header_sum(ip->src_addr, ip->dst_addr, proto, l4_len);
}

/// Checksum of an upper-layer message at `l4_off` bytes into the mbuf data,
/// including the pseudo header: 0xffff over a correct message. Inline: it
/// is per-packet work on the receive and send paths.
inline uint16_t l4_checksum_sum(const rte_mbuf* m, const rte_ipv6_hdr* ip,
                                uint32_t l4_off_in_mbuf, uint8_t proto, uint32_t l4_len) {
    const uint64_t pseudo = pseudo_header_sum(ip, proto, l4_len);
    if (likely(rte_pktmbuf_data_len(m) >= l4_off_in_mbuf + l4_len))
        return ones_sum(rte_pktmbuf_mtod_offset(m, const void*, l4_off_in_mbuf), l4_len, pseudo);
    uint16_t body = 0;
    rte_raw_cksum_mbuf(m, l4_off_in_mbuf, l4_len, &body);
    return fold_ones_sum(pseudo + body);
}

/// The checksum field value for a message whose checksum field is zero.
inline uint16_t l4_checksum_field(const rte_mbuf* m, const rte_ipv6_hdr* ip,
                                  uint32_t l4_off_in_mbuf, uint8_t proto, uint32_t l4_len) {
    uint16_t c = static_cast<uint16_t>(~l4_checksum_sum(m, ip, l4_off_in_mbuf, proto, l4_len));
    if (proto == IPPROTO_UDP && c == 0) c = 0xffff;
    return c;
}

/// Turns a received packet in place into the ICMPv6 error `type`/`code` from
/// our address `src` to its sender, carrying as much of the original as fits
/// in the minimum MTU, and readies it to leave by the port it came in on
/// (fate: reply). Returns false, leaving the packet as it was, when it must
/// not be answered (it is itself an ICMPv6 error, or its headers do not fit).
bool make_icmp6_error(EngineContext& ctx, rte_mbuf* m, uint8_t type, uint8_t code,
                      const uint8_t* src);

/// Prepares a received packet to go back out of the port it came in on:
/// swaps the Ethernet addresses, using the port's own as the source.
void reply_ethernet(EngineContext& ctx, rte_mbuf* m);

// Node names, shared by registration and edge lists.
inline constexpr const char* kEthRx = "eth_rx";
inline constexpr const char* kEthInput = "eth_input";
inline constexpr const char* kIp6Input = "ip6_input";
inline constexpr const char* kIlaEarly = "ila_early";
inline constexpr const char* kEarlyDemux = "early_demux";
inline constexpr const char* kIp6Lookup = "ip6_lookup";
inline constexpr const char* kIlaLate = "ila_late";
inline constexpr const char* kIp6Local = "ip6_local";
inline constexpr const char* kIp6Forward = "ip6_forward";
inline constexpr const char* kIcmp6Input = "icmp6_input";
inline constexpr const char* kUdp6Input = "udp6_input";
inline constexpr const char* kUdp6Output = "udp6_output";
inline constexpr const char* kIp6Output = "ip6_output";
inline constexpr const char* kNdResolve = "nd_resolve";
inline constexpr const char* kNdTimer = "nd_timer";
inline constexpr const char* kTxqSelect = "txq_select";
inline constexpr const char* kEthTx = "eth_tx";
inline constexpr const char* kDrop = "drop";

/// Builds a neighbour solicitation for `target` out of `port_id` (fate:
/// control); nullptr when the port has no address to ask from or the pool is empty.
rte_mbuf* make_solicitation(WorkerContext& w, uint16_t port_id, const uint8_t* target);

/// Solicitations that are due again and neighbours that never answered:
/// sends the first to `to_tx`, the held packets of the second to `to_drop`
/// as nd_timeout. Returns the packets enqueued, counted in `counted` (the
/// calling source stage's row, or the neighbour table's).
uint16_t nd_service(WorkerContext& w, rte_graph* graph, rte_node* node, uint64_t now,
                    rte_edge_t to_tx, rte_edge_t to_drop, EdgeCounters& counted);

/// engine.ila's receive translation of `m`'s destination (ILA: locator to
/// SIR prefix; NPTv6: external to internal prefix), counted as a path event.
/// False, with the reason in *why, when it cannot be translated.
bool xlat_input(WorkerContext& w, rte_mbuf* m, DropReason* why);
/// The send side on a datagram udp6_output built: a mapped source goes back
/// to its locator (external prefix). True for a source with no mapping too;
/// false, with *why, when the datagram must be dropped.
bool xlat_output(WorkerContext& w, rte_mbuf* m, DropReason* why);

/// Registers every stage once per process; returns the node names in path order.
const std::vector<const char*>& register_all_nodes();

}  // namespace pathscope::engine
