// txq_select: the transmit queue of each packet, as an index among the
// queues the worker has to itself (PortRuntime::tx_per_worker; eth_tx maps
// it to the device's queue). engine.txq_hash = flow
// spreads flows over the egress port's queues by a hash of the addresses and
// (for UDP and TCP) the ports, so one flow stays on one queue and keeps its
// order; none puts everything on queue 0. Hashed packets are then grouped
// by queue (a stable counting sort, so each flow keeps its order), so that
// eth_tx hands each queue one burst instead of a packet at a time.
#include "engine/nodes/nodes.h"

#include <algorithm>
#include <cstring>

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_eth_tx };

inline uint16_t flow_queue(rte_mbuf* m, const PacketMeta* pm, uint16_t queues) {
    const rte_ipv6_hdr* ip = ip6_hdr(m);
    uint32_t h = rte_hash_crc(ip->src_addr, 32, 0);  // source and destination addresses
    const uint32_t l4 = kL3Offset + pm->l4_off;
    if ((pm->l4_proto == IPPROTO_UDP || pm->l4_proto == IPPROTO_TCP) &&
        rte_pktmbuf_data_len(m) >= l4 + 4)
        h = rte_hash_crc_4byte(*rte_pktmbuf_mtod_offset(m, const uint32_t*, l4), h);
    return static_cast<uint16_t>((uint64_t{h} * queues) >> 32);  // multiply-shift, no division
}

constexpr uint16_t kSortedQueues = 64;  ///< queues beyond this are left in arrival order
constexpr uint16_t kSortedBurst = 512;

/// Stable counting sort of the burst by transmit queue (`queue[i]` is objs[i]'s).
void group_by_queue(void** objs, const uint8_t* queue, uint16_t n, uint16_t queues) {
    uint16_t start[kSortedQueues + 1] = {};
    for (uint16_t i = 0; i < n; ++i) ++start[queue[i] + 1];
    for (uint16_t q = 1; q <= queues; ++q) start[q] += start[q - 1];
    void* sorted[kSortedBurst];
    for (uint16_t i = 0; i < n; ++i) sorted[start[queue[i]]++] = objs[i];
    memcpy(objs, sorted, n * sizeof(void*));
}

uint16_t txq_select_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    EngineContext& ctx = *node_context(node);
    auto** pkts = reinterpret_cast<rte_mbuf**>(objs);
    // With no port giving a worker more than one queue there is nothing to
    // choose: every packet takes index 0 (as with txq_hash = none).
    if (ctx.txq_hash == TxqHash::none || ctx.max_tx_per_worker <= 1) {
        for_each_packet(pkts, n, [](rte_mbuf* m, uint16_t) { meta(m)->tx_queue = 0; });
    } else {
        uint8_t queue[kSortedBurst];
        uint16_t most = 1;
        for_each_packet(pkts, n, [&](rte_mbuf* m, uint16_t i) {
            PacketMeta* pm = meta(m);
            const uint16_t queues = ctx.ports[pm->tx_port].tx_per_worker;
            pm->tx_queue = queues > 1 && pm->fate != Fate::control ? flow_queue(m, pm, queues) : 0;
            if (i < kSortedBurst) queue[i] = static_cast<uint8_t>(pm->tx_queue);
            most = std::max(most, queues);
        });
        if (most > 1 && most <= kSortedQueues && n > 1 && n <= kSortedBurst)
            group_by_queue(objs, queue, n, most);
    }
    rte_node_next_stream_move(graph, node, to_eth_tx);
    count_edge(node, to_eth_tx, n);
    return n;
}

}  // namespace

void register_txq_select() { register_node(kTxqSelect, txq_select_process, {kEthTx}); }

}  // namespace pathscope::engine
