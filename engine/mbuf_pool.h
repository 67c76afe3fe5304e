// The engine's packet buffer pool.
#pragma once

#include "engine/dpdk.h"

namespace pathscope::engine {

/// rte_pktmbuf_pool_create_by_ops, with the buffers spread over the cache.
///
/// Without hugepages (--no-huge: 4 KiB pages) DPDK keeps each buffer inside
/// one page, so a 2.4 KB mbuf has a page to itself at the same offset as
/// every other: all mbufs' headers, dynamic fields and packet starts fall
/// into the same few L1 cache sets, which hold 8 lines each, and every stage
/// found most of a 32-packet burst evicted by the stage before it (on an AMD
/// EPYC VM the forward path took 280-300 cycles a packet instead of 210-230).
/// Here the pool's memory is one IO-contiguous zone and the buffers lie back
/// to back in it, across page boundaries (a 39-line stride, so consecutive
/// buffers start at different lines of their pages). Each buffer is still
/// whole in IO address space, as the devices need; the pool takes 60% of
/// the memory it took before. With hugepages, or when no such zone can be
/// had, the pool is DPDK's own.
///
/// Either way the private area is at least `priv_size`, rounded up so that
/// each packet's data (after the mbuf, that area and the headroom) starts on
/// a cache line: with the engine's 32-byte area the data started half-way
/// into one, and the Ethernet, IPv6 and UDP headers (62 bytes) spanned two
/// lines that every stage reading headers touched (l3fwd's mbufs, without a
/// private area, start theirs on a line; eth_rx took 3 cycles a packet more
/// on an AMD EPYC VM). Returns nullptr with rte_errno set, as DPDK's does.
rte_mempool* create_mbuf_pool(const char* name, unsigned count, unsigned cache,
                              uint16_t priv_size, uint16_t data_room, int socket,
                              const char* ops);

}  // namespace pathscope::engine
