// The engine's run-time state as the stages see it. Built by Engine on the
// control thread before the graph exists; afterwards written only by the
// worker lcore (counters) and read by the control thread (snapshots).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/counters.h"
#include "engine/dpdk.h"
#include "engine/fib_rules.h"
#include "engine/ifaddr.h"
#include "engine/neighbours.h"
#include "engine/xlat.h"

namespace pathscope::engine {

class UdpSocket;

struct PortRuntime {
    std::string name;
    uint16_t port_id = 0;
    uint16_t nb_rx = 0;
    uint16_t nb_tx = 0;
    /// Transmit queues each worker has to itself: worker w sends on queues
    /// w, w + workers, w + 2 * workers, ... (nb_tx / workers of them).
    /// txq_select picks among these by index, eth_tx maps the index to the queue.
    uint16_t tx_per_worker = 0;
    bool poll = true;
    bool promiscuous = false;
    rte_ether_addr mac{};
    std::vector<Ip6Addr> addresses;
    std::unique_ptr<RxQueueCounters[]> rxq;
    std::unique_ptr<TxQueueCounters[]> txq;
};

/// Key of a connected UDP socket: the remote end and our port (our address is
/// any of ours, as for bound sockets).
struct ConnKey {
    uint8_t remote[16];
    uint16_t remote_port;
    uint16_t local_port;
};

/// translate: the destination is rewritten (ILA or NPTv6, engine.ila) by the
/// ila_late stage and then looked up again, as a lightweight tunnel's input does.
enum class NexthopKind : uint8_t { none, local, remote, onlink, translate };

/// A FIB next hop value indexes this table. Index 0 is "no route" (the FIB's
/// default), index 1 is "local delivery", index 2 "translate".
struct Nexthop {
    NexthopKind kind = NexthopKind::none;
    uint16_t port = 0;  ///< DPDK port id
    rte_ether_addr mac{};
};

// kNexthopNone (0), kNexthopLocal (1) and the rule outcomes: fib_rules.h.

struct EngineContext;

/// What one worker lcore writes while it walks its graph (engine.workers):
/// its counters, its stages' edge and per-call rows, its ICMPv6 error
/// budget. Each worker has its own, so no cache line here is written by two
/// workers; snapshots sum them. The applications run on worker 0 and write
/// worker 0's (EngineContext::app_worker()).
struct WorkerContext {
    WorkerContext(EngineContext& engine, unsigned index, unsigned node_rows);

    EngineContext& engine;
    unsigned index;
    PathCounters counters;
    SendPathCounters send_path;
    EventCounters events;
    LatencyRecorders latency;
    /// Packets per stage and next edge (EdgeCounters), one row per graph node
    /// id and a last row for the neighbour table, which holds packets waiting
    /// for a link-layer address and releases, times out or solicits later.
    std::unique_ptr<EdgeCounters[]> edges;
    /// That last row; its slots: 0 txq_select and 1 drop (nd_resolve's edges,
    /// which solicitations and timed out packets take), 2 nd_resolve (released).
    EdgeCounters* neighbour_edges = nullptr;
    std::unique_ptr<HistogramRecorder[]> call_cycles;  ///< by node id: busy calls
    std::unique_ptr<IdleCounters[]> idle;              ///< by node id
    std::unique_ptr<UntimedCounters[]> untimed;        ///< by node id (engine.timing = "1/N")
    WalkCounters walks;
    uint64_t walk_number = 0;  ///< worker-owned: walks so far, for engine.timing = "1/N"
    AppPollCounters app_polls;  ///< worker 0 only
    /// Neighbours this worker is resolving, with the packets it holds for them.
    std::unique_ptr<PendingNeighbours> pending_neighbours;
    // ICMPv6 error rate limit: a token bucket refilled from the TSC, this
    // worker's share of engine.icmp_errors_per_s.
    uint64_t icmp_tokens = 0;
    uint64_t icmp_last_tsc = 0;
    uint64_t icmp_per_s = 0;

    bool icmp_error_allowed(uint64_t now);
};

/// The receive queue an eth_rx node instance polls: none (kNoPort) for the
/// idle eth_rx of an engine that polls no queue.
struct RxQueueRef {
    static constexpr uint16_t kNoPort = RTE_MAX_ETHPORTS;
    uint16_t port = kNoPort;
    uint16_t queue = 0;
};

struct EngineContext {
    /// One per worker (engine.workers), in worker order.
    std::vector<std::unique_ptr<WorkerContext>> workers;
    unsigned worker_count = 1;  ///< engine.workers, known before the workers are made
    /// The worker the applications and the socket send stage run on (and
    /// poll()'s caller).
    WorkerContext& app_worker() { return *workers[0]; }
    /// By graph node id: the queue of each eth_rx instance (one per polled
    /// receive queue).
    std::vector<RxQueueRef> rx_queue_of;
    uint16_t burst = 32;
    /// The most transmit queues any port gives one worker (PortRuntime::tx_per_worker).
    uint16_t max_tx_per_worker = 0;
    uint16_t tx_ports = 0;  ///< ports with transmit queues
    rte_mempool* pool = nullptr;  ///< for packets the engine makes (solicitations)
    // Variants (EngineConfig's switches, read by the stages).
    bool route_cache = true;
    /// Record each received packet's time through the engine (sojourn
    /// histograms): on with engine.call_histograms, off to measure without.
    bool latency_histograms = true;
    TxqHash txq_hash = TxqHash::flow;
    SendAccounting send_accounting = SendAccounting::local;
    bool early_demux = false;
    uint32_t extra_work_cycles = 0;  ///< EngineConfig::extra_work_cycles
    IlaMode ila = IlaMode::off;
    std::unique_ptr<IlaTable> ila_table;  ///< engine.ila = late or early
    Nptv6Table nptv6;                     ///< engine.ila = nptv6
    std::vector<PortRuntime> ports;      ///< indexed by DPDK port id
    std::vector<uint16_t> polled_ports;  ///< port ids whose rx queues eth_rx polls
    std::vector<Nexthop> nexthops;
    /// The routing tables and policy rules (fib_rules.h).
    FibRules fib;
    /// Reachable neighbours, shared by the workers (lock-free reads).
    std::unique_ptr<NeighbourCache> neighbours;
    /// Addresses as they change during a run (local delivery checks and
    /// source selection read these; `ports[].addresses` keeps the configured ones).
    std::unique_ptr<InterfaceAddresses> ifaddrs;
    /// Bumped when routes change: connected sockets' cached routes are then stale.
    uint32_t route_generation = 0;
    /// ConnKey -> connected UdpSocket*. Written by one thread at a time (the
    /// control thread before the start, the applications' worker after),
    /// read by every worker without a lock (RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF).
    rte_hash* connected = nullptr;
    /// Connected sockets: the receive path skips the 4-tuple lookup while
    /// there are none. Read relaxed: a worker that reads a stale 0 misses a
    /// socket that has just connected and falls back to the bound socket,
    /// as a datagram that arrived a moment earlier would have.
    std::atomic<unsigned> connected_count{0};
    std::vector<Ip6Addr> local_addresses;
    /// Bound sockets by local port: set (release) by the thread that binds,
    /// read (acquire) by every worker's udp6_input.
    std::atomic<UdpSocket*> bound[65536] = {};
    std::vector<UdpSocket*> sockets;  ///< every open socket, for the send path
    uint16_t next_ephemeral = 49152;  ///< where the search for a free ephemeral port starts
    uint64_t icmp_per_s = 100;  ///< the whole engine's; each worker has its share
    uint64_t tsc_hz = 0;

    bool is_local(const uint8_t* a) const;
    /// Our address `a` as remote peers see it: the source that the send
    /// path's translation (engine.ila: ILA's SIR address to its locator, or
    /// NPTv6's internal prefix to the external one) writes for it. `a` is
    /// left as it is when no translation applies.
    void wire_address(uint8_t* a) const;
    /// ff02::1 or the solicited-node group of one of our addresses.
    bool joined(const uint8_t* group) const;
    /// Route output: the route of a datagram we send to `dst` from `src`
    /// (nullptr while the source is not chosen), through the policy rules as
    /// a locally sent datagram (`iif lo`). A next hop index, or kNexthopNone or
    /// an outcome below kNexthopFirstRoute. Counts its work in `t`.
    uint32_t route_output(const uint8_t* dst, const uint8_t* src, RuleTally& t) const {
        static constexpr uint8_t kUnspecified[16] = {};
        return fib.lookup(dst, src ? src : kUnspecified, kIifLocal, t);
    }
    /// The same for a datagram being sent (counted in send_path.route_lookups
    /// of worker 0, where the send path runs).
    uint32_t route(const uint8_t* dst, const uint8_t* src, RuleTally& t) {
        app_worker().send_path.route_lookups.add();
        return route_output(dst, src, t);
    }
};

/// The worker whose graph is being created: its stages bind to it (set by
/// Engine around rte_graph_create, read by each node's init callback).
WorkerContext*& building_worker();

/// The worker whose graph holds `node` (node->ctx's first pointer).
inline WorkerContext* node_worker(const rte_node* node) {
    WorkerContext* w;
    memcpy(&w, node->ctx, sizeof w);
    return w;
}

inline EngineContext* node_context(const rte_node* node) { return &node_worker(node)->engine; }

/// The node's row of edge counters (its worker's), kept beside the worker
/// pointer in the node's own context area (the line the dispatcher reads
/// anyway). The row is cache-line aligned, so the pointer's low bits are
/// free: they hold the dispatcher's speculative next edge (speculated_edge()
/// in nodes/node.h; DPDK 22.11's node context has room for two pointers only).
inline constexpr uintptr_t kEdgeRowTagMask = alignof(EdgeCounters) - 1;
inline EdgeCounters* node_edges(const rte_node* node) {
    uintptr_t e;
    memcpy(&e, node->ctx + sizeof(WorkerContext*), sizeof e);
    return reinterpret_cast<EdgeCounters*>(e & ~kEdgeRowTagMask);
}

}  // namespace pathscope::engine
