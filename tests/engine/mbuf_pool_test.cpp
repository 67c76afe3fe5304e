// The engine's packet buffer pool on 4 KiB pages: buffers spread over the
// cache sets (not one per page at one offset, as DPDK's own pool has them),
// each with its IO address, with the data room and private area asked for,
// and every packet's data starting on a cache line (its headers in one line).
#include <gtest/gtest.h>

#include <set>
#include <unistd.h>

#include "engine/dpdk.h"
#include "engine/mbuf_pool.h"
#include "engine/packet_meta.h"
#include "tests/engine/eal_env.h"

namespace pathscope {
namespace {

using engine::create_mbuf_pool;

constexpr uint16_t kRoom = RTE_MBUF_DEFAULT_BUF_SIZE;
constexpr unsigned kBuffers = 4095;

class MbufPool : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { test::init_eal(); }
};

/// Which L1 cache set (64-byte lines, 64 sets: a 4 KiB page's worth) an address falls in.
unsigned line_in_page(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 4095) >> 6; }

TEST_F(MbufPool, BuffersStartAtEveryLineOfAPage) {
    ASSERT_EQ(rte_eal_has_hugepages(), 0) << "this test is about --no-huge's 4 KiB pages";
    ASSERT_EQ(sysconf(_SC_PAGESIZE), 4096);
    rte_mempool* mp = create_mbuf_pool("spread_test", kBuffers, 256, engine::kSocketMetaSize, kRoom,
                                       static_cast<int>(rte_socket_id()), nullptr);
    ASSERT_NE(mp, nullptr) << rte_strerror(rte_errno);
    EXPECT_FALSE(mp->flags & RTE_MEMPOOL_F_NON_IO) << "a pool the devices may not DMA into";
    struct Seen {
        std::set<unsigned> headers, data;
        unsigned bad_iova = 0, short_room = 0, small_priv = 0, mid_line = 0;
    } seen;
    rte_mempool_obj_iter(
        mp,
        [](rte_mempool*, void* arg, void* obj, unsigned) {
            auto& s = *static_cast<Seen*>(arg);
            auto* m = static_cast<rte_mbuf*>(obj);
            s.headers.insert(line_in_page(m));
            const char* data = static_cast<char*>(m->buf_addr) + RTE_PKTMBUF_HEADROOM;
            s.data.insert(line_in_page(data));
            if (reinterpret_cast<uintptr_t>(data) % RTE_CACHE_LINE_SIZE) ++s.mid_line;
            // With virtual IO addresses a buffer's IO address is its own.
            if (rte_eal_iova_mode() == RTE_IOVA_VA &&
                m->buf_iova != reinterpret_cast<uintptr_t>(m->buf_addr))
                ++s.bad_iova;
            if (m->buf_len != kRoom) ++s.short_room;
            if (rte_pktmbuf_priv_size(m->pool) < engine::kSocketMetaSize) ++s.small_priv;
        },
        &seen);
    // DPDK's own pool puts every one of them at the same line of its page.
    EXPECT_EQ(seen.headers.size(), 64u)
        << "mbuf headers fall in " << seen.headers.size() << " of 64 lines";
    EXPECT_EQ(seen.data.size(), 64u)
        << "packet starts fall in " << seen.data.size() << " of 64 lines";
    // Ethernet, IPv6 and UDP headers (62 bytes) in one line, not two.
    EXPECT_EQ(seen.mid_line, 0u) << seen.mid_line << " of " << kBuffers << " packets start mid-line";
    EXPECT_EQ(seen.bad_iova, 0u);
    EXPECT_EQ(seen.short_room, 0u);
    EXPECT_EQ(seen.small_priv, 0u);
    // Packed: less memory than a page a buffer, as DPDK's own pool takes here.
    size_t bytes = 0;
    rte_mempool_mem_iter(
        mp, [](rte_mempool*, void* arg, rte_mempool_memhdr* h, unsigned) {
            *static_cast<size_t*>(arg) += h->len;
        },
        &bytes);
    EXPECT_LT(bytes, size_t{4096} * kBuffers) << bytes << " bytes for " << kBuffers << " buffers";
    // Buffers taken and given back work as any mbuf.
    rte_mbuf* m = rte_pktmbuf_alloc(mp);
    ASSERT_NE(m, nullptr);
    ASSERT_NE(rte_pktmbuf_append(m, 1500), nullptr);
    EXPECT_EQ(rte_pktmbuf_tailroom(m), kRoom - RTE_PKTMBUF_HEADROOM - 1500);
    rte_pktmbuf_free(m);
    rte_mempool_free(mp);
}

}  // namespace
}  // namespace pathscope

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
