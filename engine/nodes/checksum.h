// The Internet checksum's one's-complement sum, a word wider than DPDK
// 22.11's: its __rte_raw_cksum adds 16 bits a step (DPDK 23.07 rewrote it
// wider), which on the send path of 18-byte datagrams was a fifth of the
// engine's cycles (perf, AMD EPYC). The sum is the same value
// rte_raw_cksum gives for any buffer, length and alignment
// (tests/unit/checksum_test.cpp checks it against rte_raw_cksum).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pathscope::engine {

/// Folds a one's-complement sum of 16-bit words kept in 64 bits to 16 bits.
inline uint16_t fold_ones_sum(uint64_t sum) {
    sum = (sum & 0xffffffff) + (sum >> 32);
    sum = (sum & 0xffffffff) + (sum >> 32);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(sum);
}

/// Adds `len` bytes at `buf` to the one's-complement sum `sum` (16-bit
/// words in host order, an odd last byte as the first byte of a word, as
/// rte_raw_cksum reads them), unfolded. Adds 32-bit words into 64 bits: a
/// 32-bit word is two 16-bit words whose sum the fold gives back, and no
/// carry is lost below 2^31 words in all.
inline uint64_t ones_add(const void* buf, size_t len, uint64_t sum = 0) {
    const auto* p = static_cast<const uint8_t*>(buf);
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        sum += (v & 0xffffffff) + (v >> 32);
    }
    if (len >= 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        sum += v;
        p += 4, len -= 4;
    }
    if (len >= 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        sum += v;
        p += 2, len -= 2;
    }
    if (len) {
        uint16_t v = 0;
        memcpy(&v, p, 1);  // the first byte of a word, whatever the byte order
        sum += v;
    }
    return sum;
}

/// rte_raw_cksum's value of `len` bytes at `buf`, with `sum` added.
inline uint16_t ones_sum(const void* buf, size_t len, uint64_t sum = 0) {
    return fold_ones_sum(ones_add(buf, len, sum));
}

}  // namespace pathscope::engine
