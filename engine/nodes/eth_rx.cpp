// eth_rx: the source stage. Polls every receive queue of every polled port,
// stamps each packet with the receive TSC and its port, and counts per queue.
#include "engine/nodes/nodes.h"

namespace pathscope::engine {

namespace {

uint16_t eth_rx_process(rte_graph* graph, rte_node* node, void**, uint16_t) {
    EngineContext& ctx = *node_context(node);
    const uint16_t burst = ctx.burst;
    uint16_t total = 0;
    for (const uint16_t port_id : ctx.polled_ports) {
        PortRuntime& port = ctx.ports[port_id];
        for (uint16_t q = 0; q < port.nb_rx; ++q) {
            auto** to =
                reinterpret_cast<rte_mbuf**>(rte_node_next_stream_get(graph, node, 0, burst));
            const uint16_t n = rte_eth_rx_burst(port_id, q, to, burst);
            RxQueueCounters& qc = port.rxq[q];
            if (n == 0) {
                qc.empty_polls.add();
                continue;
            }
            const uint64_t now = rte_rdtsc();
            uint64_t bytes = 0;
            for (uint16_t i = 0; i < n; ++i) {
                PacketMeta* pm = meta(to[i]);
                pm->rx_tsc = now;
                pm->rx_port = port_id;
                pm->fate = Fate::forward;
                bytes += rte_pktmbuf_pkt_len(to[i]);
            }
            qc.packets.add(n);
            qc.bytes.add(bytes);
            qc.bursts.add();
            qc.burst_size.record(n);
            rte_node_next_stream_put(graph, node, 0, n);
            total += n;
        }
    }
    ctx.counters.received.add(total);
    if (total) count_edge(node, 0, total);
    return total;
}

}  // namespace

void register_eth_rx() { register_node(kEthRx, eth_rx_process, {kEthInput}, true); }

}  // namespace pathscope::engine
