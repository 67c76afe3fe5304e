#include "workload/frame_builder.h"

#include <cstring>

namespace pathscope::engine {

namespace {
void put16(uint8_t* p, uint16_t v) {
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}

std::vector<uint8_t> ip6_frame(const FrameSpec& s, uint8_t proto, size_t l4_len) {
    std::vector<uint8_t> f(kEthLen + kIp6Len + l4_len, 0);
    memcpy(&f[0], s.dst_mac.data(), 6);
    memcpy(&f[6], s.src_mac.data(), 6);
    put16(&f[12], 0x86dd);
    f[14] = 0x60;
    put16(&f[18], static_cast<uint16_t>(l4_len));
    f[20] = proto;
    f[21] = s.hop_limit;
    memcpy(&f[22], s.src.data(), 16);
    memcpy(&f[38], s.dst.data(), 16);
    return f;
}
}  // namespace

uint16_t internet_checksum(const uint8_t* data, size_t len, uint32_t sum) {
    for (size_t i = 0; i + 1 < len; i += 2)
        sum += static_cast<uint32_t>(data[i] << 8 | data[i + 1]);
    if (len & 1) sum += static_cast<uint32_t>(data[len - 1] << 8);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(~sum);
}

void fix_l4_checksum(std::vector<uint8_t>& f) {
    const uint8_t proto = f[20];
    const size_t l4 = kEthLen + kIp6Len;
    const size_t len = f.size() - l4;
    const size_t field = proto == 17 ? l4 + 6 : l4 + 2;
    f[field] = f[field + 1] = 0;
    uint32_t sum = 0;
    for (size_t i = 22; i < 54; i += 2) sum += static_cast<uint32_t>(f[i] << 8 | f[i + 1]);
    sum += static_cast<uint32_t>(len >> 16) + static_cast<uint32_t>(len & 0xffff) + proto;
    uint16_t c = internet_checksum(&f[l4], len, sum);
    if (proto == 17 && c == 0) c = 0xffff;
    put16(&f[field], c);
}

std::vector<uint8_t> udp6_frame(const FrameSpec& s) {
    const uint16_t l4_len = static_cast<uint16_t>(kUdpLen + s.payload);
    auto f = ip6_frame(s, 17, l4_len);
    uint8_t* u = &f[kEthLen + kIp6Len];
    put16(u, s.src_port);
    put16(u + 2, s.dst_port);
    put16(u + 4, l4_len);
    for (uint16_t i = 0; i < s.payload; ++i) u[kUdpLen + i] = static_cast<uint8_t>('a' + i % 26);
    fix_l4_checksum(f);
    return f;
}

std::vector<uint8_t> icmp6_frame(const FrameSpec& s, uint8_t type, uint8_t code,
                                 const std::vector<uint8_t>& body) {
    auto f = ip6_frame(s, 58, 4 + body.size());
    uint8_t* m = &f[kEthLen + kIp6Len];
    m[0] = type;
    m[1] = code;
    if (!body.empty()) memcpy(m + 4, body.data(), body.size());
    fix_l4_checksum(f);
    return f;
}

}  // namespace pathscope::engine
