#include "analysis/figures/packet_decode.h"

#include <arpa/inet.h>

#include <cstdio>

#include "common/ip6_ext.h"

namespace pathscope::analysis {

namespace {

std::string mac(const uint8_t* p) {
    char b[24];
    std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", p[0], p[1], p[2], p[3], p[4], p[5]);
    return b;
}

std::string ip6(const uint8_t* p) {
    char b[INET6_ADDRSTRLEN];
    return inet_ntop(AF_INET6, p, b, sizeof b) ? b : "?";
}

uint16_t be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

const char* ext_name(uint8_t t) {
    switch (t) {
        case kIp6HopByHop: return "hop-by-hop options";
        case kIp6Routing: return "routing";
        case kIp6Fragment: return "fragment";
        case kIp6Ah: return "authentication (AH)";
        case kIp6DestOptions: return "destination options";
    }
    return "?";
}

}  // namespace

std::vector<std::string> decode_frame(const std::vector<uint8_t>& f, uint32_t wire_len) {
    std::vector<std::string> out;
    char b[256];
    std::snprintf(b, sizeof b, "frame: %u bytes on the wire, %zu captured", wire_len, f.size());
    out.emplace_back(b);
    if (f.size() < 14) {
        out.emplace_back("Ethernet: cut short (under 14 bytes)");
        return out;
    }
    const uint16_t type = be16(&f[12]);
    std::snprintf(b, sizeof b, "Ethernet: %s -> %s, type 0x%04x%s", mac(&f[6]).c_str(),
                  mac(&f[0]).c_str(), type, type == 0x86dd ? " (IPv6)" : "");
    out.emplace_back(b);
    if (type != 0x86dd) return out;
    const uint8_t* ip = f.data() + 14;
    const uint32_t avail = static_cast<uint32_t>(f.size() - 14);
    if (avail < 40) {
        out.emplace_back("IPv6: cut short (under 40 bytes)");
        return out;
    }
    const uint32_t plen = be16(ip + 4);
    std::snprintf(b, sizeof b, "IPv6: %s -> %s, version %u, hop limit %u, payload %u bytes, next %u",
                  ip6(ip + 8).c_str(), ip6(ip + 24).c_str(), ip[0] >> 4, ip[7], plen, ip[6]);
    out.emplace_back(b);
    // Traces keep the first bytes only: the walk reads what was kept.
    const Ip6ExtWalk w = walk_ip6_ext(ip, 40 + plen, avail);
    for (unsigned i = 0; i < w.headers; ++i)
        out.emplace_back(std::string("  extension header: ") + ext_name(w.chain[i]));
    switch (w.stop) {
        case Ip6ExtStop::fragment: out.emplace_back("  fragment header (not reassembled)"); return out;
        case Ip6ExtStop::truncated: out.emplace_back("  extension headers run past the packet"); return out;
        case Ip6ExtStop::too_many: out.emplace_back("  more extension headers than the engine walks"); return out;
        case Ip6ExtStop::hbh_not_first: out.emplace_back("  hop-by-hop options after another header"); return out;
        case Ip6ExtStop::upper: break;
    }
    const uint8_t* l4 = ip + w.off;
    const uint32_t l4_avail = avail > w.off ? avail - w.off : 0;
    if (w.proto == 17) {
        if (l4_avail < 8) {
            out.emplace_back("UDP: cut short in this capture");
            return out;
        }
        std::snprintf(b, sizeof b, "UDP: port %u -> %u, length %u, checksum 0x%04x", be16(l4),
                      be16(l4 + 2), be16(l4 + 4), be16(l4 + 6));
        out.emplace_back(b);
    } else if (w.proto == 58) {
        if (l4_avail < 4) {
            out.emplace_back("ICMPv6: cut short in this capture");
            return out;
        }
        std::snprintf(b, sizeof b, "ICMPv6: type %u, code %u, checksum 0x%04x", l4[0], l4[1],
                      be16(l4 + 2));
        out.emplace_back(b);
    } else {
        std::snprintf(b, sizeof b, "upper layer: protocol %u", w.proto);
        out.emplace_back(b);
    }
    return out;
}

}  // namespace pathscope::analysis
