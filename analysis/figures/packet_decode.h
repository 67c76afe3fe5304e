// A sampled packet's headers in words, for the packet-trace page: Ethernet,
// IPv6 with its extension headers (the engine's own walk), UDP or ICMPv6.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pathscope::analysis {

/// One line a header ("IPv6 2001:db8::1 -> 2001:db8::2, hop limit 64, ...");
/// what a short frame lacks is said, not guessed.
std::vector<std::string> decode_frame(const std::vector<uint8_t>& frame, uint32_t wire_len);

}  // namespace pathscope::analysis
