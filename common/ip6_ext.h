// The IPv6 extension-header walk (RFC 8200 section 4), written once and used
// by the engine's ip6_input stage, `import pcap`'s summary and the GUI's
// packet decoder, so all name a packet's upper layer alike. Plain C++ over
// bytes, header-only: a leaf like the histogram layout (common/), no DPDK.
#pragma once

#include <cstdint>

namespace pathscope::analysis {

inline constexpr uint8_t kIp6HopByHop = 0, kIp6Routing = 43, kIp6Fragment = 44, kIp6Ah = 51,
                         kIp6DestOptions = 60;
/// At most this many extension headers are walked (then ip6_ext_too_many).
inline constexpr unsigned kMaxIp6ExtHeaders = 8;

/// Why the walk stopped.
enum class Ip6ExtStop : uint8_t {
    upper,          ///< at the upper-layer header: `proto` at `off`
    hbh_not_first,  ///< a hop-by-hop header after another header
    truncated,      ///< a header (or its length) runs past the packet or the readable bytes
    too_many,       ///< more than kMaxIp6ExtHeaders
    fragment,       ///< a fragment header (pathscope does not reassemble)
};

struct Ip6ExtWalk {
    Ip6ExtStop stop = Ip6ExtStop::upper;
    uint8_t proto = 0;     ///< the next-header value where the walk stopped
    uint32_t off = 0;      ///< its offset from the start of the IPv6 header
    uint8_t headers = 0;   ///< extension headers walked past
    uint8_t chain[kMaxIp6ExtHeaders] = {};  ///< their types, in order
};

/// Walks the extension headers of the IPv6 packet at `ip`. `ip_len` is the
/// packet's length by its payload length field; `readable` how many bytes
/// from `ip` may be read (the first segment, or what a capture holds).
/// Hop-by-hop, routing and destination options count their length in 8
/// octets after the first 8, AH in 4 octets after the first 8 (RFC 4302).
inline Ip6ExtWalk walk_ip6_ext(const uint8_t* ip, uint32_t ip_len, uint32_t readable) {
    Ip6ExtWalk w;
    uint8_t next = ip[6];
    uint32_t off = 40;
    for (;;) {
        uint32_t len;
        switch (next) {
            case kIp6HopByHop:
                if (w.headers != 0) {
                    w.stop = Ip6ExtStop::hbh_not_first;
                    break;
                }
                [[fallthrough]];
            case kIp6Routing:
            case kIp6DestOptions:
            case kIp6Ah:
                if (off + 8 > ip_len || off + 8 > readable) {
                    w.stop = Ip6ExtStop::truncated;
                    break;
                }
                len = next == kIp6Ah ? (static_cast<uint32_t>(ip[off + 1]) + 2) * 4
                                     : (static_cast<uint32_t>(ip[off + 1]) + 1) * 8;
                if (w.headers >= kMaxIp6ExtHeaders) {  // this would be the 9th
                    w.stop = Ip6ExtStop::too_many;
                    break;
                }
                if (off + len > ip_len) {
                    w.stop = Ip6ExtStop::truncated;
                    break;
                }
                w.chain[w.headers++] = next;
                next = ip[off];
                off += len;
                continue;
            case kIp6Fragment:
                w.stop = Ip6ExtStop::fragment;
                break;
            default:
                w.stop = Ip6ExtStop::upper;
                break;
        }
        w.proto = next;
        w.off = off;
        return w;
    }
}

}  // namespace pathscope::analysis
