#include "capture/scenario.h"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "capture/scenario_reader.h"
#include "capture/scenario_stages.h"
#include "capture/scenario_where.h"
#include "engine/eal.h"
#include "engine/neighbours.h"
#include "engine/routes.h"

namespace pathscope::capture {

using namespace engine;

namespace {

/// Stores a --set value under `key`: TOML if it parses as one, otherwise a
/// bare string. The value is parsed with "--set SETTING" as its source and
/// moved (a move keeps the source), so its errors name the setting.
void set_value(toml::table& t, const std::string& key, const std::string& value,
               const std::string& setting) {
    const std::string origin = "--set " + setting;
    toml::table parsed;
    try {
        parsed = toml::parse("v = " + value, origin);
    } catch (const toml::parse_error&) {
    }
    if (!parsed.get("v")) {
        std::ostringstream quoted;
        quoted << toml::value<std::string>(value);
        parsed = toml::parse("v = " + quoted.str(), origin);
    }
    parsed.get("v")->visit([&](auto&& v) { t.insert_or_assign(key, std::move(v)); });
}

/// How deep a setting's dotted key may go (--set and [matrix]): far deeper
/// than any real setting, and shallow enough that walking it cannot exhaust
/// the stack (the fuzzer made a [matrix] thousands of tables deep).
constexpr size_t kMaxSettingDepth = 16;

/// Applies one "a.b.c=value" to `root`, creating tables on the way.
void apply_override(toml::table& root, const std::string& setting) {
    const auto eq = setting.find('=');
    if (eq == std::string::npos || eq == 0)
        throw ScenarioError("--set " + setting + ": expected KEY=VALUE, like engine.burst=64");
    const std::string key = setting.substr(0, eq);
    std::vector<std::string> parts;
    for (size_t start = 0;;) {
        const auto dot = key.find('.', start);
        parts.push_back(key.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    if (parts.size() > kMaxSettingDepth)
        throw ScenarioError("--set " + key.substr(0, 60) + (key.size() > 60 ? "..." : "") +
                            ": a setting names at most " + std::to_string(kMaxSettingDepth) +
                            " nested keys, like engine.burst or port.wire.device");
    toml::table* t = &root;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        toml::node* n = t->get(parts[i]);
        if (!n) {
            t->insert(parts[i], toml::table{});
            n = t->get(parts[i]);
        }
        if (n->is_array_of_tables()) {
            // [[port]] and friends: the next part picks one, by index or by name.
            auto& arr = *n->as_array();
            const std::string& pick = parts[++i];
            toml::table* found = nullptr;
            const bool index = pick.find_first_not_of("0123456789") == std::string::npos;
            for (size_t k = 0; k < arr.size(); ++k) {
                auto* e = arr[k].as_table();
                const auto* nm = e->get("name");
                if ((index && std::to_string(k) == pick) ||
                    (nm && nm->is_string() && nm->as_string()->get() == pick))
                    found = e;
            }
            if (!found || i + 1 >= parts.size())
                throw ScenarioError("--set " + setting + ": no [[" + parts[i - 1] +
                                    "]] with index or name '" + pick + "'");
            t = found;
            continue;
        }
        if (!n->is_table())
            throw ScenarioError("--set " + setting + ": '" + parts[i] + "' is not a table");
        t = n->as_table();
    }
    set_value(*t, parts.back(), setting.substr(eq + 1), setting);
}

/// Collects the [matrix] table's settings: dotted keys (nested tables, as
/// `socket.bind = [..]` writes them) whose values are non-empty arrays.
void read_matrix(const toml::table& t, const std::string& file, const std::string& prefix,
                 std::vector<MatrixAxis>& out, size_t depth = 1) {
    for (const auto& [k, v] : t) {
        const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
        if (v.is_table()) {
            if (depth >= kMaxSettingDepth)
                throw ScenarioError(where(v, file) + ": '[matrix] " + key.substr(0, 60) +
                                    (key.size() > 60 ? "..." : "") + "' nests deeper than " + std::to_string(kMaxSettingDepth) +
                                    " keys; a matrix setting is a dotted key like socket.bind");
            read_matrix(*v.as_table(), file, key, out, depth + 1);
            continue;
        }
        if (!v.is_array() || v.as_array()->empty())
            throw ScenarioError(where(v, file) + ": '[matrix] " + key +
                                "' must list the values its cells take, like [\"on\", \"off\"]");
        MatrixAxis axis{key, {}};
        for (const auto& e : *v.as_array()) {
            std::ostringstream text;
            if (e.is_string())
                text << '"' << e.as_string()->get() << '"';
            else
                e.visit([&](auto&& x) { text << x; });
            axis.values.push_back(text.str());
        }
        out.push_back(std::move(axis));
    }
}

/// The [sysctl] table as "name", "value" pairs: a key written quoted
/// (sysctl."net.ipv4.udp_early_demux" = 1) and the nested tables a --set or
/// a [matrix] cell makes of the same dotted name read alike.
void read_sysctls(const toml::table& t, const std::string& file, const std::string& prefix,
                  std::vector<std::pair<std::string, std::string>>& out,
                  std::set<std::string>& set_keys, size_t depth = 1) {
    for (const auto& [k, v] : t) {
        const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
        if (v.is_table()) {
            if (depth >= kMaxSettingDepth)
                throw ScenarioError(where(v, file) + ": 'sysctl." + key.substr(0, 60) +
                                    "' nests too deep for a sysctl name");
            read_sysctls(*v.as_table(), file, key, out, set_keys, depth + 1);
            continue;
        }
        std::string value;
        if (v.is_string())
            value = v.as_string()->get();
        else if (v.is_integer())
            value = std::to_string(v.as_integer()->get());
        else if (v.is_boolean())
            value = v.as_boolean()->get() ? "1" : "0";
        else
            throw ScenarioError(where(v, file) + ": 'sysctl." + key +
                                "' must be an integer or a string, as sysctl -w takes it");
        if (const std::string why = sysctl_refusal(key); !why.empty())
            throw ScenarioError(where(v, file) + ": 'sysctl." + key + "': " + why);
        // The same name written quoted in the file and nested by a --set (or
        // a [matrix] cell): the setting wins over the file.
        const bool set = where(v, file).rfind("--set", 0) == 0;
        const auto same = std::find_if(out.begin(), out.end(), [&](const auto& kv) { return kv.first == key; });
        if (same == out.end())
            out.emplace_back(key, value);
        else if (set)
            same->second = value;
        else if (!set_keys.count(key))
            throw ScenarioError(where(v, file) + ": 'sysctl." + key + "' is set twice");
        if (set) set_keys.insert(key);
    }
}

/// [target] and [linux]: a run on the Linux kernel's own path. Engine
/// tables that name ports, devices or the engine's own applications have
/// no meaning there and are refused.
void parse_target(const toml::table& root, const Section& top, const std::string& name,
                  const std::string& base_dir, Scenario& scenario) {
    std::string kind = "engine";
    const toml::table* target = top.table("target");
    if (target) {
        Section s(*target, name, "target");
        s.get("kind", kind);
        s.finish();
        if (kind != "engine" && kind != "linux")
            s.fail(*target->get("kind"), "'target.kind' = \"" + kind +
                                             "\": expected \"engine\" (the embedded DPDK engine, "
                                             "the default) or \"linux\" (the running kernel)");
    }
    const toml::table* linux_table = top.table("linux");
    const toml::table* sysctl_table = top.table("sysctl");
    if (kind != "linux") {
        if (!scenario.kernel.perf_data.empty())
            top.fail(*root.at_path("capture.perf_data").node(),
                     "'capture.perf_data' keeps a Linux run's kernel samples as perf.data: the "
                     "engine's stacks are in the store (pathscope export --format folded)");
        if (linux_table || sysctl_table)
            top.fail(linux_table ? *linux_table : *sysctl_table,
                     std::string("[") + (linux_table ? "linux" : "sysctl") +
                         "] configures a run on the Linux kernel: add [target] kind = \"linux\"");
        return;
    }
    scenario.target = Target::kernel;
    for (const char* engine_only : {"port", "nexthop", "routes", "app", "workload", "ila_map", "nptv6"})
        if (const toml::node* n = root.get(engine_only))
            top.fail(*n, std::string("'") + engine_only +
                             "' configures the engine; a Linux target has no ports or engine "
                             "applications: pathscope makes its own namespaces and veth pair "
                             "([linux] path = \"send\", \"rr\" or \"forward\")");
    KernelConfig& k = scenario.kernel;
    if (linux_table) {
        Section s(*linux_table, name, "linux");
        std::string path = "send";
        s.get("path", path);
        if (path == "send")
            k.path = KernelPath::send;
        else if (path == "rr")
            k.path = KernelPath::rr;
        else if (path == "forward")
            k.path = KernelPath::forward;
        else
            s.fail(*linux_table->get("path"),
                   "'linux.path' = \"" + path +
                       "\": expected \"send\" (sender -> receiver), \"rr\" (request/response) or "
                       "\"forward\" (sender -> router -> receiver)");
        s.get("sender_cpu", k.sender_cpu);
        s.get("receiver_cpu", k.receiver_cpu);
        s.get("sink", k.sink);
        s.get("rules", k.rules);
        s.get("count_lookups", k.count_lookups);
        for (auto [key, out] : {std::pair{"sender_address", &k.sender_address},
                                {"receiver_address", &k.receiver_address},
                                {"router_in_address", &k.router_in_address},
                                {"router_out_address", &k.router_out_address}}) {
            s.get(key, *out);
            if (!parse_prefix6(*out) || out->find('/') == std::string::npos)
                s.fail(linux_table->get(key) ? *linux_table->get(key) : *linux_table,
                       "'linux." + std::string(key) + "' = \"" + *out +
                           "\" is not an IPv6 address/len like 2001:db8:1::1/64");
        }
        s.get("rr_streams", k.rr_streams);
        s.get("rr_payload", k.rr_payload);
        s.get("rr_port", k.rr_port);
        s.get("rr_timeout", k.rr_timeout_s);
        s.get("stage_map", k.stage_map);
        s.get("sender_namespace", k.sender_namespace);
        s.get("receiver_namespace", k.receiver_namespace);
        s.get("router_namespace", k.router_namespace);
        s.finish();
        k.stage_map = resolve(base_dir, k.stage_map);
        const bool given = !k.sender_namespace.empty();
        if (given != !k.receiver_namespace.empty() ||
            (k.path == KernelPath::forward && given != !k.router_namespace.empty()))
            s.fail_here("given namespaces need all of the path's: sender_namespace and "
                        "receiver_namespace (and router_namespace for path = \"forward\"), or none");
    }
    if (sysctl_table) {
        std::set<std::string> set_keys;
        read_sysctls(*sysctl_table, name, "", k.sysctls, set_keys);
        std::sort(k.sysctls.begin(), k.sysctls.end());  // name order, however they were written
        if (k.given_namespaces() && !k.sysctls.empty())
            top.fail(*sysctl_table, "[sysctl] settings apply only in namespaces pathscope makes, "
                                    "not in given ones (linux.sender_namespace)");
    }
    const engine::SourceConfig& src = scenario.engine.source;
    if (k.path != KernelPath::rr && !src.enabled)
        top.fail_here("a Linux target with path = \"" + std::string(kernel_path_name(k.path)) +
                      "\" needs a [source] (destination, port, payload, batch) for its sender");
    if (k.path != KernelPath::rr && src.destinations > 64)
        top.fail(*root.at_path("source.destinations").node(),
                 "'source.destinations' = " + std::to_string(src.destinations) +
                     ": a Linux target gives the receiver each destination as an address: at "
                     "most 64");
}

}  // namespace

std::string describe_variants(const EngineConfig& cfg) {
    std::string s = std::string("route_cache=") + (cfg.route_cache ? "on" : "off") +
                    " socket_send=" + (cfg.socket_send == SocketSend::burst ? "burst" : "single") +
                    " ifaddr_sync=" + (cfg.ifaddr_sync == IfaddrSync::rwlock ? "rwlock" : "rcu") +
                    " txq_hash=" + (cfg.txq_hash == TxqHash::none ? "none" : "flow") +
                    " send_accounting=" +
                    (cfg.send_accounting == SendAccounting::atomic ? "atomic" : "local") +
                    " fib_rules_fast_path=" + (cfg.fib_rules_fast_path ? "on" : "off");
    if (!cfg.rules.empty()) s += " fib_rules=" + std::to_string(cfg.rules.size());
    // The translation variants show only when switched on, so that the
    // variants of runs from before them read as they did.
    if (cfg.early_demux) s += " early_demux=on";
    if (cfg.ila != IlaMode::off)
        s += std::string(" ila=") + (cfg.ila == IlaMode::late    ? "late"
                                     : cfg.ila == IlaMode::early ? "early"
                                                                 : "nptv6");
    if (cfg.ifaddr_churn_per_s > 0) {
        std::ostringstream churn;
        churn << cfg.ifaddr_churn_per_s;
        s += " ifaddr_churn=" + churn.str() + "/s";
    }
    if (cfg.extra_work_cycles > 0) s += " extra_work=" + std::to_string(cfg.extra_work_cycles);
    if (cfg.timing_period > 1) s += " timing=1/" + std::to_string(cfg.timing_period);
    if (cfg.max_simd_bitwidth) s += " max_simd_bitwidth=" + std::to_string(cfg.max_simd_bitwidth);
    if (cfg.source.enabled)
        s += std::string(" socket.bind=") + (cfg.source.bind ? "true" : "false") +
             " socket.connect=" + (cfg.source.connect ? "true" : "false");
    return s;
}

std::string describe_kernel_variants(const Scenario& sc) {
    const KernelConfig& k = sc.kernel;
    const SourceConfig& src = sc.engine.source;
    std::string s = std::string("path=") + kernel_path_name(k.path);
    if (k.path == KernelPath::rr)
        s += fmt::format(" streams={} payload={}", k.rr_streams, k.rr_payload);
    else
        s += fmt::format(" socket.bind={} socket.connect={} payload={} batch={} flows={} sink={}",
                         src.bind, src.connect, src.payload, src.batch, src.destinations, k.sink);
    s += fmt::format(" rules={}", k.rules ? sc.engine.rules.size() : 0);
    for (const auto& [key, value] : k.sysctls) s += " sysctl." + key + "=" + value;
    return s;
}

std::vector<MatrixCell> matrix_cells(const Scenario& sc) {
    std::vector<MatrixCell> cells{{}};
    for (const auto& axis : sc.matrix) {
        std::vector<MatrixCell> next;
        for (const auto& cell : cells)
            for (const auto& v : axis.values) {
                MatrixCell c = cell;
                c.push_back(axis.key + "=" + v);
                next.push_back(std::move(c));
            }
        cells = std::move(next);
    }
    return sc.matrix.empty() ? std::vector<MatrixCell>{} : cells;
}

std::string describe_cell(const MatrixCell& cell, const std::string& sep) {
    std::string out;
    for (std::string s : cell) {
        const auto eq = s.find('=');
        if (eq != std::string::npos && s.size() >= eq + 3 && s[eq + 1] == '"' && s.back() == '"')
            s = s.substr(0, eq + 1) + s.substr(eq + 2, s.size() - eq - 3);
        out += (out.empty() ? "" : sep) + s;
    }
    return out;
}

Scenario parse_scenario(const std::string& text, const std::string& name,
                        const std::string& base_dir, const std::vector<std::string>& overrides) {
    toml::table root;
    try {
        root = toml::parse(text, name);
    } catch (const toml::parse_error& e) {
        throw ScenarioError(name + ":" + std::to_string(e.source().begin.line) + ": " +
                            std::string(e.description()));
    }
    for (const auto& o : overrides) apply_override(root, o);
    Scenario scenario;
    scenario.text = text;
    scenario.overrides = overrides;
    EngineConfig& cfg = scenario.engine;
    Section top(root, name, "");
    for (const char* k : {"eal", "engine", "capture", "port", "nexthop", "route", "routes", "rule",
                          "app", "workload", "source", "socket", "matrix", "ila_map", "nptv6",
                          "target", "linux", "sysctl", "stage"})
        top.know(k);
    top.finish();
    if (const auto* t = top.table("matrix")) read_matrix(*t, name, "", scenario.matrix);
    cfg.stages = read_stages(root, name, base_dir);  // [[stage]]: plugins (capture/scenario_stages.h)

    ScenarioReader(root, top, name, base_dir, scenario).read();
    parse_target(root, top, name, base_dir, scenario);
    return scenario;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
    std::ifstream in(path);
    if (!in) throw ScenarioError(path + ": cannot open scenario file");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_scenario(ss.str(), path, std::filesystem::path(path).parent_path().string(),
                          overrides);
}

}  // namespace pathscope::capture
