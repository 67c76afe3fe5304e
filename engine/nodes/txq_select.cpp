// txq_select: the transmit queue of each packet, as an index among the
// queues the worker has to itself (PortRuntime::tx_per_worker; eth_tx maps
// it to the device's queue). engine.txq_hash = flow
// spreads flows over the egress port's queues by a hash of the addresses and
// (for UDP and TCP) the ports, so one flow stays on one queue and keeps its
// order; none puts everything on queue 0. The burst is then grouped by port
// and queue (stably, so each flow keeps its order), so that eth_tx hands
// each port's queue one burst instead of one per change of port or queue.
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

constexpr unsigned kMaxGroups = 32;  ///< more (port, queue) pairs in one burst: left in arrival order
constexpr uint16_t kSortedBurst = 512;

/// Which (port, queue) group each packet of a burst is in, in the order the
/// pairs first appear, and whether each pair's packets already come in one
/// run (then nothing needs to move: the common case costs a compare a
/// packet, in the same pass that chose the queue).
struct Groups {
    uint32_t keys[kMaxGroups];
    uint8_t of[kSortedBurst];
    unsigned count = 0, last = 0;
    bool runs = true;
    bool overflow = false;  ///< too many pairs, or too long a burst: left as it came

    void add(uint16_t i, const PacketMeta* pm) {
        const uint32_t key = uint32_t{pm->tx_port} << 16 | pm->tx_queue;
        if (count && keys[last] == key) {
            if (i < kSortedBurst) of[i] = static_cast<uint8_t>(last);
            return;
        }
        unsigned g = 0;
        while (g < count && keys[g] != key) ++g;
        if (g == count) {
            if (count == kMaxGroups) return void(overflow = true);
            keys[count++] = key;
        } else {
            runs = false;  // a pair seen before, after another: out of its run
        }
        last = g;
        if (i < kSortedBurst) of[i] = static_cast<uint8_t>(g);
    }

    /// Puts the burst in group order, stably (each flow keeps its order).
    void sort(void** objs, uint16_t n) const {
        if (runs || overflow || n > kSortedBurst) return;
        uint16_t start[kMaxGroups + 1] = {};
        for (uint16_t i = 0; i < n; ++i) ++start[of[i] + 1];
        for (unsigned g = 1; g <= count; ++g) start[g] += start[g - 1];
        void* sorted[kSortedBurst];
        for (uint16_t i = 0; i < n; ++i) sorted[start[of[i]]++] = objs[i];
        memcpy(objs, sorted, n * sizeof(void*));
    }
};

/// Sets a packet's queue index, writing it only where it differs (a recycled
/// mbuf mostly holds it already): eth_tx reads port and queue as one word,
/// and a load of a 16-bit store still in flight waits for it to reach the
/// cache (eth_tx +10 cycles a packet on an AMD EPYC VM when every packet
/// had it).
inline void set_queue(PacketMeta* pm, uint16_t queue) {
    if (unlikely(pm->tx_queue != queue)) pm->tx_queue = queue;
}

/// Queue index 0 for every packet (no hash, or no port with a choice);
/// whether they all leave by one port (then the burst is one group as it is).
inline bool queue_zero_one_port(rte_mbuf* const* pkts, uint16_t n) {
    const uint16_t port = meta(pkts[0])->tx_port;
    uint16_t other = 0;  ///< packets for another port
    for_each_packet(pkts, n, [&](rte_mbuf* m, uint16_t) {
        PacketMeta* pm = meta(m);
        set_queue(pm, 0);
        other += pm->tx_port != port;
    });
    return other == 0;
}

uint16_t txq_select_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    if (unlikely(n == 0)) return 0;
    EngineContext& ctx = *node_context(node);
    auto** pkts = reinterpret_cast<rte_mbuf**>(objs);
    // With no port giving a worker more than one queue there is no queue to
    // choose (index 0, as with txq_hash = none); a burst for one port (the
    // common case) is then one group, found in the same pass.
    const bool hash = ctx.txq_hash != TxqHash::none && ctx.max_tx_per_worker > 1;
    if (hash || (!queue_zero_one_port(pkts, n) && ctx.tx_ports > 1)) {
        Groups groups;
        for_each_packet(pkts, n, [&](rte_mbuf* m, uint16_t i) {
            PacketMeta* pm = meta(m);
            const uint16_t queues = hash ? ctx.ports[pm->tx_port].tx_per_worker : 1;
            set_queue(pm, queues > 1 && pm->fate != Fate::control ? flow_queue(m, pm, queues) : 0);
            groups.add(i, pm);
        });
        groups.sort(objs, n);
    }
    rte_node_next_stream_move(graph, node, to_eth_tx);
    count_edge(node, to_eth_tx, n);
    return n;
}

}  // namespace

void register_txq_select() { register_node(kTxqSelect, txq_select_process, {kEthTx}); }

}  // namespace pathscope::engine
