// Shared pieces of every stage: registration of a node from C++, and the
// dispatch of a burst to its next edges.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "engine/context.h"
#include "engine/dpdk.h"
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

/// Sends each object to the edge `classify` returns. When the whole burst goes
/// one way (the common case) the stream is handed over without a copy. Each
/// run of packets is counted on its edge once (EdgeCounters), and so are the
/// packets the classifier kept (kConsumed).
template <typename Classify>
inline void dispatch(rte_graph* graph, rte_node* node, void** objs, uint16_t n,
                     Classify&& classify) {
    if (n == 0) return;
    constexpr uint16_t kChunk = 256;
    rte_edge_t edges[kChunk];
    const bool whole_stream = objs == node->objs && n == node->idx;
    EdgeCounters& counted = *node_edges(node);
    for (uint16_t base = 0; base < n; base += kChunk) {
        const uint16_t len = std::min<uint16_t>(kChunk, n - base);
        bool uniform = true;
        for (uint16_t i = 0; i < len; ++i) {
            edges[i] = classify(static_cast<rte_mbuf*>(objs[base + i]));
            uniform = uniform && edges[i] == edges[0];
        }
        if (uniform) counted.add(edges[0], len);
        if (uniform && edges[0] == kConsumed) continue;
        if (uniform && whole_stream && len == n) {
            rte_node_next_stream_move(graph, node, edges[0]);
            return;
        }
        if (uniform) {
            rte_node_enqueue(graph, node, edges[0], objs + base, len);
            continue;
        }
        for (uint16_t i = 0; i < len; ++i) {
            counted.add(edges[i], 1);
            if (edges[i] != kConsumed) rte_node_enqueue_x1(graph, node, edges[i], objs[base + i]);
        }
    }
}

/// Marks `m` as dropped for reason `r` and returns the node's drop edge.
inline rte_edge_t drop_as(rte_mbuf* m, DropReason r, rte_edge_t drop_edge) {
    meta(m)->drop = r;
    return drop_edge;
}

/// One's-complement sum of the IPv6 pseudo header for an upper-layer message.
uint32_t pseudo_header_sum(const rte_ipv6_hdr* ip, uint8_t proto, uint32_t l4_len);

/// Checksum of an upper-layer message at `l4_off` bytes into the mbuf data,
/// including the pseudo header: 0xffff over a correct message.
uint16_t l4_checksum_sum(const rte_mbuf* m, const rte_ipv6_hdr* ip, uint32_t l4_off_in_mbuf,
                         uint8_t proto, uint32_t l4_len);

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
