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

std::runtime_error port_error(const PortConfig& pc, const std::string& what, int rc) {
    return std::runtime_error("port '" + pc.name + "' (" + pc.device + "): " + what + ": " +
                              rte_strerror(rc < 0 ? -rc : rc));
}

/// Receive-side scaling for a port with several receive queues, as
/// examples/l3fwd asks for it: the IP, UDP and TCP hash types the device
/// offers, so that a NIC spreads flows over the queues (and so the workers)
/// instead of delivering everything on queue 0. Returns what was set, for
/// the run's facts; `warn` is set when a real device cannot spread.
PortRss rss_setting(uint16_t id, const PortConfig& pc, bool virtual_device, rte_eth_conf& conf) {
    PortRss r{pc.name, "off: one receive queue", false};
    if (pc.rx_queues <= 1) return r;
    rte_eth_dev_info info{};
    const uint64_t offered = rte_eth_dev_info_get(id, &info) == 0 ? info.flow_type_rss_offloads : 0;
    const uint64_t hf = offered & (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
    if (hf == 0) {
        r.setting = "unavailable: the device offers no RSS, so its " +
                    std::to_string(pc.rx_queues) +
                    " receive queues get only what its sender puts on each" +
                    (virtual_device ? "" : " (a NIC delivers everything on queue 0)");
        r.unbalanced = !virtual_device;
        return r;
    }
    conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
    conf.rx_adv_conf.rss_conf.rss_key = nullptr;  // the driver's default key
    conf.rx_adv_conf.rss_conf.rss_hf = hf;
    auto hex = [](uint64_t v) {
        char b[19] = "0x";
        return std::string(b, std::to_chars(b + 2, b + sizeof b, v, 16).ptr);
    };
    r.setting = "on over " + std::to_string(pc.rx_queues) + " receive queues: hash types " +
                hex(hf) + " (the device offers " + hex(offered) + ")";
    return r;
}

constexpr uint16_t kRingSize = 4096;
constexpr uint16_t kRxDesc = 1024;
constexpr uint16_t kTxDesc = 1024;

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

void Engine::setup_pool() {
    const std::string name = "pool" + std::to_string(serial_);
    pool_ = rte_pktmbuf_pool_create_by_ops(name.c_str(), cfg_.mbufs, 256, kSocketMetaSize,
                                           RTE_MBUF_DEFAULT_BUF_SIZE,
                                           static_cast<int>(rte_socket_id()), mbuf_pool_ops());
    if (!pool_)
        throw std::runtime_error("cannot create a pool of " + std::to_string(cfg_.mbufs) +
                                 " mbufs: " + rte_strerror(rte_errno) +
                                 " (give the EAL more memory with -m)");
    ctx_->pool = pool_;
}

void Engine::setup_port(const PortConfig& pc) {
    uint16_t id = 0;
    RingPort ring;
    if (pc.device == "ring") {
        const std::string base =
            "r" + std::to_string(serial_) + "_" + std::to_string(ring_ports_.size());
        for (uint16_t q = 0; q < std::max<uint16_t>(pc.rx_queues, 1); ++q)
            ring.rx.push_back(rte_ring_create((base + "rx" + std::to_string(q)).c_str(), kRingSize,
                                              SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ));
        for (uint16_t q = 0; q < std::max<uint16_t>(pc.tx_queues, 1); ++q)
            ring.tx.push_back(rte_ring_create((base + "tx" + std::to_string(q)).c_str(), kRingSize,
                                              SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ));
        for (auto* r : ring.rx)
            if (!r) throw port_error(pc, "cannot create its rings", rte_errno);
        for (auto* r : ring.tx)
            if (!r) throw port_error(pc, "cannot create its rings", rte_errno);
        const int rc = rte_eth_from_rings(base.c_str(), ring.rx.data(),
                                          static_cast<unsigned>(ring.rx.size()), ring.tx.data(),
                                          static_cast<unsigned>(ring.tx.size()), rte_socket_id());
        if (rc < 0) throw port_error(pc, "cannot create the net_ring port", rte_errno);
        id = static_cast<uint16_t>(rc);
        removable_devices_.push_back("net_ring_" + base);
        ring.port_id = id;
    } else {
        const std::string devname = pc.device.substr(0, pc.device.find(','));
        const bool vdev = devname.rfind("net_", 0) == 0;
        int rc = vdev ? rte_eal_hotplug_add("vdev", devname.c_str(),
                                            pc.device.size() > devname.size()
                                                ? pc.device.substr(devname.size() + 1).c_str()
                                                : "")
                      : 0;
        if (rc < 0)
            throw port_error(pc,
                             "cannot open the device (is the driver name right? net_null, "
                             "net_pcap, net_tap, net_af_packet, ... and are its arguments?)",
                             rc);
        if (vdev) removable_devices_.push_back(devname);
        if (rte_eth_dev_get_port_by_name(devname.c_str(), &id) != 0)
            throw port_error(
                pc, "no DPDK port named " + devname + " (is the device bound to a DPDK driver?)",
                ENODEV);
    }
    port_names_[id] = pc.name;

    rte_eth_conf conf{};
    const bool virtual_device = pc.device == "ring" || pc.device.rfind("net_", 0) == 0;
    port_rss_.push_back(rss_setting(id, pc, virtual_device, conf));
    int rc = rte_eth_dev_configure(id, pc.rx_queues, pc.tx_queues, &conf);
    if (rc < 0)
        throw port_error(pc,
                         "cannot configure " + std::to_string(pc.rx_queues) + " rx and " +
                             std::to_string(pc.tx_queues) + " tx queues",
                         rc);
    const int socket = rte_eth_dev_socket_id(id) < 0 ? 0 : rte_eth_dev_socket_id(id);
    for (uint16_t q = 0; q < pc.rx_queues; ++q)
        if ((rc = rte_eth_rx_queue_setup(id, q, kRxDesc, socket, nullptr, pool_)) < 0)
            throw port_error(pc, "cannot set up rx queue " + std::to_string(q), rc);
    for (uint16_t q = 0; q < pc.tx_queues; ++q)
        if ((rc = rte_eth_tx_queue_setup(id, q, kTxDesc, socket, nullptr)) < 0)
            throw port_error(pc, "cannot set up tx queue " + std::to_string(q), rc);
    static const MacAddr zero_mac{};
    rte_ether_addr mac;
    rte_eth_macaddr_get(id, &mac);
    bool promiscuous = pc.promiscuous;
    if (pc.mac != zero_mac) {
        memcpy(mac.addr_bytes, pc.mac.data(), 6);
        // Some devices (net_ring) cannot change their address: then the
        // engine uses the configured one in software and has the device pass
        // every frame up, so eth_input still sees what is addressed to it.
        if (rte_eth_dev_default_mac_addr_set(id, &mac) != 0) promiscuous = true;
    }
    if ((rc = rte_eth_dev_start(id)) < 0) throw port_error(pc, "cannot start", rc);
    if (promiscuous) rte_eth_promiscuous_enable(id);

    PortRuntime& rt = ctx_->ports[id];
    rt.name = pc.name;
    rt.port_id = id;
    rt.nb_rx = pc.rx_queues;
    rt.nb_tx = pc.tx_queues;
    rt.tx_per_worker = static_cast<uint16_t>(pc.tx_queues / cfg_.workers);
    ctx_->max_tx_per_worker = std::max(ctx_->max_tx_per_worker, rt.tx_per_worker);
    if (pc.tx_queues > 0) ++ctx_->tx_ports;
    if (pc.tx_queues > 0 && rt.tx_per_worker == 0)
        throw std::runtime_error("port '" + pc.name + "' has " + std::to_string(pc.tx_queues) +
                                 " tx queue(s), fewer than engine.workers = " +
                                 std::to_string(cfg_.workers) +
                                 ": each worker sends on queues of its own; set tx_queues = " +
                                 std::to_string(cfg_.workers) + " (or more) on it");
    rt.poll = pc.poll && pc.rx_queues > 0;
    rt.promiscuous = pc.promiscuous;
    rt.mac = mac;
    rt.rxq = std::make_unique<RxQueueCounters[]>(std::max<uint16_t>(pc.rx_queues, 1));
    rt.txq = std::make_unique<TxQueueCounters[]>(std::max<uint16_t>(pc.tx_queues, 1));
    ctx_->ifaddrs->use_port(id);
    for (const auto& a : pc.addresses) {
        rt.addresses.push_back(a.addr);
        ctx_->local_addresses.push_back(a.addr);
        ctx_->ifaddrs->add(id, a);
    }
    if (rt.poll) ctx_->polled_ports.push_back(id);
    if (pc.device == "ring") {
        ring_ports_.push_back(std::move(ring));
        ring_port_names_.push_back(pc.name);
    }
}

rte_hash* Engine::make_hash(const char* what, uint32_t key_len) const {
    rte_hash_parameters hp{};
    const std::string name = what + std::to_string(serial_);
    hp.name = name.c_str();
    hp.entries = 4096;
    hp.key_len = key_len;
    hp.socket_id = static_cast<int>(rte_socket_id());
    // Every worker looks up while one thread adds (the applications' worker
    // opens sockets at run time): lock-free readers, as DPDK's RW_CONCURRENCY_LF gives.
    hp.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF;
    rte_hash* h = rte_hash_create(&hp);
    if (!h)
        throw std::runtime_error(std::string("cannot create the ") + what +
                                 " table: " + rte_strerror(rte_errno));
    return h;
}

void Engine::setup_routes() {
    EngineContext& ctx = *ctx_;
    // Indices below kNexthopFirstRoute are outcomes (none, local, the rule drops).
    ctx.nexthops.assign(kNexthopFirstRoute, Nexthop{});
    ctx.nexthops[kNexthopLocal].kind = NexthopKind::local;
    ctx.nexthops[kNexthopTranslate].kind = NexthopKind::translate;
    std::map<uint32_t, uint32_t> by_user_id;
    for (const auto& nc : cfg_.nexthops) {
        Nexthop nh;
        nh.kind = NexthopKind::remote;
        nh.port = port_id(nc.port);
        memcpy(nh.mac.addr_bytes, nc.mac.data(), 6);
        if (by_user_id.count(nc.id))
            throw std::runtime_error("next hop " + std::to_string(nc.id) + " is defined twice");
        by_user_id[nc.id] = static_cast<uint32_t>(ctx.nexthops.size());
        ctx.nexthops.push_back(nh);
    }
    std::vector<RouteConfig>& routes = routes_;
    routes = cfg_.routes;
    if (!cfg_.routes_file.empty()) {
        auto file = read_route_file(cfg_.routes_file, cfg_.routes_file_nexthop);
        routes.insert(routes.end(), file.begin(), file.end());
    }
    if (cfg_.routes_generate) {
        if (cfg_.routes_file_nexthop == 0)
            throw std::runtime_error("[routes] generate needs a nexthop");
        for (const Prefix6& p : generate_routes(cfg_.routes_generate, cfg_.routes_seed))
            routes.push_back({p, cfg_.routes_file_nexthop});
    }

    ctx.neighbours = std::make_unique<NeighbourCache>("nd" + std::to_string(serial_), 4096);
    ctx.connected = make_hash("conn", sizeof(ConnKey));

    // Tables as Linux fills them: our addresses in local, on-link prefixes
    // and configured routes in main unless a route names a table.
    std::map<uint32_t, TableRoutes> tables;
    tables[kTableMain];  // always there, even empty
    std::vector<std::pair<Prefix6, uint32_t>> local;
    for (const auto& pc : cfg_.ports) {
        for (const auto& a : pc.addresses) {
            Nexthop connected;
            connected.kind = NexthopKind::onlink;
            connected.port = port_id(pc.name);
            const uint32_t idx = static_cast<uint32_t>(ctx.nexthops.size());
            ctx.nexthops.push_back(connected);
            Prefix6 net = *parse_prefix6(format_ip6(a.addr) + "/" + std::to_string(a.len));
            if (a.len < 128) tables[kTableMain].routes.push_back({net, idx});
            local.push_back({Prefix6{a.addr, 128}, kNexthopLocal});
        }
    }
    for (const auto& r : routes) {
        auto it = by_user_id.find(r.nexthop);
        if (it == by_user_id.end())
            throw std::runtime_error("route " + format_prefix6(r.prefix) + " names next hop " +
                                     std::to_string(r.nexthop) + ", which no [[nexthop]] defines");
        if (r.table == kTableLocal)
            local.push_back({r.prefix, it->second});
        else
            tables[r.table].routes.push_back({r.prefix, it->second});
    }
    auto& local_table = tables[kTableLocal].routes;
    local_table = local;
    // The fast path's single lookup is Linux's local-then-main lookup: main
    // holds a copy of every local route, added last so that the local one
    // wins over an equal main route as it does in Linux. On the rules walk
    // the copies are never reached first: the local rule (priority 0) is
    // tried before any other and catches those destinations.
    auto& main_table = tables[kTableMain].routes;
    main_table.insert(main_table.end(), local.begin(), local.end());
    ctx.fib.build("fib" + std::to_string(serial_), tables,
                  static_cast<uint32_t>(ctx.nexthops.size()));

    std::vector<FibRules::Rule> rules;
    for (const auto& rc : cfg_.rules) {
        FibRules::Rule r;
        r.priority = rc.priority;
        if (rc.has_from) r.from_len = rc.from.len, memcpy(r.from, rc.from.addr.data(), 16);
        if (rc.has_to) r.to_len = rc.to.len, memcpy(r.to, rc.to.addr.data(), 16);
        r.iif = kIifAny;
        if (rc.iif == "lo") {
            r.iif = kIifLocal;
        } else if (!rc.iif.empty()) {
            const auto id = std::find(port_names_.begin(), port_names_.end(), rc.iif);
            if (id == port_names_.end())
                throw std::runtime_error("rule " + std::to_string(rc.priority) + ": iif '" +
                                         rc.iif + "' is no port (name a [[port]], or \"lo\" for "
                                         "datagrams we send)");
            r.iif = static_cast<uint16_t>(id - port_names_.begin());
        }
        r.action = rc.action;
        r.table_id = rc.table;
        rules.push_back(r);
    }
    ctx.fib.set_rules(rules, cfg_.fib_rules_fast_path);
}

void Engine::setup_translation() {
    EngineContext& ctx = *ctx_;
    const IlaMode mode = cfg_.ila;
    if (mode == IlaMode::off) return;
    auto route_to_translate = [&](const uint8_t* prefix, uint8_t len, const std::string& what) {
        // Into the main table, where the fast path and the main rule find it.
        const int rc = rte_fib6_add(ctx.fib.main(), prefix, len, kNexthopTranslate);
        if (rc < 0)
            throw std::runtime_error("cannot add the translate route of " + what + ": " +
                                     rte_strerror(-rc));
    };
    if (mode == IlaMode::nptv6) {
        if (cfg_.nptv6.empty())
            throw std::runtime_error("engine.ila = \"nptv6\" needs [[nptv6]] prefix pairs");
        for (const auto& p : cfg_.nptv6) {
            if (p.external.len != p.internal.len || p.external.len > 64 || p.external.len == 0)
                throw std::runtime_error("[[nptv6]] " + format_prefix6(p.external) + " -> " +
                                         format_prefix6(p.internal) +
                                         ": the prefixes must have the same length, 1 to 64");
            ctx.nptv6.add(p.external, p.internal);
            // Received external destinations are translated after the lookup.
            route_to_translate(p.external.addr.data(), p.external.len,
                               "[[nptv6]] " + format_prefix6(p.external));
        }
        return;
    }
    if (cfg_.ila_map.empty())
        throw std::runtime_error("engine.ila = \"" +
                                 std::string(mode == IlaMode::late ? "late" : "early") +
                                 "\" needs [[ila_map]] entries");
    ctx.ila_table = std::make_unique<IlaTable>("ila" + std::to_string(serial_),
                                               static_cast<uint32_t>(2 * cfg_.ila_map.size()));
    for (size_t i = 0; i < cfg_.ila_map.size(); ++i) {
        const IlaMapConfig& e = cfg_.ila_map[i];
        const std::string what = "[[ila_map]] entry " + std::to_string(i + 1);
        const uint16_t port = e.port.empty() ? IlaTable::kAnyPort : port_id(e.port);
        if (!ctx.ila_table->add_rx(e.identifier.data(), e.match_any ? nullptr : e.match.data(),
                                   port, e.sir_prefix.data()))
            throw std::runtime_error(what +
                                     " maps the same identifier, locator and port as an "
                                     "earlier entry");
        // Several receive entries (per port, per locator) may share one send mapping.
        ctx.ila_table->add_tx(e.identifier.data(), e.sir_prefix.data(), e.locator.data());
        if (mode == IlaMode::late) {
            // The locator's /64 routes to translate: the lightweight tunnel.
            Ip6Addr prefix{};
            memcpy(prefix.data(), (e.match_any ? e.locator : e.match).data(), 8);
            route_to_translate(prefix.data(), 64, what);
        }
    }
}

void Engine::setup_rx_nodes() {
    std::vector<RxQueueRef> queues;
    for (const uint16_t port : ctx_->polled_ports)
        for (uint16_t q = 0; q < ctx_->ports[port].nb_rx; ++q) queues.push_back({port, q});
    if (cfg_.workers > 1 && queues.size() < cfg_.workers)
        throw std::runtime_error(
            "engine.workers = " + std::to_string(cfg_.workers) + " but the polled ports have " +
            std::to_string(queues.size()) +
            " receive queue(s): each worker polls at least one; raise rx_queues on a port");
    const rte_node_t rx = rte_node_from_name(kEthRx);
    // One queue (or none: a send-only engine keeps an idle eth_rx) is polled
    // by the node itself, whose stage keeps the name "eth_rx"; several each
    // get a clone, made once per process and (port id, queue).
    std::vector<rte_node_t> ids;
    if (queues.size() <= 1) {
        ids.push_back(rx);
    } else {
        for (const RxQueueRef& q : queues) {
            const std::string suffix = "p" + std::to_string(q.port) + "q" + std::to_string(q.queue);
            rte_node_t id = rte_node_from_name((std::string(kEthRx) + "-" + suffix).c_str());
            if (id == RTE_NODE_ID_INVALID) id = rte_node_clone(rx, suffix.c_str());
            if (id == RTE_NODE_ID_INVALID)
                throw std::runtime_error("cannot make the eth_rx stage of port " +
                                         port_names_[q.port] + " queue " +
                                         std::to_string(q.queue) + ": " + rte_strerror(rte_errno));
            ids.push_back(id);
        }
    }
    const unsigned rows = rte_node_max_count();
    ctx_->rx_queue_of.assign(rows, RxQueueRef{});
    is_rx_node_.assign(rows, false);
    for (size_t i = 0; i < ids.size(); ++i) {
        if (i < queues.size()) ctx_->rx_queue_of[ids[i]] = queues[i];
        is_rx_node_[ids[i]] = true;
    }
    rx_nodes_ = ids;
    for (unsigned i = 0; i < cfg_.workers; ++i) {
        ctx_->workers.push_back(std::make_unique<WorkerContext>(*ctx_, i, rows));
        ctx_->workers.back()->icmp_per_s =
            (cfg_.icmp_errors_per_s + cfg_.workers - 1) / cfg_.workers;
        ctx_->workers.back()->pending_neighbours = std::make_unique<PendingNeighbours>(
            "nd" + std::to_string(serial_) + "w" + std::to_string(i), 4096, cfg_.nd_hold,
            cfg_.nd_probes,
            static_cast<uint64_t>(cfg_.nd_retrans_s * static_cast<double>(ctx_->tsc_hz)));
        auto w = std::make_unique<Worker>();
        w->engine = this;
        w->ctx = ctx_->workers.back().get();
        workers_.push_back(std::move(w));
    }
    for (size_t i = 0; i < ids.size(); ++i) workers_[i % cfg_.workers]->rx_nodes.push_back(ids[i]);
}

void Engine::setup_graph() {
    const auto& names = register_all_nodes();
    // The stages every worker may hold, in path order, after the eth_rx instances.
    stage_order_ = rx_nodes_;
    for (const char* n : names)
        if (std::string_view(n) != kEthRx) stage_order_.push_back(rte_node_from_name(n));
    plugins_->place(stage_order_);
    for (auto& w : workers_) {
        // A worker's graph: its eth_rx instances, its neighbour timer (each
        // worker sends on or drops what it held), and on worker 0 the socket
        // send stage; the graph library adds every stage they lead to.
        std::vector<std::string> wanted;
        for (const rte_node_t id : w->rx_nodes) wanted.push_back(rte_node_id_to_name(id));
        wanted.push_back(kNdTimer);
        if (w->ctx->index == 0) wanted.push_back(kUdp6Output);
        std::vector<const char*> patterns;
        for (const auto& n : wanted) patterns.push_back(n.c_str());
        rte_graph_param prm{};
        prm.socket_id = static_cast<int>(rte_socket_id());
        prm.nb_node_patterns = static_cast<uint16_t>(patterns.size());
        prm.node_patterns = patterns.data();
        const std::string name =
            "pathscope" + std::to_string(serial_) + "w" + std::to_string(w->ctx->index);
        building_worker() = w->ctx;
        w->graph_id = rte_graph_create(name.c_str(), &prm);
        building_worker() = nullptr;
        if (w->graph_id == RTE_GRAPH_ID_INVALID)
            throw std::runtime_error("cannot create the stage graph of worker " +
                                     std::to_string(w->ctx->index) + ": " +
                                     rte_strerror(rte_errno));
        w->graph = rte_graph_lookup(name.c_str());
        for (const rte_node_t id : stage_order_)
            if (rte_graph_node_get(w->graph_id, id)) w->stages.push_back(id);
        // A node spliced in by other means than [[stage]] (a benchmark's
        // comparison stage) gets its row too, last: no stage runs unseen.
        for (rte_node_t id = 0; id < rte_node_max_count(); ++id)
            if (rte_graph_node_get(w->graph_id, id) &&
                std::find(stage_order_.begin(), stage_order_.end(), id) == stage_order_.end()) {
                stage_order_.push_back(id);
                w->stages.push_back(id);
            }
    }
    // Each row's slot names: the node's next edges, then where it keeps packets.
    edge_names_.assign(rte_node_max_count() + 1, {});
    for (const rte_node_t id : stage_order_) {
        std::vector<std::string>& slots = edge_names_[id];
        const rte_node* node = nullptr;
        for (const auto& w : workers_)
            if (!node) node = rte_graph_node_get(w->graph_id, id);
        if (!node) continue;  // in no worker's graph
        for (rte_edge_t e = 0; e < node->nb_edges; ++e) slots.emplace_back(node->nodes[e]->name);
        slots.resize(EdgeCounters::kKept);
        const std::string name = rte_node_id_to_name(id);
        slots.push_back(name == kNdResolve ? kNeighbourTable
                        : name == kEthTx   ? kWireSink
                                           : kDeliverSink);
    }
    edge_names_.back() = {kTxqSelect, kDrop, kNdResolve};
    edge_names_.back().resize(EdgeCounters::kEdges + 1);
    trace_entry_ = rte_node_from_name(kEthInput);
    trace_drop_ = rte_node_from_name(kDrop);
    trace_tx_ = rte_node_from_name(kEthTx);
}

std::string Engine::stage_fault() const { return plugins_ ? plugins_->fault() : ""; }

std::string Engine::stage_name(rte_node_t id) const {
    return id < is_rx_node_.size() && is_rx_node_[id] ? kEthRx : rte_node_id_to_name(id);
}

// rte_graph_walk with the engine's own timing: one timestamp at every node
// boundary (the end of one node call is the start of the next, so a walk of
// N node calls takes N + 1 timestamps, not the 2N of a pair a call), a
// per-call cycle histogram of busy calls, and the calls that handled
// nothing (source stages polling empty queues) counted apart, so that idle
// polling is never charged to packets. The bookkeeping after a call (the
// histogram, the counters: about 5 cycles) is charged to the next call.
//
// Untimed (engine.timing = "1/N", the walks between timed ones): no
// timestamp; each call is counted exactly and its cycles estimated from its
// stage's timed calls (UntimedCounters). A timed walk among untimed ones
// finds colder caches (its bookkeeping lines, touched one walk in N): on an
// AMD EPYC VM the estimate reads within 1% of timing every walk at N = 4
// and 1.5-3% above it at N = 16 (tests/engine/timing_test.cpp). Prefetching
// those lines before a timed walk did not close the gap, so it is not done.
//
// Traced (worker 0, a few dozen walks a second): the same timed walk,
// following one received packet: the first one eth_input sees, with its
// share of the eth_rx call that brought it in. Every stage whose input
// holds it records the packet's share of that call.
template <bool kTraced>
void Engine::walk_loop(Worker& w, const bool timed, uint64_t now) {
    WorkerContext& wc = *w.ctx;
    rte_graph* graph = w.graph;
    const rte_graph_off_t* cir_start = graph->cir_start;
    const rte_node_t mask = graph->cir_mask;
    uint32_t head = graph->head;
    HistogramRecorder* hist = wc.call_cycles.get();
    IdleCounters* idle = wc.idle.get();
    UntimedCounters* untimed = wc.untimed.get();
    uint32_t handled = 0;
    [[maybe_unused]] PacketTrace* tr = kTraced ? traces_.slot() : nullptr;
    [[maybe_unused]] const rte_mbuf* traced = nullptr;
    [[maybe_unused]] float source_share = 0;  ///< its eth_rx call's cycles per packet
    [[maybe_unused]] uint16_t source = 0;     ///< that eth_rx instance
    const uint64_t interrupted = interrupted_limit_;
    uint64_t stamp = timed ? rte_rdtsc() : 0;
    while (likely(head != graph->tail)) {
        rte_node* node =
            static_cast<rte_node*>(RTE_PTR_ADD(graph, cir_start[static_cast<int32_t>(head++)]));
        void** objs = node->objs;
        const uint16_t n = node->idx;
        [[maybe_unused]] bool holds = false;
        if constexpr (kTraced) {
            if (tr && n) holds = trace_input(*tr, *node, traced, now, source_share, source);
        } else {
            rte_prefetch0(objs);
        }
        const uint16_t rc = node->process(graph, node, objs, n);
        // The graph library's own totals, which snapshots read while the
        // worker runs: stored as our counters are (counters.h).
        store_count(node->total_calls, node->total_calls + 1);
        store_count(node->total_objs, node->total_objs + rc);
        handled += rc;
        if (timed) {
            const uint64_t after = rte_rdtsc();
            const uint64_t cycles = after - stamp;
            stamp = after;
            store_count(node->total_cycles, node->total_cycles + cycles);
            if (unlikely(cycles > interrupted)) {
                // Preempted in the call: counted as an untimed call (the
                // stage's recent cycles per packet), its wall cycles apart.
                wc.walks.interrupted.add();
                wc.walks.interrupted_cycles.add(cycles);
                if (rc)
                    untimed[node->id].untimed_busy(rc);
                else
                    untimed[node->id].untimed_idle();
            } else if (likely(rc)) {
                hist[node->id].record(cycles);
                untimed[node->id].timed_busy(cycles, rc);
            } else {
                idle[node->id].calls.add();
                idle[node->id].cycles.add(cycles);
                untimed[node->id].timed_idle(cycles);
            }
            if constexpr (kTraced) {
                // The first eth_rx instance that brought packets: the traced
                // packet is the first of eth_input's input, which that call's
                // packets head.
                if (!n && rc && !traced && source_share == 0 && is_rx_node_[node->id]) {
                    source_share = static_cast<float>(cycles) / static_cast<float>(rc);
                    source = static_cast<uint16_t>(node->id);
                }
                if (holds && tr->stages < PacketTrace::kMaxStages) {
                    tr->node[tr->stages] = static_cast<uint16_t>(node->id);
                    tr->cycles[tr->stages] = static_cast<float>(cycles) / static_cast<float>(n);
                    tr->stages++;
                }
            }
        } else if (likely(rc)) {
            untimed[node->id].untimed_busy(rc);
        } else {
            untimed[node->id].untimed_idle();
        }
        node->idx = 0;
        head = likely(static_cast<int32_t>(head) > 0) ? head & mask : head;
    }
    graph->tail = 0;
    wc.walks.walks.add();
    if (!handled) wc.walks.idle_walks.add();
    if constexpr (kTraced) {
        if (traced) {  // a walk without packets leaves the trace armed for the next one
            traces_.publish();
            trace_next_ = now + trace_period_.load(std::memory_order_relaxed);
        } else if (!tr) {
            trace_next_ = now + trace_period_.load(std::memory_order_relaxed);  // ring full: skip
        }
    }
}

bool Engine::trace_input(PacketTrace& tr, const rte_node& node, const rte_mbuf*& traced,
                         uint64_t now, float source_share, uint16_t source) const {
    void* const* objs = node.objs;
    const uint16_t n = node.idx;
    if (!traced && node.id == trace_entry_) {
        traced = static_cast<const rte_mbuf*>(objs[0]);
        tr.tsc = now;
        tr.port = meta(traced)->rx_port;  // mbuf->port is unset on ring ports
        tr.wire_len = static_cast<uint16_t>(rte_pktmbuf_pkt_len(traced));
        tr.cap_len = static_cast<uint16_t>(
            std::min<uint32_t>(rte_pktmbuf_data_len(traced), PacketTrace::kMaxBytes));
        std::memcpy(tr.data.data(), rte_pktmbuf_mtod(traced, const void*), tr.cap_len);
        tr.stages = 0;
        tr.outcome = PacketTrace::Outcome::unknown;
        if (source_share > 0) {
            tr.node[0] = source;
            tr.cycles[0] = source_share;
            tr.stages = 1;
        }
    }
    bool holds = false;
    for (uint16_t i = 0; traced && i < n && !holds; ++i) holds = objs[i] == traced;
    // The packet may be freed by this stage: read its fate first.
    if (holds && node.id == trace_drop_) {
        tr.outcome = PacketTrace::Outcome::dropped;
        tr.drop = static_cast<uint16_t>(meta(traced)->drop);
    } else if (holds && node.id == trace_tx_) {
        tr.outcome = meta(traced)->fate == Fate::reply ? PacketTrace::Outcome::replied
                                                       : PacketTrace::Outcome::forwarded;
    }
    return holds;
}

bool Engine::walk_once(Worker& w) {
    if (!cfg_.call_histograms) {
        rte_graph_walk(w.graph);
        return true;
    }
    WorkerContext& wc = *w.ctx;
    if (wc.index == 0) {
        const uint64_t period = trace_period_.load(std::memory_order_relaxed);
        if (unlikely(period != 0)) {
            const uint64_t now = rte_rdtsc();
            if (now >= trace_next_) {
                walk_loop<true>(w, true, now);
                return true;
            }
        }
    }
    const uint64_t every = timing_period_.load(std::memory_order_relaxed);
    const bool timed = every <= 1 || wc.walk_number++ % every == 0;
    walk_loop<false>(w, timed, 0);
    return timed;
}

void Engine::set_timing_period(uint32_t every) {
    if (every == 0) throw std::runtime_error("engine.timing must time one walk in N, N at least 1");
    timing_period_ = every;
}

void Engine::set_trace_rate(uint32_t per_second) {
    if (per_second && !cfg_.call_histograms)
        throw std::runtime_error(
            "packet traces need engine.call_histograms = true (they ride on the engine's own "
            "graph walk)");
    trace_period_ = per_second ? ctx_->tsc_hz / per_second : 0;
}

std::string Engine::node_name(uint16_t node) const {
    if (!rte_node_id_to_name(node)) return "node" + std::to_string(node);
    return stage_name(node);
}

int Engine::worker_tid(unsigned w) const {
    const Worker& wk = *workers_.at(w);
    while (running_ && wk.tid.load() == 0) std::this_thread::yield();
    return wk.tid.load();
}

uint64_t Engine::poll() {
    uint64_t before = 0;
    for (const auto& w : ctx_->workers) before += w->counters.received.get();
    bool timed = true;
    for (auto& w : workers_) {
        ctx_->ifaddrs->online(w->ctx->index);  // the caller is the reader while it walks
        const bool t = walk_once(*w);
        if (w->ctx->index == 0) timed = t;
        ctx_->ifaddrs->offline(w->ctx->index);
    }
    ctx_->ifaddrs->online(0);
    poll_apps(timed);
    ctx_->ifaddrs->offline(0);
    uint64_t after = 0;
    for (const auto& w : ctx_->workers) after += w->counters.received.get();
    return after - before;
}

void Engine::poll_apps(bool timed) {
    if (!cfg_.call_histograms) {
        for (auto& app : apps_) app->poll();
        return;
    }
    if (apps_.empty()) return;
    WorkerContext& wc = ctx_->app_worker();
    AppPollCounters& polls = wc.app_polls;
    if (!timed) {  // engine.timing = "1/N": counted, its cycles estimated
        unsigned handled = 0;
        for (auto& app : apps_) handled += app->poll();
        if (handled) {
            polls.untimed.untimed_busy(handled);
            polls.datagrams.add(handled);
        } else {
            polls.untimed.untimed_idle();
        }
        return;
    }
    const uint64_t start = rte_rdtsc();
    unsigned handled = 0;
    for (auto& app : apps_) handled += app->poll();
    const uint64_t cycles = rte_rdtsc() - start;
    if (unlikely(cycles > interrupted_limit_)) {  // preempted: as in walk_loop
        wc.walks.interrupted.add();
        wc.walks.interrupted_cycles.add(cycles);
        if (handled) {
            polls.untimed.untimed_busy(handled);
            polls.datagrams.add(handled);
        } else {
            polls.untimed.untimed_idle();
        }
    } else if (handled) {
        polls.busy.record(cycles);
        polls.datagrams.add(handled);
        polls.untimed.timed_busy(cycles, handled);
    } else {
        polls.idle.calls.add();
        polls.idle.cycles.add(cycles);
        polls.untimed.timed_idle(cycles);
    }
}

void Engine::run_until_idle(unsigned idle_polls) {
    for (unsigned idle = 0; idle < idle_polls;) idle = poll() ? 0 : idle + 1;
}

int Engine::worker_main(void* arg) {
    auto& w = *static_cast<Worker*>(arg);
    Engine* self = w.engine;
    w.tid = static_cast<int>(rte_sys_gettid());
    const unsigned me = w.ctx->index;
    const bool apps = me == 0;  // the applications run on worker 0
    const InterfaceAddresses& ifaddrs = *self->ctx_->ifaddrs;
    const bool rcu = ifaddrs.sync() == IfaddrSync::rcu;
    ifaddrs.online(me);
    while (!self->stop_.load(std::memory_order_relaxed)) {
        const bool timed = self->walk_once(w);
        if (apps) self->poll_apps(timed);
        if (rcu) ifaddrs.quiescent(me);  // no address list reference survives a walk
    }
    // What the applications queued in their last poll is still in the socket
    // send rings: one more walk sends it, so that sends = sent + send drops.
    if (apps) self->walk_once(w);
    ifaddrs.offline(me);
    w.done.store(true, std::memory_order_release);
    return 0;
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

namespace {

/// Adds `st` to the stage of its name in `stages` (appended when new):
/// eth_rx instances sum into one "eth_rx", and workers into the engine.
void add_stage(std::vector<StageSnapshot>& stages, const StageSnapshot& st) {
    for (StageSnapshot& sum : stages) {
        if (sum.name != st.name) continue;
        sum.calls += st.calls;
        sum.packets += st.packets;
        sum.cycles += st.cycles;
        sum.idle_calls += st.idle_calls;
        sum.idle_cycles += st.idle_cycles;
        sum.cycles_per_call.merge(st.cycles_per_call);
        return;
    }
    stages.push_back(st);
}

void add_edge(std::vector<EdgeSnapshot>& edges, const EdgeSnapshot& e) {
    for (EdgeSnapshot& sum : edges)
        if (sum.from == e.from && sum.to == e.to) return void(sum.packets += e.packets);
    edges.push_back(e);
}

Ledger read_ledger(const WorkerContext& w) {
    const PathCounters& c = w.counters;
    Ledger l;
    // Read the terminal counters before `received`, so that a snapshot taken
    // while running never shows more outcomes than arrivals: each get() is
    // an acquire of a release store (counters.h), so `received`, counted
    // before any outcome, is at least what the outcomes read imply.
    l.delivered = c.delivered.get();
    l.forwarded = c.forwarded.get();
    l.replied = c.replied.get();
    for (unsigned r = 0; r < kDropSlots; ++r) {
        l.drops[r] = c.drops[r].get();
        l.send_drops[r] = c.send_drops[r].get();
    }
    l.sent = c.sent.get();
    l.sends = w.send_path.sends.get();
    l.received = c.received.get();
    return l;
}

}  // namespace

StageSnapshot Engine::stage_snapshot(const Worker& w, rte_node_t id, bool histograms) const {
    const WorkerContext& wc = *w.ctx;
    const rte_node* n = rte_graph_node_get(w.graph_id, id);
    StageSnapshot st;
    st.name = stage_name(id);
    st.packets = __atomic_load_n(&n->total_objs, __ATOMIC_ACQUIRE);
    st.idle_calls = wc.idle[id].calls.get();
    st.idle_cycles = wc.idle[id].cycles.get();
    if (cfg_.call_histograms) {
        // Our walk counts each call once, as busy (the per-call
        // histogram's count and sum) or idle, from the same rdtsc pair as
        // the graph library's totals. Totals summed from these two
        // only-growing parts never hold less than
        // their idle part, and their deltas never run backwards; the graph
        // library's totals, read at another moment than the idle
        // counters, could (an idle call counted in one and not yet in the
        // other). They agree once the worker has stopped.
        // engine.timing = "1/N": the untimed walks' calls, counted, and
        // their estimated cycles (all zero when every walk is timed).
        const UntimedCounters& u = wc.untimed[id];
        st.idle_calls += u.idle_calls.get();
        st.idle_cycles += u.idle_cycles.get();
        st.calls = wc.call_cycles[id].count() + u.busy_calls.get() + st.idle_calls;
        st.cycles = wc.call_cycles[id].sum() + u.busy_cycles.get() + st.idle_cycles;
    } else {
        st.calls = __atomic_load_n(&n->total_calls, __ATOMIC_ACQUIRE);
        st.cycles = __atomic_load_n(&n->total_cycles, __ATOMIC_ACQUIRE);
    }
    if (histograms) st.cycles_per_call = wc.call_cycles[id].snapshot();
    return st;
}

WorkerSnapshot Engine::worker_snapshot(const Worker& w, bool histograms) const {
    const WorkerContext& wc = *w.ctx;
    WorkerSnapshot s;
    s.worker = wc.index;
    s.lcore = w.lcore;
    s.walks = wc.walks.walks.get();
    s.idle_walks = wc.walks.idle_walks.get();
    s.interrupted_calls = wc.walks.interrupted.get();
    s.interrupted_cycles = wc.walks.interrupted_cycles.get();
    for (const rte_node_t id : w.stages) {
        StageSnapshot st = stage_snapshot(w, id, histograms);
        add_stage(s.stages, st);
    }
    if (wc.index == 0 && !apps_.empty() && cfg_.call_histograms) {
        // The applications, after the graph's stages.
        const AppPollCounters& polls = wc.app_polls;
        StageSnapshot& st = s.stages.emplace_back();
        st.name = kAppsStage;
        st.packets = polls.datagrams.get();
        st.idle_calls = polls.idle.calls.get() + polls.untimed.idle_calls.get();
        st.idle_cycles = polls.idle.cycles.get() + polls.untimed.idle_cycles.get();
        st.calls = polls.busy.count() + polls.untimed.busy_calls.get() + st.idle_calls;
        st.cycles = polls.busy.sum() + polls.untimed.busy_cycles.get() + st.idle_cycles;
        if (histograms) st.cycles_per_call = polls.busy.snapshot();
    }
    for (size_t row = 0; row < edge_names_.size(); ++row) {
        const bool table = row + 1 == edge_names_.size();
        for (unsigned slot = 0; slot < edge_names_[row].size(); ++slot) {
            const uint64_t packets = wc.edges[row].to[slot].get();
            if (packets == 0) continue;
            add_edge(s.edges, {table ? kNeighbourTable : stage_name(static_cast<rte_node_t>(row)),
                               edge_names_[row][slot], packets});
        }
    }
    s.ledger = read_ledger(wc);
    return s;
}

EngineSnapshot Engine::snapshot(bool histograms) const {
    EngineSnapshot s;
    s.tsc_hz = ctx_->tsc_hz;
    s.tsc = rte_rdtsc();
    for (const auto& w : workers_) s.workers.push_back(worker_snapshot(*w, histograms));
    // The engine's figures: the workers' summed, stage by stage (each
    // worker's stages are in path order, and worker 0 has every stage the
    // others have), edge by edge.
    for (const auto& w : s.workers) {
        for (const StageSnapshot& st : w.stages) add_stage(s.stages, st);
        for (const EdgeSnapshot& e : w.edges) add_edge(s.edges, e);
        s.walks += w.walks;
        s.idle_walks += w.idle_walks;
        s.ledger.add(w.ledger);
    }
    for (uint16_t id = 0; id < port_names_.size(); ++id) {
        if (port_names_[id].empty()) continue;
        const PortRuntime& p = ctx_->ports[id];
        auto queue = [&](uint16_t q, bool rx) {
            QueueSnapshot& qs = s.queues.emplace_back();
            qs.port = p.name;
            qs.queue = q;
            qs.rx = rx;
            return &qs;
        };
        for (uint16_t q = 0; p.poll && q < p.nb_rx; ++q) {  // unpolled queues have nothing to show
            QueueSnapshot* qs = queue(q, true);
            const RxQueueCounters& c = p.rxq[q];
            qs->packets = c.packets.get();
            qs->bytes = c.bytes.get();
            qs->bursts = c.bursts.get();
            qs->empty_polls = c.empty_polls.get();
            if (histograms) qs->burst_size = c.burst_size.snapshot();
            for (const auto& w : workers_)
                for (const rte_node_t n : w->rx_nodes) {
                    if (ctx_->rx_queue_of[n].port != id || ctx_->rx_queue_of[n].queue != q) continue;
                    const StageSnapshot st = stage_snapshot(*w, n, false);
                    qs->worker = w->ctx->index;
                    qs->calls = st.calls;
                    qs->cycles = st.cycles;
                    qs->idle_calls = st.idle_calls;
                    qs->idle_cycles = st.idle_cycles;
                }
        }
        for (uint16_t q = 0; q < p.nb_tx; ++q) {
            QueueSnapshot* qs = queue(q, false);
            const TxQueueCounters& c = p.txq[q];
            qs->packets = c.packets.get();
            qs->bytes = c.bytes.get();
            qs->bursts = c.bursts.get();
            qs->full = c.full.get();
            qs->worker = q % cfg_.workers;
        }
    }
    s.send_path.ifaddr_changes = churned_.load();
    for (const auto& w : ctx_->workers) {
        const SendPathCounters& sp = w->send_path;
        s.send_path.route_lookups += sp.route_lookups.get();
        s.send_path.source_selections += sp.source_selections.get();
        s.send_path.solicitations += sp.solicitations.get();
        s.send_path.control_sent += sp.control_sent.get();
        s.send_path.control_drops += sp.control_drops.get();
        for (unsigned e = 0; e < kPathEventCount; ++e) s.events[e] += w->events.v[e].get();
        for (unsigned o = 0; o < kSojournCount; ++o)
            s.sojourn[o].merge(w->latency.sojourn[o].snapshot());
        s.rr_latency.merge(w->latency.rr.snapshot());
    }
    return s;
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
