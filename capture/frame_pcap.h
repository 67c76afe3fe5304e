// Writes a pcap of generated UDP/IPv6 frames for a net_pcap replay: the
// frames a scenario's pcap workload sends to the engine's own addresses and
// sockets, made by the engine's frame builder, so that a sample's capture
// can be remade byte for byte (`pathscope frames`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/config.h"

namespace pathscope::capture {

/// A destination address and UDP port, and its share of the frames.
struct UdpTarget {
    engine::Ip6Addr addr{};
    uint16_t port = 0;
    unsigned weight = 1;
};

/// "[ADDR]:PORT" or "[ADDR]:PORT*WEIGHT"; nullopt when malformed.
std::optional<UdpTarget> parse_udp_target(const std::string& text);

struct FramesSpec {
    std::vector<UdpTarget> targets;  ///< frames go to them in turn, by weight
    engine::MacAddr dst_mac{};       ///< the receiving port's address
    engine::Prefix6 sources;         ///< flow f comes from sources + f + 1, port 1024 + f
    uint32_t flows = 64;
    uint16_t frame_size = 64;  ///< bytes per frame, at least 62 (the headers)
    uint32_t count = 1024;
};

/// Writes spec.count frames to `path` as an Ethernet pcap with fixed
/// timestamps (frame i at i microseconds), so the same spec gives the same
/// file. Returns the frames written; throws std::runtime_error naming the
/// file or the bad part of the spec.
size_t write_udp6_pcap(const std::string& path, const FramesSpec& spec);

}  // namespace pathscope::capture
