// The IPv6 extension-header walk (common/ip6_ext.h) that the engine, the
// pcap importer and the packet decoder share: its limit of 8 headers.
#include <gtest/gtest.h>

#include <vector>

#include "common/ip6_ext.h"

using namespace pathscope::analysis;

namespace {

// An IPv6 header followed by `n` destination-options headers of 8 bytes each,
// then an 8-byte UDP header.
std::vector<uint8_t> packet_with_dest_options(unsigned n) {
    std::vector<uint8_t> p(40 + 8 * n + 8, 0);
    p[0] = 0x60;
    const uint32_t payload = 8 * n + 8;
    p[4] = static_cast<uint8_t>(payload >> 8);
    p[5] = static_cast<uint8_t>(payload);
    p[6] = n ? kIp6DestOptions : 17;
    for (unsigned i = 0; i < n; ++i) p[40 + 8 * i] = i + 1 < n ? kIp6DestOptions : 17;
    return p;
}

}  // namespace

TEST(Ip6ExtWalk, EightHeadersAreWalkedToTheUpperLayer) {
    const auto p = packet_with_dest_options(kMaxIp6ExtHeaders);
    const Ip6ExtWalk w = walk_ip6_ext(p.data(), static_cast<uint32_t>(p.size()),
                                      static_cast<uint32_t>(p.size()));
    EXPECT_EQ(w.stop, Ip6ExtStop::upper);
    EXPECT_EQ(w.proto, 17);
    EXPECT_EQ(w.headers, kMaxIp6ExtHeaders);
    EXPECT_EQ(w.off, 40u + 8 * kMaxIp6ExtHeaders);
    EXPECT_EQ(w.chain[kMaxIp6ExtHeaders - 1], kIp6DestOptions);
}

TEST(Ip6ExtWalk, TheNinthHeaderIsTooMany) {
    const auto p = packet_with_dest_options(kMaxIp6ExtHeaders + 1);
    const Ip6ExtWalk w = walk_ip6_ext(p.data(), static_cast<uint32_t>(p.size()),
                                      static_cast<uint32_t>(p.size()));
    EXPECT_EQ(w.stop, Ip6ExtStop::too_many);
    EXPECT_EQ(w.headers, kMaxIp6ExtHeaders);
}
