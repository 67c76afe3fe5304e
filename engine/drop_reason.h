// Every way the engine can drop a packet, as one table (VPP style): the enum,
// the names and the counters all come from this list, so a new reason cannot
// be added without a name and a counter. Columns: reason, the stage that
// drops received packets for it, and what it means.
#pragma once

#include <cstdint>
#include <string_view>

namespace pathscope::engine {

#define PATHSCOPE_DROP_REASONS(X)                                                                 \
    X(eth_short, "eth_input", "frame shorter than an Ethernet header")                            \
    X(eth_not_for_us, "eth_input", "destination MAC is neither ours nor multicast")               \
    X(eth_unknown_type, "eth_input", "EtherType is not IPv6")                                     \
    X(eth_bad_length, "eth_input", "frame length not what its buffers hold (driver error)")       \
    X(ip6_short, "ip6_input", "shorter than an IPv6 header")                                      \
    X(ip6_bad_version, "ip6_input", "IP version is not 6")                                        \
    X(ip6_truncated, "ip6_input", "payload length exceeds the frame")                             \
    X(ip6_jumbogram, "ip6_input", "payload length 0 (jumbograms are not supported)")              \
    X(ip6_bad_source, "ip6_input", "source address is multicast")                                 \
    X(ip6_hbh_not_first, "ip6_input", "hop-by-hop options header not first")                      \
    X(ip6_ext_truncated, "ip6_input", "extension header runs past the payload")                   \
    X(ip6_ext_too_many, "ip6_input", "more extension headers than the walk allows")               \
    X(ip6_fragment, "ip6_input", "fragments are not reassembled")                                 \
    X(ip6_no_route, "ip6_lookup", "no route to the destination")                                  \
    X(ip6_mcast_not_joined, "ip6_lookup", "multicast group not joined")                           \
    X(ip6_rule_unreachable, "ip6_lookup", "a policy rule says unreachable")                       \
    X(ip6_rule_prohibit, "ip6_lookup", "a policy rule says prohibit")                             \
    X(ip6_rule_blackhole, "ip6_lookup", "a policy rule says blackhole")                           \
    X(ip6_hop_limit, "ip6_forward", "hop limit ran out (ICMPv6 time exceeded rate-limited)")      \
    X(ip6_unknown_proto, "ip6_local", "upper-layer protocol not handled locally")                 \
    X(icmp6_short, "icmp6_input", "ICMPv6 message too short")                                     \
    X(icmp6_bad_checksum, "icmp6_input", "ICMPv6 checksum wrong")                                 \
    X(icmp6_unhandled, "icmp6_input", "ICMPv6 type not handled")                                  \
    X(icmp6_ns_invalid, "icmp6_input", "neighbour solicitation malformed or not for our address") \
    X(udp_short, "udp6_input", "UDP header truncated")                                            \
    X(udp_bad_length, "udp6_input", "UDP length disagrees with the IPv6 payload")                 \
    X(udp_bad_checksum, "udp6_input", "UDP checksum wrong or zero")                               \
    X(udp_no_socket, "udp6_input", "no socket on the port (ICMPv6 unreachable rate-limited)")     \
    X(socket_full, "udp6_input", "socket receive ring full")                                      \
    X(ip6_addr_gone, "ip6_local", "destination address no longer on the interface list")         \
    X(udp_no_source, "udp6_output", "no source address of the right scope on the egress port")   \
    X(udp_no_headroom, "udp6_output", "no room before the datagram for its headers")             \
    X(nd_queue_full, "nd_resolve", "neighbour unresolved and its hold queue full")               \
    X(nd_timeout, "nd_resolve", "neighbour never answered the solicitations")                    \
    X(nd_pending_at_stop, "nd_resolve", "held for neighbour resolution when the engine stopped") \
    X(tx_full, "eth_tx", "transmit queue full")                                                  \
    X(xlat_no_mapping, "ila_late", "route says translate but no mapping matches")                \
    X(ila_no_checksum, "ila_late", "ILA: upper-layer checksum beyond the packet")                \
    X(nptv6_no_adjust_word, "ila_late", "NPTv6 /49-/64: words 4-7 all 0xffff (RFC 6296)")        \
    X(xlat_no_route, "ila_late", "translated destination unroutable (or routed to translate)")

enum class DropReason : uint8_t {  // one byte: PacketMeta fills its 24 bytes
#define PATHSCOPE_X(name, stage, text) name,
    PATHSCOPE_DROP_REASONS(PATHSCOPE_X)
#undef PATHSCOPE_X
        count_
};

inline constexpr unsigned kDropReasonCount = static_cast<unsigned>(DropReason::count_);
/// Drop reasons that stage plugins declare at run time take the slots after
/// the built-in ones (a DropReason value of kDropReasonCount or more); their
/// names come from engine/drop_names.h. Counters and ledgers have kDropSlots
/// entries: the built-in reasons, then the plugins'.
inline constexpr unsigned kPluginDropSlots = 64;
inline constexpr unsigned kDropSlots = kDropReasonCount + kPluginDropSlots;
static_assert(kDropSlots <= 256, "DropReason is stored in one byte");

inline constexpr std::string_view kDropReasonNames[] = {
#define PATHSCOPE_X(name, stage, text) #name,
    PATHSCOPE_DROP_REASONS(PATHSCOPE_X)
#undef PATHSCOPE_X
};

inline constexpr std::string_view kDropReasonText[] = {
#define PATHSCOPE_X(name, stage, text) text,
    PATHSCOPE_DROP_REASONS(PATHSCOPE_X)
#undef PATHSCOPE_X
};

inline constexpr std::string_view kDropReasonStage[] = {
#define PATHSCOPE_X(name, stage, text) stage,
    PATHSCOPE_DROP_REASONS(PATHSCOPE_X)
#undef PATHSCOPE_X
};

inline constexpr std::string_view drop_reason_name(DropReason r) {
    return kDropReasonNames[static_cast<unsigned>(r)];
}

}  // namespace pathscope::engine
