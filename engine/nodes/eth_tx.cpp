// eth_tx: transmits runs of packets that share an egress port and queue
// (chosen by txq_select among the worker's own queues, index i being device
// queue worker + i * workers; replies made in place use index 0), counts each sent
// packet by its fate (forwarded, replied, sent, control) and per queue, and
// hands what the queue refused to the drop stage as tx_full. A received
// packet that leaves has its time through the engine recorded (sojourn); a
// locally sent datagram leaves its socket's send buffer once the device took
// it (engine.send_accounting: Linux's sock_wfree on the transmit completion).
#include "engine/nodes/nodes.h"
#include "engine/socket.h"
#include "engine/tsan.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_drop };

/// Packets per transmit call at most: a longer run of one port and queue is
/// sent in pieces, so that what is read of them before the transmit (after
/// which the driver may free the mbufs) fits on the stack.
constexpr uint16_t kTxRun = RTE_GRAPH_BURST_SIZE;

/// The sent packets' times through the engine. Packets of one receive
/// burst share their stamp, so a run of equal stamps and outcomes is one
/// record of that many equal values (the histogram stays exact).
void record_sojourns(LatencyRecorders& latency, const uint64_t* stamps, const Sojourn* outcomes,
                     uint16_t sent, uint64_t now) {
    for (uint16_t i = 0, j; i < sent; i = j) {
        for (j = i + 1; j < sent && stamps[j] == stamps[i] && outcomes[j] == outcomes[i];) ++j;
        if (stamps[i]) latency.record(outcomes[i], now - stamps[i], j - i);
    }
}

/// Releases the locally sent datagrams the device took (the first `sent`
/// of the run) from their sockets' send buffers. A run of one socket's
/// datagrams is released as one sum where the socket allows it, rather than
/// a chain of dependent subtracts on its count.
void release_taken(UdpSocket* const* by, const uint32_t* truesize, const uint16_t* at,
                   unsigned locals, uint16_t sent) {
    for (unsigned i = 0, j; i < locals && at[i] < sent; i = j) {
        UdpSocket* s = by[i];
        uint64_t bytes = truesize[i];
        j = i + 1;
        if (!s) continue;
        if (s->releases_in_sum())
            for (; j < locals && at[j] < sent && by[j] == s; ++j) bytes += truesize[j];
        s->release_sent(bytes);
    }
}

uint16_t eth_tx_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    WorkerContext& w = *node_worker(node);
    EngineContext& ctx = w.engine;
    auto** pkts = reinterpret_cast<rte_mbuf**>(objs);
    uint64_t fates[4] = {};  // indexed by Fate, for what was sent
    const bool sojourn = ctx.latency_histograms;
    const uint64_t now = sojourn ? rte_rdtsc() : 0;
    uint64_t stamps[kTxRun];  // receive TSC of forwarded and replied packets, else 0
    Sojourn outcomes[kTxRun];
    uint16_t start = 0;
    uint64_t wire = 0;  // packets the devices took: kept by this stage
    while (start < n) {
        // One pass finds the run of packets for this port and queue and tallies them.
        const uint16_t port_id = meta(pkts[start])->tx_port;
        const uint16_t index = meta(pkts[start])->tx_queue;  // among this worker's queues
        uint64_t run_fates[4] = {}, bytes = 0;
        // Locally sent datagrams of the run, read before the device may free
        // them: their socket, buffer size and place in the run.
        UdpSocket* by[kTxRun];
        uint32_t truesize[kTxRun];
        uint16_t at[kTxRun];
        unsigned locals = 0;
        uint16_t end = start;
        for (; end < n && end - start < kTxRun; ++end) {
            const PacketMeta* pm = meta(pkts[end]);
            if (pm->tx_port != port_id || pm->tx_queue != index) break;
            ++run_fates[static_cast<unsigned>(pm->fate)];
            bytes += rte_pktmbuf_pkt_len(pkts[end]);
            if (sojourn) {
                const bool received = pm->fate == Fate::forward || pm->fate == Fate::reply;
                stamps[end - start] = received ? pm->rx_tsc : 0;
                outcomes[end - start] =
                    pm->fate == Fate::forward ? Sojourn::forwarded : Sojourn::replied;
            }
            if (pm->fate == Fate::local) {
                by[locals] = socket_meta(pkts[end])->socket;
                truesize[locals] = pkts[end]->buf_len;
                at[locals++] = static_cast<uint16_t>(end - start);
            }
        }
        const uint16_t len = end - start;
        PortRuntime& port = ctx.ports[port_id];
        const auto queue = static_cast<uint16_t>(w.index + index * ctx.worker_count);
        tsan_handed_over(pkts + start, len);  // whoever reads the port's queue takes them
        const uint16_t sent = port.nb_tx ? rte_eth_tx_burst(port_id, queue, pkts + start, len) : 0;
        // What the device refused goes to drop, which releases it there.
        release_taken(by, truesize, at, locals, sent);
        // Refused packets are rare: take them back out of the tallies.
        for (uint16_t i = sent; i < len; ++i) {
            PacketMeta* pm = meta(pkts[start + i]);
            --run_fates[static_cast<unsigned>(pm->fate)];
            bytes -= rte_pktmbuf_pkt_len(pkts[start + i]);
            pm->drop = DropReason::tx_full;
            rte_node_enqueue_x1(graph, node, to_drop, pkts[start + i]);
        }
        if (sent < len) count_edge(node, to_drop, len - sent);
        wire += sent;
        if (port.nb_tx) {
            TxQueueCounters& qc = port.txq[queue];
            qc.packets.add(sent);
            qc.bytes.add(bytes);
            qc.bursts.add();
            if (sent < len) qc.full.add(len - sent);
        }
        if (sojourn) record_sojourns(w.latency, stamps, outcomes, sent, now);
        for (unsigned f = 0; f < 4; ++f) fates[f] += run_fates[f];
        start = end;
    }
    auto tally = [&](Counter& c, Fate f) {
        if (const uint64_t v = fates[static_cast<unsigned>(f)]) c.add(v);
    };
    if (wire) count_edge(node, kConsumed, wire);
    tally(w.counters.forwarded, Fate::forward);
    tally(w.counters.replied, Fate::reply);
    tally(w.counters.sent, Fate::local);
    tally(w.send_path.control_sent, Fate::control);
    return n;
}

}  // namespace

void register_eth_tx() { register_node(kEthTx, eth_tx_process, {kDrop}); }

}  // namespace pathscope::engine
