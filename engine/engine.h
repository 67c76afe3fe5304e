// The IPv6/UDP engine: ports, FIB, sockets and applications, and the stage
// graphs that its worker lcores walk (engine.workers: one graph each, made
// from the same node patterns, each with the eth_rx instances of its receive
// queues). One Engine at a time per process; the EAL must be initialised
// first (eal_init).
#pragma once

#include <atomic>
#include <memory>
#include <thread>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/context.h"
#include "engine/snapshot.h"
#include "engine/trace.h"

namespace pathscope::engine {

class App;
class PluginStages;

/// A port's receive-side scaling as set up (a run stores it as a fact).
struct PortRss {
    std::string port;
    std::string setting;      ///< "on over 4 receive queues: ...", "off: ...", "unavailable: ..."
    bool unbalanced = false;  ///< a real device with several queues and no RSS: warn
};

/// Rings behind an in-process net_ring port ("ring" device): inject packets
/// into `rx[q]`, collect what the engine sent from `tx[q]`.
struct RingPort {
    uint16_t port_id = 0;
    std::vector<rte_ring*> rx;
    std::vector<rte_ring*> tx;
};

class Engine {
  public:
    /// Builds everything `cfg` names. Throws std::runtime_error with a
    /// message naming the part of the configuration at fault.
    explicit Engine(const EngineConfig& cfg);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    /// Starts the workers on the first EAL worker lcores (one each).
    void start();
    /// Stops the worker and waits for it; packets still waiting for a
    /// neighbour are then dropped as nd_pending_at_stop (also when the
    /// engine was driven by poll()), so that both ledgers balance.
    void stop();
    bool running() const { return running_; }

    /// One graph walk of each worker's graph and one application poll, on
    /// the calling thread (for tests and single-lcore use). Returns the
    /// packets received.
    uint64_t poll();
    /// Polls until `idle_polls` consecutive polls received nothing.
    void run_until_idle(unsigned idle_polls = 64);

    /// Counters now. Without `histograms` it leaves the per-call and
    /// burst-size histograms empty: interval snapshots need only the counters,
    /// and reading ~1000 buckets a stage would pull lines the worker is writing.
    EngineSnapshot snapshot(bool histograms = true) const;

    /// Follows about `per_second` packets a second through the graph (0: off).
    /// Needs per-call histograms on (our own graph walk).
    void set_trace_rate(uint32_t per_second);
    /// Drains the traces the worker wrote; f(const PacketTrace&).
    template <typename F>
    unsigned drain_traces(F&& f) {
        return traces_.drain(f);
    }
    /// Stage name of a graph node id (as in PacketTrace::node).
    std::string node_name(uint16_t node) const;

    /// engine.timing: time one graph walk in `every` (1: every walk). The
    /// walks between are counted exactly, their cycles estimated at each
    /// stage's last timed rate. May change while the worker runs.
    void set_timing_period(uint32_t every);
    uint32_t timing_period() const { return static_cast<uint32_t>(timing_period_.load()); }
    /// What one timestamp of the stage timing costs the worker, in TSC
    /// cycles: measured when the engine was made (the fastest of several
    /// rounds of back-to-back reads).
    double timestamp_cycles() const { return timestamp_cycles_; }

    /// Kernel thread id of worker `w`'s lcore (for perf_event); waits until it has started.
    int worker_tid(unsigned w = 0) const;
    unsigned workers() const { return static_cast<unsigned>(workers_.size()); }

    const RingPort& ring_port(const std::string& name) const;
    /// Copies a frame into an mbuf and queues it on a ring port's receive
    /// ring `queue`. False when the pool or the ring is full (poll, then retry).
    /// Throws on a frame larger than an mbuf.
    bool inject(const std::string& port, const uint8_t* data, size_t len, unsigned queue = 0);
    /// The largest frame inject() takes (one mbuf's data room).
    size_t max_frame() const;
    uint16_t port_id(const std::string& name) const;
    rte_mempool* pool() const { return pool_; }
    EngineContext& context() { return *ctx_; }
    const EngineConfig& config() const { return cfg_; }
    /// Every route installed from the scenario and its route file (not the
    /// on-link and local routes the addresses add).
    const std::vector<RouteConfig>& routes() const { return routes_; }
    /// Each port's receive-side scaling, in scenario order.
    const std::vector<PortRss>& port_rss() const { return port_rss_; }
    /// What a plugin stage did wrong on the packet path ("" when nothing):
    /// an edge it did not declare. The caller stops the run (engine/plugins/).
    std::string stage_fault() const;

  private:
    void teardown();
    void setup_pool();
    void setup_port(const PortConfig& pc);
    void setup_routes();
    /// engine.ila: the ILA table or NPTv6 prefixes, and (late, nptv6) the
    /// routes whose next hop is "translate".
    void setup_translation();
    rte_hash* make_hash(const char* what, uint32_t key_len) const;
    /// One eth_rx instance per polled receive queue (the node itself when
    /// there is one queue, or none), dealt to the workers in turn.
    void setup_rx_nodes();
    void setup_graph();
    struct Worker;
    /// One graph walk, timed or not (engine.timing), traced (always timed) or not.
    template <bool kTraced>
    void walk_loop(Worker& w, bool timed, uint64_t now);
    /// A traced walk: whether `node`'s input holds the traced packet
    /// (starting the trace at its entry stage).
    bool trace_input(PacketTrace& tr, const rte_node& node, const rte_mbuf*& traced, uint64_t now,
                     float source_share, uint16_t source) const;
    /// rte_graph_walk, or the engine's own walk with the per-call histograms
    /// on; true when the walk was timed.
    bool walk_once(Worker& w);
    /// Stage name of graph node `id`: "eth_rx PORT/QUEUE" for a receive
    /// queue's instance when there are several.
    std::string stage_name(rte_node_t id) const;
    WorkerSnapshot worker_snapshot(const Worker& w, bool histograms) const;
    StageSnapshot stage_snapshot(const Worker& w, rte_node_t id, bool histograms) const;
    /// Every application's poll, timed as one call when per-call histograms
    /// are on and the walk before it was timed.
    void poll_apps(bool timed = true);
    static int worker_main(void* arg);
    /// Waits until worker `w` has returned from worker_main.
    static void wait_for(Worker& w);
    /// Control thread of engine.ifaddr_churn_per_s: adds an address and
    /// removes the oldest it added, at the set rate, until stop().
    void churn_addresses();
    /// After the worker stopped: what waits for a neighbour is dropped as
    /// nd_pending_at_stop, so that both ledgers balance.
    void drop_held_packets();

    EngineConfig cfg_;
    unsigned serial_;
    std::unique_ptr<EngineContext> ctx_;
    rte_mempool* pool_ = nullptr;
    std::vector<std::string> port_names_;  ///< by DPDK port id, "" when not ours
    std::vector<std::string> removable_devices_;
    std::vector<PortRss> port_rss_;
    std::vector<RingPort> ring_ports_;
    std::vector<std::string> ring_port_names_;
    std::vector<std::unique_ptr<App>> apps_;
    std::unique_ptr<PluginStages> plugins_;  ///< EngineConfig::stages
    std::thread churn_;
    std::atomic<uint64_t> churned_{0};  ///< address list changes the churn thread made
    std::vector<RouteConfig> routes_;
    /// A worker lcore's graph; its counters are its WorkerContext.
    struct Worker {
        Engine* engine = nullptr;
        WorkerContext* ctx = nullptr;
        rte_graph_t graph_id = RTE_GRAPH_ID_INVALID;
        rte_graph* graph = nullptr;
        std::vector<rte_node_t> rx_nodes;  ///< its eth_rx instances
        /// Its stages in path order: its eth_rx instances, then the shared
        /// stages its graph holds.
        std::vector<rte_node_t> stages;
        unsigned lcore = 0;
        std::atomic<int> tid{0};
        /// Set (release) as the worker's last act: stop() acquires it after
        /// rte_eal_wait_lcore, whose own wait is the EAL's and orders
        /// nothing a reader of this code (or ThreadSanitizer) can see.
        std::atomic<bool> done{false};
    };
    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<rte_node_t> rx_nodes_;  ///< every eth_rx instance, in queue order
    /// Stages in path order: every eth_rx instance, then the shared stages.
    std::vector<rte_node_t> stage_order_;
    /// By graph node id (the last row: the neighbour table): each
    /// EdgeCounters slot's destination name, empty for an unused slot.
    std::vector<std::vector<std::string>> edge_names_;
    std::vector<bool> is_rx_node_;  ///< by graph node id
    std::atomic<bool> stop_{false};
    TraceRing traces_;                               ///< written by worker 0 only
    std::atomic<uint64_t> trace_period_{0};          ///< TSC cycles between traces; 0: off
    uint64_t interrupted_limit_ = UINT64_MAX;
    std::atomic<uint64_t> timing_period_{1};         ///< engine.timing: one walk in N timed
    double timestamp_cycles_ = 0;                    ///< what one timestamp costs (measured)
    uint64_t trace_next_ = 0;                        ///< worker-0-owned: TSC of the next trace
    rte_node_t trace_entry_ = RTE_NODE_ID_INVALID;   ///< traces start at this stage
    rte_node_t trace_drop_ = RTE_NODE_ID_INVALID;    ///< outcome: dropped (and why)
    rte_node_t trace_tx_ = RTE_NODE_ID_INVALID;      ///< outcome: forwarded or replied
    bool running_ = false;
};

}  // namespace pathscope::engine
