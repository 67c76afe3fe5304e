// The engine's one's-complement sum against DPDK's rte_raw_cksum, the
// reference it replaces: every length from 0 to 300 at every alignment of
// an 8-byte word, on random bytes and on bytes that make the most carries.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "engine/dpdk.h"
#include "engine/nodes/checksum.h"

using pathscope::engine::fold_ones_sum;
using pathscope::engine::ones_add;
using pathscope::engine::ones_sum;

namespace {

void expect_same_sums(const std::vector<uint8_t>& bytes) {
    for (size_t off = 0; off < 8; ++off)
        for (size_t len = 0; off + len <= bytes.size() && len <= 300; ++len)
            ASSERT_EQ(ones_sum(bytes.data() + off, len), rte_raw_cksum(bytes.data() + off, len))
                << "offset " << off << ", length " << len;
}

TEST(Checksum, OnesSumIsRteRawCksumForEveryLengthAndAlignment) {
    std::mt19937 rng(7);
    std::vector<uint8_t> random(320);
    for (auto& b : random) b = static_cast<uint8_t>(rng());
    expect_same_sums(random);
    expect_same_sums(std::vector<uint8_t>(320, 0xff));  // every add carries
    expect_same_sums(std::vector<uint8_t>(320, 0));
    // Sums added unfolded, then folded once, as the engine adds a pseudo header.
    EXPECT_EQ(fold_ones_sum(ones_add(random.data() + 3, 40, ones_add(random.data(), 32))),
              fold_ones_sum(uint32_t{rte_raw_cksum(random.data(), 32)} +
                            rte_raw_cksum(random.data() + 3, 40)));
}

TEST(Checksum, APartialSumIsAddedAsRteRawCksumsAre) {
    const uint8_t a[40] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0xff, 0xff, 1, 2, 3};
    const uint8_t b[26] = {0xfe, 0xdc, 0, 9, 0, 26, 0xff, 0xff};
    const uint32_t expected = uint32_t{rte_raw_cksum(a, sizeof a)} + rte_raw_cksum(b, sizeof b);
    EXPECT_EQ(ones_sum(b, sizeof b, rte_raw_cksum(a, sizeof a)),
              fold_ones_sum(expected));
    EXPECT_EQ(fold_ones_sum(0xffffffffffffffffull), 0xffff);
    EXPECT_EQ(fold_ones_sum(0x1ffff), 1);
}

}  // namespace
