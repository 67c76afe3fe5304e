// Builds well-formed Ethernet/IPv6 frames (UDP, ICMPv6) byte by byte, for the
// generator, the benchmarks and the tests, which then break them on purpose.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/config.h"

namespace pathscope::engine {

struct FrameSpec {
    MacAddr src_mac{0x02, 0, 0, 0, 0, 0x10};
    MacAddr dst_mac{};
    Ip6Addr src{};
    Ip6Addr dst{};
    uint8_t hop_limit = 64;
    uint16_t src_port = 1024;
    uint16_t dst_port = 9;
    uint16_t payload = 2;  ///< UDP payload bytes (64-byte frames by default)
};

inline constexpr unsigned kEthLen = 14, kIp6Len = 40, kUdpLen = 8;

std::vector<uint8_t> udp6_frame(const FrameSpec& s);
/// ICMPv6 message: `type`, `code`, then `body` (after the 4-byte header).
std::vector<uint8_t> icmp6_frame(const FrameSpec& s, uint8_t type, uint8_t code,
                                 const std::vector<uint8_t>& body);
/// Recomputes the UDP or ICMPv6 checksum of a frame with no extension headers.
void fix_l4_checksum(std::vector<uint8_t>& frame);
/// The one's-complement checksum the Internet protocols use, over a buffer.
uint16_t internet_checksum(const uint8_t* data, size_t len, uint32_t initial = 0);

}  // namespace pathscope::engine
