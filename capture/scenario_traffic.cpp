// The scenario's traffic sections: address translation ([[ila_map]],
// [[nptv6]]), the engine's applications ([[app]]), and what drives them
// ([workload], [source], [socket]).
#include <fmt/format.h>

#include <optional>

#include "capture/scenario_reader.h"
#include "engine/routes.h"

namespace pathscope::capture {

using namespace engine;

namespace {

/// 64 address bits as ILA writes them: four groups of 1-4 hex digits,
/// "2001:db8:ff:0" (a locator or SIR prefix) or "0:0:0:1" (an identifier).
std::optional<Half64> parse_half64(const std::string& s) {
    Half64 out{};
    size_t pos = 0;
    for (unsigned g = 0; g < 4; ++g) {
        const size_t end = g < 3 ? s.find(':', pos) : s.size();
        if (end == std::string::npos || end == pos || end - pos > 4) return std::nullopt;
        unsigned v = 0;
        for (size_t i = pos; i < end; ++i) {
            const char c = s[i];
            const int d = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
            if (d < 0) return std::nullopt;
            v = v * 16 + static_cast<unsigned>(d);
        }
        out[2 * g] = static_cast<uint8_t>(v >> 8);
        out[2 * g + 1] = static_cast<uint8_t>(v);
        pos = end + 1;
    }
    return out;
}

}  // namespace

/// One [[ila_map]] entry: identifier, locator, SIR prefix, the locator it matches.
void ScenarioReader::ila_map(const toml::table* t) {
    Section s(*t, name, "ila_map");
    IlaMapConfig e;
    constexpr const char* kHalf = "64 bits as four hex groups, like \"2001:db8:ff:0\"";
    auto half = [&](const char* k, Half64& out) {
        s.get_parsed(k, out, parse_half64, kHalf);
        if (!t->get(k))
            s.fail_here(std::string("every [[ila_map]] needs '") + k + "' (" + kHalf + ")");
    };
    half("identifier", e.identifier);
    half("locator", e.locator);
    half("sir_prefix", e.sir_prefix);
    std::string match;
    s.get("match_locator", match);
    if (match == "*") {
        e.match_any = true;
    } else if (t->get("match_locator")) {
        auto m = parse_half64(match);
        if (!m)
            s.fail(*t->get("match_locator"), "'ila_map.match_locator' = \"" + match +
                                                 "\" is not " + kHalf +
                                                 " or \"*\" (any locator)");
        e.match = *m;
    } else {
        e.match = e.locator;
    }
    s.get("port", e.port);
    s.finish();
    if (!e.port.empty()) known_port(s, *t, e.port, "port");
    if (e.locator == e.sir_prefix)
        s.fail_here("[[ila_map]] locator and sir_prefix are the same: nothing to translate");
    cfg.ila_map.push_back(e);
}

/// One [[nptv6]] prefix pair (RFC 6296).
void ScenarioReader::nptv6(const toml::table* t) {
    Section s(*t, name, "nptv6");
    Nptv6Config p;
    s.get_parsed("external", p.external, parse_prefix6, "an IPv6 prefix like 2001:db8:ff::/48");
    s.get_parsed("internal", p.internal, parse_prefix6, "an IPv6 prefix like fd00:5::/48");
    s.finish();
    if (!t->get("external") || !t->get("internal"))
        s.fail_here("every [[nptv6]] needs 'external' and 'internal' prefixes");
    if (p.external.len != p.internal.len || p.external.len == 0 || p.external.len > 64)
        s.fail(*t->get("internal"),
               "[[nptv6]] external and internal prefixes must have the same length, 1 to 64 "
               "(RFC 6296 keeps the interface identifier): " +
                   format_prefix6(p.external) + " and " + format_prefix6(p.internal));
    cfg.nptv6.push_back(p);
}

/// engine.ila's mode has the tables it translates with.
void ScenarioReader::check_ila() const {
    auto ila_error = [&](const std::string& msg) {
        throw ScenarioError(where(*root.at_path("engine.ila").node(), name) + ": " + msg);
    };
    if ((cfg.ila == IlaMode::late || cfg.ila == IlaMode::early) && cfg.ila_map.empty())
        ila_error("engine.ila = \"" + std::string(cfg.ila == IlaMode::late ? "late" : "early") +
                  "\" needs [[ila_map]] entries (identifier, locator, sir_prefix)");
    if (cfg.ila == IlaMode::nptv6 && cfg.nptv6.empty())
        ila_error("engine.ila = \"nptv6\" needs [[nptv6]] prefix pairs (external, internal)");
}

/// One [[app]]: a sink or an echo server on a UDP port.
void ScenarioReader::app(const toml::table* t) {
    Section s(*t, name, "app");
    AppConfig a;
    std::string kind = "sink";
    s.get("kind", kind);
    s.get("port", a.port);
    s.get("connected", a.connected);
    s.get("max_clients", a.max_clients);
    s.finish();
    if (kind == "sink")
        a.kind = AppKind::sink;
    else if (kind == "echo")
        a.kind = AppKind::echo;
    else
        s.fail(*t->get("kind"), "'app.kind' = \"" + kind + "\": expected \"sink\" or \"echo\"");
    if (!t->get("port")) s.fail_here("every [[app]] needs a UDP port of 1 or more");
    if (a.kind != AppKind::echo && (t->get("connected") || t->get("max_clients")))
        s.fail(t->get("connected") ? *t->get("connected") : *t->get("max_clients"),
               "'app.connected' and 'app.max_clients' are settings of an echo app "
               "(kind = \"echo\"), not of a " +
                   kind + " app");
    cfg.apps.push_back(a);
}

/// [workload]: a generator, a pcap replay, request/response peers, a tap or none.
void ScenarioReader::workload(const toml::table* t) {
    Section s(*t, name, "workload");
    std::string kind = "none";
    s.get("kind", kind);
    auto& g = cfg.workload.generator;
    auto& p = cfg.workload.pcap;
    std::string port;
    s.get("port", port);
    s.get("flows", g.flows);
    s.get("frame_size", g.frame_size);
    s.get("sink_percent", g.sink_percent);
    s.get("echo_percent", g.echo_percent);
    s.get("malformed_percent", g.malformed_percent);
    s.get("packets", g.packets);
    s.get_parsed("source_prefix", g.source_prefix, parse_prefix6, "an IPv6 prefix");
    s.get("file", p.file);
    s.get("infinite", p.infinite);
    auto& rr = cfg.workload.rr;
    const toml::table* rr_table = s.table("rr");
    if (rr_table) {
        Section r(*rr_table, name, "workload.rr");
        r.get("streams", rr.streams);
        r.get_parsed("server", rr.server, parse_ip6, "an IPv6 address");
        r.get("port", rr.server_port);
        r.get("payload", rr.payload);
        r.get("timeout", rr.timeout_s);
        r.finish();
    }
    s.finish();
    if (kind == "generator")
        cfg.workload.kind = WorkloadKind::generator;
    else if (kind == "pcap")
        cfg.workload.kind = WorkloadKind::pcap;
    else if (kind == "tap")
        cfg.workload.kind = WorkloadKind::tap;
    else if (kind == "rr")
        cfg.workload.kind = WorkloadKind::rr;
    else if (kind == "none")
        cfg.workload.kind = WorkloadKind::none;
    else
        s.fail(*t->get("kind"),
               "'workload.kind' = \"" + kind + "\": expected generator, pcap, rr, tap or none");
    if (g.sink_percent + g.echo_percent + g.malformed_percent > 100) {
        // Blame the values where they were set (a --set, or the file's line).
        std::string parts;
        const toml::node* blamed = nullptr;
        for (const char* k : {"sink_percent", "echo_percent", "malformed_percent"}) {
            const toml::node* n = t->get(k);
            if (!n) continue;
            parts += fmt::format("{}{} = {} ({})", parts.empty() ? "" : ", ", k,
                                 setting_number_text(n->value_or(0.0)), s.where(*n));
            if (!blamed || s.where(*n).rfind("--set ", 0) == 0) blamed = n;
        }
        s.fail(blamed ? *blamed : static_cast<const toml::node&>(*t),
               fmt::format("workload percentages add up to {}%, more than 100: {}",
                           setting_number_text(g.sink_percent + g.echo_percent + g.malformed_percent),
                           parts));
    }
    if (cfg.workload.kind != WorkloadKind::pcap)
        for (const char* k : {"file", "infinite"})
            if (const toml::node* n = t->get(k))
                s.fail(*n, "'workload." + std::string(k) +
                               "' is a setting of a pcap replay (workload.kind = \"pcap\"), "
                               "not of kind = \"" + kind + "\": set the kind, or leave it out");
    if (cfg.workload.kind == WorkloadKind::generator ||
        cfg.workload.kind == WorkloadKind::pcap) {
        if (port.empty()) s.fail_here("'workload.port' must name the port the workload feeds");
        known_port(s, *t, port, "port");
    }
    if (cfg.workload.kind == WorkloadKind::pcap && p.file.empty())
        s.fail_here("a pcap workload needs 'workload.file'");
    if (rr_table && cfg.workload.kind != WorkloadKind::rr)
        s.fail(*rr_table,
               "[workload.rr] configures the request/response workload: set "
               "workload.kind = \"rr\", or remove it");
    if (cfg.workload.kind == WorkloadKind::rr) {
        if (port.empty())
            s.fail_here("'workload.port' must name the ring port the rr peers are behind");
        known_port(s, *t, port, "port");
        for (const auto& pc : cfg.ports)
            if (pc.name == port && pc.device != "ring")
                s.fail(*t->get("port"), "'workload.port' = \"" + port +
                                            "\": the rr peers need a port with device = "
                                            "\"ring\", not \"" +
                                            pc.device + "\"");
        if (!rr_table || !rr_table->get("server"))
            s.fail_here(
                "an rr workload needs 'workload.rr.server' (the address its "
                "requests go to, like \"2001:db8:1::1\")");
        if (!t->get("source_prefix"))
            s.fail_here(
                "an rr workload needs 'workload.source_prefix' (the peers' "
                "addresses; route it back through workload.port)");
        bool served = false;
        for (const auto& a : cfg.apps)
            served |= a.kind == AppKind::echo && a.port == rr.server_port;
        if (!served)
            s.fail(rr_table->get("port") ? *rr_table->get("port") : *rr_table,
                   "'workload.rr.port' = " + std::to_string(rr.server_port) +
                       ": no [[app]] with kind = \"echo\" listens on that UDP port (add "
                       "one, with connected = true for a socket per client)");
    }
    g.port = port;
    p.port = port;
    rr.port = port;
    rr.source_prefix = g.source_prefix;
    p.file = resolve(base_dir, p.file);
}

/// [source]: the engine's own sending application.
void ScenarioReader::source(const toml::table* t) {
    Section s(*t, name, "source");
    SourceConfig& src = cfg.source;
    src.enabled = true;
    s.get_parsed("destination", src.destination, parse_ip6, "an IPv6 address");
    s.get("destinations", src.destinations);
    s.get("port", src.dst_port);
    s.get("local_port", src.src_port);
    s.get("payload", src.payload);
    s.get("rate", src.rate_pps);
    s.get("batch", src.batch);
    s.finish();
    if (!t->get("destination")) s.fail_here("[source] needs 'destination' (an IPv6 address)");
}

/// [socket]: how [source]'s socket is bound, connected and marked.
void ScenarioReader::socket(const toml::table* t) {
    Section s(*t, name, "socket");
    SourceConfig& src = cfg.source;
    s.get("bind", src.bind);
    s.get("connect", src.connect);
    s.get_parsed("address", src.bind_address, parse_ip6, "an IPv6 address");
    s.get("hop_limit", src.hop_limit);
    s.get("traffic_class", src.traffic_class);
    s.get("flow_label", src.flow_label);
    s.finish();
    if (!cfg.source.enabled) s.fail_here("[socket] configures the [source] application: add one");
    if (src.connect && src.destinations > 1024)
        s.fail_here("a connected source opens a socket per destination: at most 1024");
}

}  // namespace pathscope::capture
