// Per-packet state, so a stage never recomputes what an earlier one found:
// header offsets, the next hop, the transmit port and the drop reason.
//
// The hot part lives in an mbuf dynamic field: those sit in the mbuf's second
// cache line, which the driver already touches when it allocates the mbuf,
// where the private area would be a third line per packet. The socket path's
// addresses are colder and stay in the private area.
#pragma once

#include <cstdint>

#include "engine/dpdk.h"
#include "engine/drop_reason.h"

namespace pathscope::engine {

/// Why a packet is on the transmit path; decides which ledger counts it.
enum class Fate : uint8_t {
    forward,  ///< received and routed on: counts as forwarded
    reply,    ///< received and answered in place (echo, NA, ICMPv6 error): counts as replied
    local,    ///< built by a local socket: counts in the send ledger, not the receive one
    control,  ///< built by the engine itself (neighbour solicitations): counted apart
};

struct PacketMeta {
    uint64_t rx_tsc;   ///< TSC stamped by eth_rx
    uint32_t nexthop;  ///< next hop id found by ip6_lookup
    uint16_t rx_port;  ///< DPDK port the packet came in on
    uint16_t tx_port;  ///< DPDK port eth_tx sends it out of
    uint16_t tx_queue; ///< transmit queue, chosen by txq_select
    uint16_t l4_off;   ///< offset of the upper-layer header from the IPv6 header
    uint8_t l4_proto;  ///< upper-layer protocol found by the extension header walk
    Fate fate;         ///< which counter eth_tx bumps on success
    DropReason drop;   ///< set before a packet is sent to the drop node
    /// Set by early demux for each UDP packet it sees: it found the packet's
    /// connected socket (in SocketMeta::socket), which udp6_input then
    /// delivers to. Carried with the packet, so the hand-off holds on any
    /// worker however the connection table changes in between.
    bool demuxed;
};
// The mbuf's dynamic field area (36 bytes in DPDK 22.11) must keep room for
// the drivers' own fields (net_pcap's 8-byte receive timestamp).
static_assert(sizeof(PacketMeta) == 24, "PacketMeta grew: the drivers' dynamic fields may no longer fit");

/// Socket-path state in the mbuf's private area.
class UdpSocket;

struct SocketMeta {
    uint8_t peer[16];         ///< IPv6 address of the peer (socket receive and send)
    uint16_t peer_port;       ///< UDP port of the peer
    /// Send path: the sending socket (hop limit, class, flow label; and its
    /// in-flight bytes, released when the datagram is transmitted or dropped).
    /// Receive path, with engine.early_demux on: the connected socket early
    /// demux found for a UDP packet (Linux's skb->sk), valid while PacketMeta::demuxed.
    UdpSocket* socket;
};

inline constexpr uint16_t kSocketMetaSize = RTE_ALIGN(sizeof(SocketMeta), RTE_MBUF_PRIV_ALIGN);

/// Offset of PacketMeta in every mbuf, from register_packet_meta().
extern int g_packet_meta_offset;

/// Registers the dynamic field (once per process; needs the EAL). Throws on failure.
void register_packet_meta();

inline PacketMeta* meta(rte_mbuf* m) {
    return RTE_MBUF_DYNFIELD(m, g_packet_meta_offset, PacketMeta*);
}
inline const PacketMeta* meta(const rte_mbuf* m) {
    return RTE_MBUF_DYNFIELD(m, g_packet_meta_offset, const PacketMeta*);
}
inline SocketMeta* socket_meta(rte_mbuf* m) {
    return static_cast<SocketMeta*>(rte_mbuf_to_priv(m));
}

/// The Ethernet header is kept in place for the whole path; IPv6 starts after it.
inline constexpr uint16_t kL3Offset = sizeof(rte_ether_hdr);

inline rte_ipv6_hdr* ip6_hdr(rte_mbuf* m) {
    return rte_pktmbuf_mtod_offset(m, rte_ipv6_hdr*, kL3Offset);
}

}  // namespace pathscope::engine
