// The scenario's engine sections: [eal], [capture], [engine], and the
// tables the engine is built from: [[port]], [[nexthop]], [[route]],
// [[rule]] and [routes].
#include <charconv>

#include "capture/scenario_reader.h"
#include "engine/eal.h"
#include "engine/routes.h"

namespace pathscope::capture {

using namespace engine;

namespace {

/// engine.timing: "every" (1) or "1/N" (one walk in N timed, N 2 to 1024).
uint32_t parse_timing(const toml::node* n, const std::string& file) {
    const std::string allowed =
        "must be \"every\" (time every graph walk) or \"1/N\" with N from 2 to 1024 (time one "
        "walk in N: the timing then costs the worker 1/N of itself)";
    if (!n->is_string()) throw ScenarioError(where(*n, file) + ": 'engine.timing' " + allowed);
    const std::string v = n->as_string()->get();
    if (v == "every") return 1;
    if (v.rfind("1/", 0) == 0) {
        uint32_t every = 0;
        const auto r = std::from_chars(v.data() + 2, v.data() + v.size(), every);
        if (r.ec == std::errc() && r.ptr == v.data() + v.size() && every >= 2 && every <= 1024)
            return every;
    }
    throw ScenarioError(where(*n, file) + ": 'engine.timing' = \"" + v + "\": " + allowed);
}

}  // namespace

void ScenarioReader::read() {
    if (const auto* t = top.table("eal")) eal(t);
    if (const auto* t = top.table("capture")) capture_settings(t);
    if (const auto* t = top.table("engine")) engine(t);
    for (const auto* t : top.tables("port")) port(t);
    for (const auto* t : top.tables("nexthop")) nexthop(t);
    for (const auto* t : top.tables("route")) route(t);
    for (const auto* t : top.tables("rule")) rule(t);
    if (const auto* t = top.table("routes")) routes_file(t);
    for (const auto* t : top.tables("ila_map")) ila_map(t);
    for (const auto* t : top.tables("nptv6")) nptv6(t);
    check_ila();
    for (const auto* t : top.tables("app")) app(t);
    if (const auto* t = top.table("workload")) workload(t);
    if (const auto* t = top.table("source")) source(t);
    if (const auto* t = top.table("socket")) socket(t);
}

void ScenarioReader::known_port(const Section& s, const toml::table& t, const std::string& port,
                                const char* k) const {
    for (const auto& p : cfg.ports)
        if (p.name == port) return;
    s.fail(t.get(k) ? *t.get(k) : static_cast<const toml::node&>(t),
           "'" + s.key(k) + "' names port '" + port + "', which no [[port]] defines");
}

/// [eal]: the EAL's arguments, and hugepages instead of --no-huge.
void ScenarioReader::eal(const toml::table* t) {
    Section s(*t, name, "eal");
    s.get_strings("args", cfg.eal_args);
    bool hugepages = false;  // reserved hugepages instead of --no-huge's 4 KiB pages
    s.get("hugepages", hugepages);
    if (hugepages) cfg.eal_args = engine::with_hugepages(cfg.eal_args);
    s.finish();
}

/// [capture]: trials (a number or "auto"), intervals, perf events and samples, disturbance.
void ScenarioReader::capture_settings(const toml::table* t) {
    Section s(*t, name, "capture");
    CaptureSettings& c = scenario.capture;
    if (const toml::node* n = t->get("trials"); n && n->is_string()) {
        s.know("trials");
        if (n->as_string()->get() != "auto")
            s.fail(*n, "'capture.trials' = \"" + n->as_string()->get() +
                           "\": expected a number of trials (1 to 1000) or \"auto\" (add "
                           "blocks until the experiment's verdicts are decided)");
        c.auto_trials = true;
    } else {
        s.get("trials", c.trials);
    }
    s.get("max_trials", c.max_trials);
    s.get("target_half_width", c.target_half_width);
    if (c.auto_trials) c.trials = c.max_trials;
    s.get("interval", c.interval_s);
    s.get_strings("perf_events", c.perf_events);
    s.get("sample_event", c.sample_event);
    s.get("sample_hz", c.sample_hz);
    s.get("traces_per_s", c.traces_per_s);
    double max_disturbance_percent = c.max_disturbance * 100;
    s.get("max_disturbance", max_disturbance_percent);
    c.max_disturbance = max_disturbance_percent / 100;
    s.get("retry_disturbed", c.retry_disturbed);
    s.get("perf_data", scenario.kernel.perf_data);
    s.finish();
    scenario.kernel.perf_data = resolve(base_dir, scenario.kernel.perf_data);
}

/// [engine]: the stages' switches and the engine's sizes.
void ScenarioReader::engine(const toml::table* t) {
    Section s(*t, name, "engine");
    s.get("burst", cfg.burst);
    s.get("duration", cfg.duration_s);
    s.get("mbufs", cfg.mbufs);
    s.get("icmp_errors_per_s", cfg.icmp_errors_per_s);
    s.get("call_histograms", cfg.call_histograms);
    s.get("workers", cfg.workers);
    auto choice = [&](const char* k, auto& out,
                      std::initializer_list<std::pair<const char*, std::decay_t<decltype(out)>>>
                          options) {
        s.know(k);
        const toml::node* n = t->get(k);
        if (!n) return;
        std::string list;
        bool on_off = false;
        for (const auto& [text, value] : options) {
            list += (list.empty() ? "" : " or ") + std::string("\"") + text + "\"";
            on_off = on_off || std::string_view(text) == "on";
        }
        // A switch of "on" and "off" takes true and false too, as socket.bind does.
        std::string v;
        if (n->is_string())
            v = n->as_string()->get();
        else if (n->is_boolean() && on_off)
            v = n->as_boolean()->get() ? "on" : "off";
        else
            s.fail(*n, "'engine." + std::string(k) + "' must be " + list +
                           (on_off ? " (or true or false)" : ""));
        for (const auto& [text, value] : options)
            if (v == text) return void(out = value);
        s.fail(*n, "'engine." + std::string(k) + "' = \"" + v + "\": expected " + list);
    };
    choice("route_cache", cfg.route_cache, {{"on", true}, {"off", false}});
    choice("socket_send", cfg.socket_send,
           {{"single", SocketSend::single}, {"burst", SocketSend::burst}});
    choice("ifaddr_sync", cfg.ifaddr_sync,
           {{"rcu", IfaddrSync::rcu}, {"rwlock", IfaddrSync::rwlock}});
    choice("txq_hash", cfg.txq_hash, {{"flow", TxqHash::flow}, {"none", TxqHash::none}});
    choice("send_accounting", cfg.send_accounting,
           {{"local", SendAccounting::local}, {"atomic", SendAccounting::atomic}});
    choice("fib_rules_fast_path", cfg.fib_rules_fast_path, {{"on", true}, {"off", false}});
    choice("early_demux", cfg.early_demux, {{"on", true}, {"off", false}});
    choice("ila", cfg.ila,
           {{"off", IlaMode::off},
            {"late", IlaMode::late},
            {"early", IlaMode::early},
            {"nptv6", IlaMode::nptv6}});
    s.get("ifaddr_churn", cfg.ifaddr_churn_per_s);
    s.get("nd_hold", cfg.nd_hold);
    s.get("nd_probes", cfg.nd_probes);
    s.get("nd_retrans", cfg.nd_retrans_s);
    s.get("extra_work", cfg.extra_work_cycles);
    s.get("interrupted_call_us", cfg.interrupted_call_us);
    s.know("timing");  // known whether given or not: an unknown key's list names them
    s.know("max_simd_bitwidth");
    if (const toml::node* n = t->get("timing")) {
        cfg.timing_period = parse_timing(n, name);
    }
    if (const toml::node* n = t->get("max_simd_bitwidth")) {
        const auto* i = n->as_integer();
        const bool ok = (n->is_string() && n->as_string()->get() == "dpdk") ||
                        (i && (i->get() == 128 || i->get() == 256 || i->get() == 512));
        if (!ok)
            s.fail(*n, "'engine.max_simd_bitwidth' must be 128, 256, 512 or \"dpdk\" (DPDK's "
                       "own choice, the default)");
        cfg.max_simd_bitwidth = i ? static_cast<uint16_t>(i->get()) : 0;
    }
    s.finish();
}

/// One [[port]]: its device, queues, MAC and addresses.
void ScenarioReader::port(const toml::table* t) {
    Section s(*t, name, "port");
    PortConfig p;
    s.get("name", p.name);
    if (p.name.empty()) s.fail_here("every [[port]] needs a name");
    s.owned_by("port '" + p.name + "'");
    s.get("device", p.device);
    s.get("rx_queues", p.rx_queues);
    s.get("tx_queues", p.tx_queues);
    s.get("poll", p.poll);
    s.get("promiscuous", p.promiscuous);
    s.get_parsed("mac", p.mac, parse_mac, "a MAC address like 02:00:00:00:00:01");
    std::vector<std::string> addrs;
    s.get_strings("addresses", addrs);
    for (const auto& a : addrs) {
        auto pf = parse_prefix6(a);
        if (!pf)
            s.fail(*t->get("addresses"),
                   "'port.addresses' entry \"" + a + "\" is not an IPv6 address/len");
        // Keep the host bits: this is an address with its on-link prefix length.
        Prefix6 full{*parse_ip6(a.substr(0, a.find('/'))), pf->len};
        p.addresses.push_back(full);
    }
    s.finish();
    // A polled port with no receive queue would run and measure nothing.
    if (p.poll && p.rx_queues == 0)
        s.fail(t->get("rx_queues") ? *t->get("rx_queues") : static_cast<const toml::node&>(*t),
               "'port.rx_queues' is 0, and the port is polled: give it 1 or more queues, or poll = false for a "
                   "port that only sends");
    for (const auto& q : cfg.ports)
        if (q.name == p.name) s.fail_here("port name '" + p.name + "' is used twice");
    cfg.ports.push_back(std::move(p));
}

/// One [[nexthop]]: an id, the port it leaves by and its MAC.
void ScenarioReader::nexthop(const toml::table* t) {
    Section s(*t, name, "nexthop");
    NexthopConfig n;
    s.get("id", n.id);
    s.get("port", n.port);
    s.get_parsed("mac", n.mac, parse_mac, "a MAC address like 02:00:00:00:00:fe");
    s.finish();
    if (!t->get("id")) s.fail_here("every [[nexthop]] needs an id of 1 or more");
    known_port(s, *t, n.port, "port");
    cfg.nexthops.push_back(n);
}

/// One [[route]]: a prefix, its next hop and table.
void ScenarioReader::route(const toml::table* t) {
    Section s(*t, name, "route");
    RouteConfig r;
    s.get_parsed("prefix", r.prefix, parse_prefix6, "an IPv6 prefix like 2001:db8::/32");
    s.get("nexthop", r.nexthop);
    s.get("table", r.table);
    s.finish();
    cfg.routes.push_back(r);
}

/// One [[rule]]: a policy rule (ip -6 rule): selectors and a table or an action.
void ScenarioReader::rule(const toml::table* t) {
    Section s(*t, name, "rule");
    RuleConfig r;
    s.get("priority", r.priority);
    if (!t->get("priority"))
        s.fail_here("every [[rule]] needs a priority (0 to 4294967295; lower is tried first)");
    s.get_parsed("from", r.from, parse_prefix6, "an IPv6 prefix like 2001:db8::/32");
    s.get_parsed("to", r.to, parse_prefix6, "an IPv6 prefix like 2001:db8::/32");
    r.has_from = t->get("from") != nullptr;
    r.has_to = t->get("to") != nullptr;
    s.get("iif", r.iif);
    s.get("table", r.table);
    std::string action;
    s.get("action", action);
    s.finish();
    if (action == "unreachable")
        r.action = RuleAction::unreachable;
    else if (action == "prohibit")
        r.action = RuleAction::prohibit;
    else if (action == "blackhole")
        r.action = RuleAction::blackhole;
    else if (!action.empty())
        s.fail(*t->get("action"), "'rule.action' = \"" + action +
                                      "\": expected \"unreachable\", \"prohibit\" or "
                                      "\"blackhole\" (or no action and a table)");
    const bool table = t->get("table") != nullptr;
    if (table == !action.empty())
        s.fail_here("a [[rule]] needs either 'table' (the table to look up) or 'action' "
                    "(unreachable, prohibit or blackhole), not " +
                    std::string(table ? "both" : "neither"));
    if (!r.iif.empty() && r.iif != "lo") known_port(s, *t, r.iif, "iif");
    cfg.rules.push_back(r);
}

/// [routes]: a route file or generated routes, all to one next hop.
void ScenarioReader::routes_file(const toml::table* t) {
    Section s(*t, name, "routes");
    s.get("file", cfg.routes_file);
    s.get("nexthop", cfg.routes_file_nexthop);
    s.get("generate", cfg.routes_generate);
    s.get("seed", cfg.routes_seed);
    s.finish();
    if ((!cfg.routes_file.empty() || cfg.routes_generate) && cfg.routes_file_nexthop == 0)
        s.fail_here("[routes] needs 'nexthop' (the next hop id its routes go to)");
    cfg.routes_file = resolve(base_dir, cfg.routes_file);
}

}  // namespace pathscope::capture
