// eth_rx: the source stage, one instance per polled receive queue (a clone
// of this node per (port, queue), bound to it by EngineContext::rx_queue_of),
// so that each queue's receive cycles are a stage row of their own. Stamps
// each packet with the receive TSC and its port, and counts per queue.
#include "engine/nodes/nodes.h"
#include "engine/tsan.h"

namespace pathscope::engine {

namespace {

uint16_t eth_rx_process(rte_graph* graph, rte_node* node, void**, uint16_t) {
    WorkerContext& w = *node_worker(node);
    EngineContext& ctx = w.engine;
    const RxQueueRef q = ctx.rx_queue_of[node->id];
    if (unlikely(q.port == RxQueueRef::kNoPort)) return 0;  // a send-only engine
    RxQueueCounters& qc = ctx.ports[q.port].rxq[q.queue];
    auto** to = reinterpret_cast<rte_mbuf**>(rte_node_next_stream_get(graph, node, 0, ctx.burst));
    const uint16_t n = rte_eth_rx_burst(q.port, q.queue, to, ctx.burst);
    tsan_taken(to, n);  // handed over by another thread, through the PMD
    if (n == 0) {
        qc.empty_polls.add();
        return 0;
    }
    const uint64_t now = rte_rdtsc();
    uint64_t bytes = 0;
    for (uint16_t i = 0; i < n; ++i) {
        PacketMeta* pm = meta(to[i]);
        pm->rx_tsc = now;
        pm->rx_port = q.port;
        pm->fate = Fate::forward;
        bytes += rte_pktmbuf_pkt_len(to[i]);
    }
    qc.packets.add(n);
    qc.bytes.add(bytes);
    qc.bursts.add();
    qc.burst_size.record(n);
    rte_node_next_stream_put(graph, node, 0, n);
    w.counters.received.add(n);
    count_edge(node, 0, n);
    return n;
}

}  // namespace

void register_eth_rx() { register_node(kEthRx, eth_rx_process, {kEthInput}, true); }

}  // namespace pathscope::engine
