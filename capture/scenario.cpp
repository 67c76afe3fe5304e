#include "capture/scenario.h"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "capture/scenario_stages.h"
#include "capture/scenario_where.h"
#include "engine/eal.h"
#include "engine/frame_builder.h"
#include "engine/neighbours.h"
#include "engine/routes.h"

namespace pathscope::capture {

using namespace engine;

namespace {

/// A numeric setting's range and unit. Ports, next hops, routes and apps
/// are named by their table ("port.rx_queues"), whichever one they are in.
struct SettingRange {
    const char* key;
    double min, max;
    const char* unit;
};

constexpr double kInt64Max = static_cast<double>(std::numeric_limits<int64_t>::max());

/// Every numeric setting, checked here and nowhere else: the file, --set
/// and the run verb's own options (--duration, --trials) all come through
/// check_setting, so a value gets the same answer whichever way it came.
constexpr SettingRange kRanges[] = {
    {"capture.trials", 1, 1000, "trials"},
    {"capture.interval", 0.01, 60, "seconds"},
    // The kernel's own limit (perf_event_max_sample_rate) is checked when
    // the run starts; this is the most any kernel is asked for.
    {"capture.sample_hz", 0, 1e6, "samples a second"},
    {"capture.traces_per_s", 0, 1e6, "traces a second"},
    {"capture.max_disturbance", 0.1, 100, "% of the window"},
    {"capture.max_trials", 3, 1000, "trials"},
    {"capture.target_half_width", 0.01, 100, "% of the baseline mean"},
    {"capture.retry_disturbed", 0, 20, "re-runs a trial"},
    {"engine.burst", 1, 256, "packets"},
    {"engine.duration", 0.01, 86400, "seconds"},
    {"engine.mbufs", 1024, 1 << 26, "buffers"},
    {"engine.workers", 1, 32, "worker lcores"},
    {"engine.icmp_errors_per_s", 0, 1e9, "errors a second"},
    {"engine.ifaddr_churn", 0, 1e6, "changes a second"},
    {"engine.nd_hold", 0, engine::PendingNeighbours::kMaxHold, "packets"},
    {"engine.nd_probes", 1, 255, "solicitations"},
    {"engine.nd_retrans", 0.001, 3600, "seconds"},
    {"engine.extra_work", 0, 1e6, "cycles a packet"},
    {"engine.interrupted_call_us", 0, 1e6, "microseconds (0: keep every call)"},
    // DPDK's RTE_MAX_QUEUES_PER_PORT; a device may allow fewer, which the
    // run finds out before it creates a run.
    {"port.rx_queues", 0, 1024, "queues (0: a port that only sends, poll = false)"},
    {"port.tx_queues", 1, 1024, "queues"},
    {"nexthop.id", 1, std::numeric_limits<uint32_t>::max(), ""},
    {"route.nexthop", 0, std::numeric_limits<uint32_t>::max(), ""},
    // Linux's table ids: 1 to 2^32-1 (0 is RT_TABLE_UNSPEC); 255 local, 254 main, 253 default.
    {"route.table", 1, std::numeric_limits<uint32_t>::max(), ""},
    {"rule.priority", 0, std::numeric_limits<uint32_t>::max(), ""},
    {"rule.table", 1, std::numeric_limits<uint32_t>::max(), ""},
    {"routes.nexthop", 0, std::numeric_limits<uint32_t>::max(), ""},
    {"routes.generate", 0, 10'000'000, "routes"},
    {"routes.seed", 0, kInt64Max, ""},
    {"app.port", 1, 65535, ""},
    // Each client socket is two rings (memzones); the EAL has 2560 of them.
    {"app.max_clients", 1, 1024, "sockets"},
    {"workload.flows", 1, 1 << 24, "flows"},  // 24 bits of the source MAC
    // The headers at least; an mbuf's data room (2048 bytes) at most.
    {"workload.frame_size", engine::kEthLen + engine::kIp6Len + engine::kUdpLen, 2048, "bytes"},
    {"workload.sink_percent", 0, 100, "%"},
    {"workload.echo_percent", 0, 100, "%"},
    {"workload.malformed_percent", 0, 100, "%"},
    {"workload.packets", 0, kInt64Max, "packets"},
    // Each stream is a client socket of the server (see app.max_clients).
    {"workload.rr.streams", 1, 1024, "streams"},
    {"workload.rr.port", 1, 65535, ""},
    // The stream and sequence numbers at least; a 1500-byte MTU at most.
    {"workload.rr.payload", 8, 1400, "bytes"},
    {"workload.rr.timeout", 0.0001, 10, "seconds"},
    {"source.destinations", 1, 4096, "addresses"},
    {"source.port", 1, 65535, ""},
    {"source.local_port", 1, 65535, ""},
    {"source.payload", 0, 1400, "bytes"},
    {"source.rate", 0, 1e9, "datagrams a second"},
    {"source.batch", 1, 256, "datagrams"},
    {"socket.hop_limit", 1, 255, ""},
    {"socket.traffic_class", 0, 255, ""},
    {"socket.flow_label", 0, 0xfffff, ""},
    {"linux.sender_cpu", -1, 1023, "(a CPU number; -1: not pinned)"},
    {"linux.receiver_cpu", -1, 1023, "(a CPU number; -1: not pinned)"},
    {"linux.rr_streams", 1, 1024, "streams"},
    {"linux.rr_payload", 8, 1400, "bytes"},
    {"linux.rr_port", 1, 65535, ""},
    {"linux.rr_timeout", 0.001, 10, "seconds"},
};

const SettingRange* find_range(const std::string& key) {
    for (const auto& r : kRanges)
        if (key == r.key) return &r;
    return nullptr;
}

/// "64", "0.01", "1e+09", "nan", "inf": a number as a user would type it.
std::string number_text(double v) {
    std::ostringstream out;
    out.precision(15);
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        out << static_cast<int64_t>(v);
    else
        out << v;
    return out.str();
}

/// Edits (insert, delete, replace, swap of neighbours) between two keys.
size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                                d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

/// The known key a typo most likely meant: the closest within a third of
/// its length (at least one edit), or "" when none is that close.
std::string nearest(const std::string& typo, const std::vector<std::string>& known) {
    std::string best;
    size_t best_d = std::max<size_t>(1, typo.size() / 3) + 1;
    for (const auto& k : known)
        if (const size_t d = edit_distance(typo, k); d < best_d) best = k, best_d = d;
    return best;
}

/// Walks one TOML table, checking keys and types, with errors that point at
/// the file, line and dotted key.
class Section {
  public:
    Section(const toml::table& t, std::string file, std::string path)
        : t_(t), file_(std::move(file)), path_(std::move(path)) {}

    /// Call last: every key that no get*() asked for is unknown.
    void finish() const {
        for (const auto& [k, v] : t_) {
            const std::string name(k.str());
            if (known_.count(name)) continue;
            std::string list;
            for (const auto& n : order_) list += (list.empty() ? "" : ", ") + n;
            const std::string near = nearest(name, order_);
            fail(v, "unknown key '" + key(name) + "'" +
                        (near.empty() ? "" : " (did you mean '" + key(near) + "'?)") +
                        " (known keys here: " + list + ")");
        }
    }

    /// Declares a key as known without reading it (a sub-table read elsewhere).
    void know(const char* k) const {
        if (known_.insert(k).second) order_.push_back(k);
    }

    template <typename T>
    void get(const char* k, T& out) const {
        know(k);
        check_range_fits<T>(k);  // before the key's presence: a missing range shows in every test
        const toml::node* n = t_.get(k);
        if (!n) return;
        if constexpr (std::is_same_v<T, bool>) {
            if (!n->is_boolean()) fail(*n, "'" + key(k) + "' must be true or false");
            out = n->as_boolean()->get();
        } else if constexpr (std::is_same_v<T, std::string>) {
            if (!n->is_string()) fail(*n, "'" + key(k) + "' must be a string");
            out = n->as_string()->get();
        } else if constexpr (std::is_same_v<T, double>) {
            if (!n->is_number()) fail(*n, "'" + key(k) + "' must be a number");
            const double v = n->is_integer() ? static_cast<double>(n->as_integer()->get())
                                             : n->as_floating_point()->get();
            check(*n, k, v);
            out = v;
        } else {
            if (!n->is_integer()) fail(*n, "'" + key(k) + "' must be an integer");
            const int64_t v = n->as_integer()->get();
            check(*n, k, static_cast<double>(v));
            out = static_cast<T>(v);
        }
    }

    /// The range check of a numeric key (kRanges), which must fit in `T`.
    template <typename T>
    void check_range_fits(const char* k) const {
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
            const SettingRange* r = find_range(key(k));
            if (!r || r->max > static_cast<double>(std::numeric_limits<T>::max()) ||
                (std::is_unsigned_v<T> && r->min < 0))
                throw std::logic_error("scenario: no range (or one too wide) for '" + key(k) +
                                       "' in kRanges");
        }
    }
    void check(const toml::node& n, const char* k, double v) const {
        const std::string msg = check_setting(key(k), v);
        if (!msg.empty()) fail(n, msg);
    }

    void get_strings(const char* k, std::vector<std::string>& out) const {
        know(k);
        const toml::node* n = t_.get(k);
        if (!n) return;
        if (!n->is_array()) fail(*n, "'" + key(k) + "' must be an array of strings");
        out.clear();
        for (const auto& e : *n->as_array()) {
            if (!e.is_string()) fail(e, "'" + key(k) + "' must be an array of strings");
            out.push_back(e.as_string()->get());
        }
    }

    template <typename T, typename Parse>
    void get_parsed(const char* k, T& out, Parse parse, const char* what) const {
        std::string s;
        get(k, s);
        if (s.empty() && !t_.get(k)) return;
        auto v = parse(s);
        if (!v) fail(*t_.get(k), "'" + key(k) + "' = \"" + s + "\" is not " + what);
        out = *v;
    }

    const toml::table* table(const char* k) const {
        know(k);
        const toml::node* n = t_.get(k);
        if (!n) return nullptr;
        if (!n->is_table()) fail(*n, "'" + key(k) + "' must be a table ([" + key(k) + "])");
        return n->as_table();
    }

    /// An array of tables ([[k]]).
    std::vector<const toml::table*> tables(const char* k) const {
        know(k);
        std::vector<const toml::table*> out;
        const toml::node* n = t_.get(k);
        if (!n) return out;
        if (!n->is_array_of_tables())
            fail(*n, "'" + key(k) + "' must be written as [[" + key(k) + "]] tables");
        for (const auto& e : *n->as_array()) out.push_back(e.as_table());
        return out;
    }

    [[noreturn]] void fail(const toml::node& n, const std::string& msg) const {
        throw ScenarioError(where(n) + ": " + owner_ + msg);
    }
    [[noreturn]] void fail_here(const std::string& msg) const {
        throw ScenarioError(where(t_) + ": " + owner_ + msg);
    }
    /// Names the table an error is in, for an array of tables ("port 'wire'").
    void owned_by(const std::string& owner) { owner_ = owner + ": "; }
    std::string where(const toml::node& n) const { return capture::where(n, file_); }

    std::string key(const std::string& k) const { return path_.empty() ? k : path_ + "." + k; }

  private:
    const toml::table& t_;
    std::string file_;
    std::string path_;
    mutable std::set<std::string> known_;
    mutable std::vector<std::string> order_;
    std::string owner_;
};


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

    if (const auto* t = top.table("eal")) {
        Section s(*t, name, "eal");
        s.get_strings("args", cfg.eal_args);
        bool hugepages = false;  // reserved hugepages instead of --no-huge's 4 KiB pages
        s.get("hugepages", hugepages);
        if (hugepages) cfg.eal_args = engine::with_hugepages(cfg.eal_args);
        s.finish();
    }
    if (const auto* t = top.table("capture")) {
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
    if (const auto* t = top.table("engine")) {
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
    for (const auto* t : top.tables("port")) {
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
    auto known_port = [&](const Section& s, const toml::table& t, const std::string& port,
                          const char* k) {
        for (const auto& p : cfg.ports)
            if (p.name == port) return;
        s.fail(t.get(k) ? *t.get(k) : static_cast<const toml::node&>(t),
               "'" + s.key(k) + "' names port '" + port + "', which no [[port]] defines");
    };
    for (const auto* t : top.tables("nexthop")) {
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
    for (const auto* t : top.tables("route")) {
        Section s(*t, name, "route");
        RouteConfig r;
        s.get_parsed("prefix", r.prefix, parse_prefix6, "an IPv6 prefix like 2001:db8::/32");
        s.get("nexthop", r.nexthop);
        s.get("table", r.table);
        s.finish();
        cfg.routes.push_back(r);
    }
    for (const auto* t : top.tables("rule")) {
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
    if (const auto* t = top.table("routes")) {
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
    for (const auto* t : top.tables("ila_map")) {
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
    for (const auto* t : top.tables("nptv6")) {
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
    auto ila_error = [&](const std::string& msg) {
        throw ScenarioError(where(*root.at_path("engine.ila").node(), name) + ": " + msg);
    };
    if ((cfg.ila == IlaMode::late || cfg.ila == IlaMode::early) && cfg.ila_map.empty())
        ila_error("engine.ila = \"" + std::string(cfg.ila == IlaMode::late ? "late" : "early") +
                  "\" needs [[ila_map]] entries (identifier, locator, sir_prefix)");
    if (cfg.ila == IlaMode::nptv6 && cfg.nptv6.empty())
        ila_error("engine.ila = \"nptv6\" needs [[nptv6]] prefix pairs (external, internal)");
    for (const auto* t : top.tables("app")) {
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
    if (const auto* t = top.table("workload")) {
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
                                     number_text(n->value_or(0.0)), s.where(*n));
                if (!blamed || s.where(*n).rfind("--set ", 0) == 0) blamed = n;
            }
            s.fail(blamed ? *blamed : static_cast<const toml::node&>(*t),
                   fmt::format("workload percentages add up to {}%, more than 100: {}",
                               number_text(g.sink_percent + g.echo_percent + g.malformed_percent),
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
    if (const auto* t = top.table("source")) {
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
    if (const auto* t = top.table("socket")) {
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
    parse_target(root, top, name, base_dir, scenario);
    return scenario;
}

std::string check_setting(const std::string& key, double value) {
    const SettingRange* r = find_range(key);
    if (!r) throw std::logic_error("scenario: no range for '" + key + "' in kRanges");
    if (value >= r->min && value <= r->max) return "";  // false for NaN too
    return "'" + key + "' must be between " + number_text(r->min) + " and " +
           number_text(r->max) + (*r->unit ? " " : "") + r->unit + ", not " + number_text(value);
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
