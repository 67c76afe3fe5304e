#include "engine/engine.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <chrono>
#include <map>
#include <stdexcept>
#include <thread>

#include "engine/apps.h"
#include "engine/eal.h"
#include "engine/nodes/node.h"
#include "engine/tsan.h"
#include "engine/plugins/plugin_stages.h"
#include "engine/route_gen.h"
#include "engine/routes.h"
#include "engine/socket.h"

namespace pathscope::engine {

namespace {

unsigned next_serial() {
    static std::atomic<unsigned> serial{0};
    return serial++;
}

}  // namespace

/// What one rte_rdtsc() costs in a stream of them, in TSC cycles: the
/// fastest of 16 rounds of 256 back-to-back reads (the same read the walk
/// takes at every node boundary).
static double measure_timestamp_cycles() {
    uint64_t best = UINT64_MAX;
    volatile uint64_t sink = 0;
    for (int round = 0; round < 16; ++round) {
        const uint64_t t0 = rte_rdtsc();
        uint64_t x = 0;
        for (int i = 0; i < 256; ++i) x ^= rte_rdtsc();
        const uint64_t t1 = rte_rdtsc();
        sink = x;
        best = std::min(best, t1 - t0);
    }
    (void)sink;
    return static_cast<double>(best) / 257.0;
}

Engine::Engine(const EngineConfig& cfg) : cfg_(cfg), serial_(next_serial()) {
    if (!eal_ready())
        throw std::runtime_error("the DPDK EAL is not initialised (call eal_init first)");
    if (cfg_.burst == 0 || cfg_.burst > RTE_GRAPH_BURST_SIZE)
        throw std::runtime_error("engine.burst must be between 1 and " +
                                 std::to_string(RTE_GRAPH_BURST_SIZE));
    if (cfg_.workers == 0 || cfg_.workers > kMaxWorkers)
        throw std::runtime_error("engine.workers must be between 1 and " +
                                 std::to_string(kMaxWorkers));
    register_all_nodes();
    register_packet_meta();
    // Plugin stages are registered now, before the per-node counter rows are sized.
    plugins_ = std::make_unique<PluginStages>(cfg_.stages);
    // engine.max_simd_bitwidth, or DPDK's own choice (stored with the run:
    // rte_fib6's AVX-512 lookup needs 512).
    if (cfg_.max_simd_bitwidth && rte_vect_set_max_simd_bitwidth(cfg_.max_simd_bitwidth) != 0)
        throw std::runtime_error("engine.max_simd_bitwidth = " +
                                 std::to_string(cfg_.max_simd_bitwidth) +
                                 ": DPDK refused it (the EAL's --force-max-simd-bitwidth fixes "
                                 "the width; give one or the other)");
    if (cfg_.timing_period == 0)
        throw std::runtime_error("engine.timing must time one walk in N, N at least 1");
    timing_period_ = cfg_.timing_period;
    timestamp_cycles_ = measure_timestamp_cycles();
    ctx_ = std::make_unique<EngineContext>();
    ctx_->burst = cfg_.burst;
    ctx_->tsc_hz = rte_get_tsc_hz();
    if (cfg_.interrupted_call_us > 0)
        interrupted_limit_ = static_cast<uint64_t>(static_cast<double>(ctx_->tsc_hz) *
                                                   cfg_.interrupted_call_us / 1e6);
    ctx_->icmp_per_s = cfg_.icmp_errors_per_s;
    ctx_->route_cache = cfg_.route_cache;
    ctx_->latency_histograms = cfg_.call_histograms;
    ctx_->txq_hash = cfg_.txq_hash;
    ctx_->send_accounting = cfg_.send_accounting;
    ctx_->early_demux = cfg_.early_demux;
    ctx_->extra_work_cycles = cfg_.extra_work_cycles;
    ctx_->ila = cfg_.ila;
    ctx_->worker_count = cfg_.workers;
    ctx_->ports.resize(RTE_MAX_ETHPORTS);
    ctx_->ifaddrs = std::make_unique<InterfaceAddresses>(cfg_.ifaddr_sync, RTE_MAX_ETHPORTS);
    port_names_.resize(RTE_MAX_ETHPORTS);
    try {
        setup_pool();
        for (const auto& pc : cfg_.ports) setup_port(pc);
        setup_rx_nodes();
        setup_routes();
        setup_translation();
        for (const auto& ac : cfg_.apps) apps_.push_back(make_app(*ctx_, ac));
        if (cfg_.source.enabled) apps_.push_back(make_source(*ctx_, cfg_));
        plugins_->start(*ctx_, rx_nodes_);
        setup_graph();
    } catch (...) {
        teardown();
        throw;
    }
}

Engine::~Engine() { teardown(); }

void Engine::teardown() {
    if (running_) stop();
    for (auto& w : workers_)
        if (w->graph_id != RTE_GRAPH_ID_INVALID) rte_graph_destroy(w->graph_id);
    workers_.clear();
    plugins_.reset();  // the graphs are gone: the spliced edges go back
    apps_.clear();
    for (uint16_t id = 0; id < port_names_.size(); ++id) {
        if (port_names_[id].empty()) continue;
        rte_eth_dev_stop(id);
        rte_eth_dev_close(id);
        port_names_[id].clear();
    }
    for (const auto& dev : removable_devices_) rte_eal_hotplug_remove("vdev", dev.c_str());
    removable_devices_.clear();
    for (auto& rp : ring_ports_) {
        for (auto* r : rp.rx) rte_ring_free(r);
        for (auto* r : rp.tx) rte_ring_free(r);
    }
    ring_ports_.clear();
    if (ctx_) {
        // The pending tables free what they hold, before the pool goes.
        for (auto& w : ctx_->workers) w->pending_neighbours.reset();
        ctx_->neighbours.reset();
        if (ctx_->connected) rte_hash_free(ctx_->connected);
        ctx_->ila_table.reset();
        ctx_->connected = nullptr;
    }
    if (pool_) rte_mempool_free(pool_);
    pool_ = nullptr;
}

std::string Engine::stage_fault() const { return plugins_ ? plugins_->fault() : ""; }

std::string Engine::stage_name(rte_node_t id) const {
    return id < is_rx_node_.size() && is_rx_node_[id] ? kEthRx : rte_node_id_to_name(id);
}

void Engine::wait_for(Worker& w) {
    rte_eal_wait_lcore(w.lcore);
    while (!w.done.load(std::memory_order_acquire)) rte_pause();
    w.done.store(false, std::memory_order_relaxed);  // for the next start
}

void Engine::start() {
    if (running_) return;
    std::vector<unsigned> lcores;
    for (unsigned l = rte_get_next_lcore(-1, 1, 0); l < RTE_MAX_LCORE && lcores.size() < workers_.size();
         l = rte_get_next_lcore(l, 1, 0))
        lcores.push_back(l);
    if (lcores.size() < workers_.size())
        throw std::runtime_error(
            "engine.workers = " + std::to_string(workers_.size()) + " needs " +
            std::to_string(workers_.size()) + " EAL worker lcore(s) besides the main one, and the " +
            "EAL has " + std::to_string(rte_lcore_count() - 1) + ": give it more, e.g. -l 0-" +
            std::to_string(workers_.size()) + " (or --lcores to place several on one CPU)");
    stop_ = false;
    for (size_t i = 0; i < workers_.size(); ++i) {
        Worker& w = *workers_[i];
        w.lcore = lcores[i];
        const int rc = rte_eal_remote_launch(worker_main, &w, w.lcore);
        if (rc < 0) {
            stop_ = true;
            for (size_t k = 0; k < i; ++k) wait_for(*workers_[k]);
            throw std::runtime_error("cannot launch worker " + std::to_string(i) + " on lcore " +
                                     std::to_string(w.lcore) + ": " + rte_strerror(-rc));
        }
    }
    running_ = true;
    if (cfg_.ifaddr_churn_per_s > 0) churn_ = std::thread([this] { churn_addresses(); });
}

void Engine::stop() {
    if (running_) {
        stop_ = true;
        if (churn_.joinable()) churn_.join();
        for (auto& w : workers_) {
            wait_for(*w);
            w->tid = 0;
        }
        running_ = false;
    }
    drop_held_packets();
}

void Engine::drop_held_packets() {
    // The workers have stopped: each one's held packets are counted on its
    // own ledger, where they were received or sent.
    for (auto& w : ctx_->workers) {
        if (!w->pending_neighbours) continue;  // set-up failed before it was made
        PathCounters& counted = w->counters;
        w->pending_neighbours->drain_held([&](rte_mbuf* m) {
            const PacketMeta* pm = meta(m);
            const unsigned r = static_cast<unsigned>(DropReason::nd_pending_at_stop);
            (pm->fate == Fate::local ? counted.send_drops : counted.drops)[r].add();
            release_if_sent(m);
            rte_pktmbuf_free(m);
        });
    }
}

void Engine::churn_addresses() {
    // Addresses fd00:c4::N/64 on the first port with addresses: at most four
    // live at a time, so each step is one add and (from the fifth) one remove.
    uint16_t port = RTE_MAX_ETHPORTS;
    for (uint16_t id = 0; id < port_names_.size() && port == RTE_MAX_ETHPORTS; ++id)
        if (!port_names_[id].empty() && !ctx_->ports[id].addresses.empty()) port = id;
    if (port == RTE_MAX_ETHPORTS) return;
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(1.0 / cfg_.ifaddr_churn_per_s));
    auto address = [](uint32_t n) {
        Prefix6 p{{0xfd, 0x00, 0x00, 0xc4}, 64};
        p.addr[12] = static_cast<uint8_t>(n >> 24), p.addr[13] = static_cast<uint8_t>(n >> 16);
        p.addr[14] = static_cast<uint8_t>(n >> 8), p.addr[15] = static_cast<uint8_t>(n | 1);
        return p;
    };
    uint32_t next = 0;
    auto due = std::chrono::steady_clock::now();
    while (!stop_.load(std::memory_order_relaxed)) {
        if (ctx_->ifaddrs->add(port, address(next))) churned_.fetch_add(1);
        if (next >= 4 && ctx_->ifaddrs->remove(port, address(next - 4).addr)) churned_.fetch_add(1);
        ++next;
        // It sleeps between changes, always: a change that took longer than
        // the period (a slow grace period) moves the schedule on rather than
        // leaving a debt that later changes would pay back to back.
        due += period;
        if (const auto now = std::chrono::steady_clock::now(); due < now) due = now + period;
        std::this_thread::sleep_until(due);
    }
}

bool Engine::inject(const std::string& port, const uint8_t* data, size_t len, unsigned queue) {
    const RingPort& rp = ring_port(port);
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    if (!m) return false;
    if (len > rte_pktmbuf_tailroom(m)) {
        rte_pktmbuf_free(m);
        throw std::runtime_error("a " + std::to_string(len) + "-byte frame does not fit an mbuf");
    }
    memcpy(rte_pktmbuf_mtod(m, void*), data, len);
    m->data_len = static_cast<uint16_t>(len);
    m->pkt_len = static_cast<uint32_t>(len);
    tsan_handed_over(m);  // to the worker, through the PMD's ring
    if (rte_ring_enqueue(rp.rx.at(queue), m) != 0) {
        rte_pktmbuf_free(m);
        return false;
    }
    return true;
}

size_t Engine::max_frame() const {
    return rte_pktmbuf_data_room_size(pool_) - RTE_PKTMBUF_HEADROOM;
}

const RingPort& Engine::ring_port(const std::string& name) const {
    for (size_t i = 0; i < ring_port_names_.size(); ++i)
        if (ring_port_names_[i] == name) return ring_ports_[i];
    throw std::runtime_error("no ring port named '" + name + "'");
}

uint16_t Engine::port_id(const std::string& name) const {
    for (uint16_t id = 0; id < port_names_.size(); ++id)
        if (port_names_[id] == name) return id;
    throw std::runtime_error("no port named '" + name + "'");
}

}  // namespace pathscope::engine
