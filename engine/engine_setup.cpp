// Engine set-up: the mbuf pool, each port (with RSS where it has several
// receive queues), the route, rule and translation tables, and the stage graph
// of every worker.
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
#include "engine/mbuf_pool.h"
#include "engine/nodes/node.h"
#include "engine/tsan.h"
#include "engine/plugins/plugin_stages.h"
#include "engine/route_gen.h"
#include "engine/routes.h"
#include "engine/socket.h"

namespace pathscope::engine {

namespace {

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

void Engine::setup_pool() {
    const std::string name = "pool" + std::to_string(serial_);
    pool_ = create_mbuf_pool(name.c_str(), cfg_.mbufs, 256, kSocketMetaSize,
                             RTE_MBUF_DEFAULT_BUF_SIZE, static_cast<int>(rte_socket_id()),
                             mbuf_pool_ops());
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

}  // namespace pathscope::engine
