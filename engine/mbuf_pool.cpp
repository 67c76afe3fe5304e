#include "engine/mbuf_pool.h"

#include <string>

#include <rte_mbuf_pool_ops.h>
#include <rte_memzone.h>

namespace pathscope::engine {

namespace {

void free_zone(rte_mempool_memhdr*, void* zone) {
    rte_memzone_free(static_cast<const rte_memzone*>(zone));
}

/// Frees what packed_pool made before it failed and sets rte_errno.
rte_mempool* failed(rte_mempool* mp, int rc) {
    rte_mempool_free(mp);  // and the zone, once the pool holds it
    rte_errno = -rc;
    return nullptr;
}

/// The pool packed into one IO-contiguous memzone; nullptr (rte_errno set)
/// when the zone or the pool cannot be had.
rte_mempool* packed_pool(const char* name, unsigned count, unsigned cache, uint16_t priv_size,
                         uint16_t data_room, int socket, const char* ops) {
    // The steps of rte_pktmbuf_pool_create_by_ops (DPDK 22.11), with the
    // pool's memory reserved here rather than by rte_mempool_populate_default.
    // RTE_MEMPOOL_F_NO_IOVA_CONTIG only lifts the page rule: the zone is
    // IO-contiguous, so every buffer in it is too (and gets its IO address).
    rte_mempool* mp = rte_mempool_create_empty(
        name, count, sizeof(rte_mbuf) + priv_size + data_room, cache,
        sizeof(rte_pktmbuf_pool_private), socket, RTE_MEMPOOL_F_NO_IOVA_CONTIG);
    if (!mp) return nullptr;
    if (int rc = rte_mempool_set_ops_byname(mp, ops ? ops : rte_mbuf_best_mempool_ops(), nullptr))
        return failed(mp, rc);
    rte_pktmbuf_pool_private priv{};
    priv.mbuf_data_room_size = data_room;
    priv.mbuf_priv_size = priv_size;
    rte_pktmbuf_pool_init(mp, &priv);
    // What DPDK's default handler asks for without pages: the objects back
    // to back, from a cache-line boundary.
    const size_t size = size_t{mp->header_size + mp->elt_size + mp->trailer_size} * count;
    const std::string zone_name = std::string(name) + "_mz";
    const rte_memzone* zone = rte_memzone_reserve_aligned(
        zone_name.c_str(), size, socket, RTE_MEMZONE_IOVA_CONTIG, RTE_CACHE_LINE_SIZE);
    if (!zone) return failed(mp, -rte_errno);
    if (zone->iova == RTE_BAD_IOVA) {
        rte_memzone_free(zone);
        return failed(mp, -EINVAL);
    }
    const int added = rte_mempool_populate_iova(mp, static_cast<char*>(zone->addr), zone->iova,
                                                zone->len, free_zone,
                                                const_cast<rte_memzone*>(zone));
    if (added < 0) {
        rte_memzone_free(zone);
        return failed(mp, added);
    }
    if (static_cast<unsigned>(added) != count) return failed(mp, -ENOMEM);
    // Every buffer is IO-contiguous with its IO address: what the flags
    // marked (no contiguity, no device IO) is not so.
    mp->flags &= ~(RTE_MEMPOOL_F_NO_IOVA_CONTIG | RTE_MEMPOOL_F_NON_IO);
    rte_mempool_obj_iter(mp, rte_pktmbuf_init, nullptr);
    return mp;
}

}  // namespace

rte_mempool* create_mbuf_pool(const char* name, unsigned count, unsigned cache,
                              uint16_t priv_size, uint16_t data_room, int socket,
                              const char* ops) {
    // The private area that puts the data room's start (after the headroom) on a line.
    constexpr unsigned kBefore = sizeof(rte_mbuf) + RTE_PKTMBUF_HEADROOM;
    priv_size = static_cast<uint16_t>(RTE_ALIGN_CEIL(kBefore + priv_size, RTE_CACHE_LINE_SIZE) -
                                      kBefore);
    if (!rte_eal_has_hugepages())
        if (rte_mempool* mp = packed_pool(name, count, cache, priv_size, data_room, socket, ops))
            return mp;
    return rte_pktmbuf_pool_create_by_ops(name, count, cache, priv_size, data_room, socket, ops);
}

}  // namespace pathscope::engine
