#include "capture/kernel/netns.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "capture/kernel/command.h"
#include "engine/routes.h"

namespace pathscope::capture {

namespace {

constexpr const char* kNetnsDir = "/run/netns";

/// The pid in a pathscope namespace's name ("psk123-0-snd": 123), or 0.
int namespace_pid(const std::string& name) {
    const std::string prefix = kNamespacePrefix;
    if (name.rfind(prefix, 0) != 0) return 0;
    int pid = 0;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    const auto [end, ec] = std::from_chars(first, last, pid);
    if (ec != std::errc() || end == first || end == last || *end != '-') return 0;
    return pid;
}

bool process_alive(int pid) { return kill(pid, 0) == 0 || errno == EPERM; }

std::string sysctl_path(const std::string& key) {
    std::string path = "/proc/sys/" + key;
    for (size_t i = 10; i < path.size(); ++i)
        if (path[i] == '.') path[i] = '/';
    return path;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

/// Settings that keep a namespace quiet while it is measured: no duplicate
/// address detection, router solicitations or router advertisements, and
/// the MLD reports of a link coming up sent at once (1 ms apart), so that
/// they are over before a trial starts.
const std::pair<const char*, const char*> kQuiet[] = {
    {"net.ipv6.conf.all.accept_dad", "0"},
    {"net.ipv6.conf.default.accept_dad", "0"},
    {"net.ipv6.conf.all.router_solicitations", "0"},
    {"net.ipv6.conf.default.router_solicitations", "0"},
    {"net.ipv6.conf.all.accept_ra", "0"},
    {"net.ipv6.conf.default.accept_ra", "0"},
    {"net.ipv6.conf.all.mldv1_unsolicited_report_interval", "1"},
    {"net.ipv6.conf.default.mldv1_unsolicited_report_interval", "1"},
    {"net.ipv6.conf.all.mldv2_unsolicited_report_interval", "1"},
    {"net.ipv6.conf.default.mldv2_unsolicited_report_interval", "1"},
};

int open_namespace(const std::string& name) {
    const std::string path = std::string(kNetnsDir) + "/" + name;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw std::runtime_error("network namespace " + name + ": cannot open " + path + ": " +
                                 std::strerror(errno));
    return fd;
}

std::string address_only(const std::string& with_len) { return with_len.substr(0, with_len.find('/')); }

/// The i-th destination of [source] (destination + i, carried through the low bytes).
engine::Ip6Addr nth_address(engine::Ip6Addr a, uint32_t i) {
    for (int b = 15; b >= 0 && i; --b) {
        const uint32_t sum = a[b] + (i & 0xff);
        a[b] = static_cast<uint8_t>(sum);
        i = (i >> 8) + (sum >> 8);
    }
    return a;
}

bool in_prefix(const engine::Ip6Addr& a, const engine::Prefix6& p) {
    for (unsigned bit = 0; bit < p.len; ++bit) {
        const uint8_t mask = static_cast<uint8_t>(0x80u >> (bit % 8));
        if ((a[bit / 8] & mask) != (p.addr[bit / 8] & mask)) return false;
    }
    return true;
}

std::string rule_action(const engine::RuleConfig& r) {
    switch (r.action) {
        case engine::RuleAction::unreachable:
            return "unreachable";
        case engine::RuleAction::prohibit:
            return "prohibit";
        case engine::RuleAction::blackhole:
            return "blackhole";
        case engine::RuleAction::table:
            break;
    }
    return "";
}

void neighbour(const std::string& ns, const std::string& ifname, const std::string& addr,
               const std::string& mac) {
    run_command({"ip", "-n", ns, "-6", "neigh", "replace", addr, "lladdr", mac, "dev", ifname,
                 "nud", "permanent"});
}

}  // namespace

std::vector<std::string> pathscope_namespaces() {
    std::vector<std::string> out;
    DIR* dir = opendir(kNetnsDir);
    if (!dir) return out;
    while (const dirent* e = readdir(dir))
        if (namespace_pid(e->d_name)) out.emplace_back(e->d_name);
    closedir(dir);
    return out;
}

std::vector<std::string> remove_stale_namespaces() {
    std::vector<std::string> removed;
    for (const auto& name : pathscope_namespaces()) {
        if (process_alive(namespace_pid(name))) continue;
        if (try_command({"ip", "netns", "delete", name})) removed.push_back(name);
    }
    return removed;
}

void enter_namespace(int fd, const std::string& name) {
    if (setns(fd, CLONE_NEWNET) != 0)
        throw std::runtime_error("cannot enter network namespace " + name + ": " +
                                 std::strerror(errno));
}

void in_namespace(int fd, const std::string& name, const std::function<void()>& fn) {
    std::exception_ptr failure;
    std::thread t([&] {
        try {
            enter_namespace(fd, name);
            fn();
        } catch (...) {
            failure = std::current_exception();
        }
    });
    t.join();
    if (failure) std::rethrow_exception(failure);
}

void write_sysctl(int fd, const std::string& ns, const std::string& key, const std::string& value,
                  bool guard_host) {
    const std::string path = sysctl_path(key);
    const std::string host_before = guard_host ? read_text(path) : "";
    in_namespace(fd, ns, [&] {
        std::ofstream out(path);
        out << value << "\n";
        out.flush();
        if (!out)
            throw std::runtime_error("sysctl " + key + " = " + value + " in namespace " + ns +
                                     ": cannot write " + path +
                                     " (no such setting here, or a value it refuses)");
    });
    if (!guard_host) return;
    const std::string host_after = read_text(path);
    if (host_after == host_before) return;
    std::ofstream restore(path);
    restore << host_before << "\n";
    throw std::runtime_error("sysctl " + key + " is the whole machine's, not the namespace's: "
                             "writing it in " + ns + " changed the host's value from " +
                             host_before + " to " + host_after +
                             " (put back); pathscope never changes the host");
}

KernelNetwork::KernelNetwork(const KernelConfig& cfg, const engine::EngineConfig& engine,
                             unsigned serial) {
    if (cfg.given_namespaces()) {
        sides_ = {{"sender", cfg.sender_namespace, -1, {}},
                  {"receiver", cfg.receiver_namespace, -1, {}}};
        if (cfg.path == KernelPath::forward) sides_.push_back({"router", cfg.router_namespace, -1, {}});
        try {
            for (auto& s : sides_) s.fd = open_namespace(s.ns);
        } catch (...) {
            remove();
            throw;
        }
        return;
    }
    try {
        make(cfg, engine, serial);
    } catch (...) {
        remove();
        throw;
    }
}

KernelNetwork::~KernelNetwork() { remove(); }

void KernelNetwork::remove() noexcept {
    for (auto& s : sides_) {
        if (s.fd >= 0) close(s.fd);
        s.fd = -1;
        if (made_) try_command({"ip", "netns", "delete", s.ns});
    }
    made_ = false;
}

std::string KernelNetwork::describe() const {
    std::string out;
    for (const auto& s : sides_) out += (out.empty() ? "" : " ") + s.role + "=" + s.ns;
    return out;
}

void KernelNetwork::make(const KernelConfig& cfg, const engine::EngineConfig& engine,
                         unsigned serial) {
    const std::string base = std::string(kNamespacePrefix) + std::to_string(getpid()) + "-" +
                             std::to_string(serial) + "-";
    const bool forward = cfg.path == KernelPath::forward;
    sides_ = {{"sender", base + "snd", -1, {}}, {"receiver", base + "rcv", -1, {}}};
    if (forward) sides_.push_back({"router", base + "rtr", -1, {}});
    made_ = true;  // from here on, whatever exists is removed on failure
    for (auto& s : sides_) {
        run_command({"ip", "netns", "add", s.ns});
        s.fd = open_namespace(s.ns);
        for (const auto& [key, value] : kQuiet) write_sysctl(s.fd, s.ns, key, value, false);
        run_command({"ip", "-n", s.ns, "link", "set", "lo", "up"});
    }
    // veth names carry the process id (at most 15 characters: "psk" + 7 digits + 1).
    const std::string veth = std::string(kNamespacePrefix) + std::to_string(getpid());
    // Each veth end gets a fixed MAC and each side a permanent neighbour
    // entry for the other: a trial measures the path, not neighbour
    // discovery (whose first solicitation a just-made link can lose, which
    // held the first datagrams for a second).
    unsigned links = 0;
    auto link = [&](NetSide& a, NetSide& b, const std::string& a_if, const std::string& b_if,
                    const std::string& a_addr, const std::string& b_addr) {
        ++links;
        const std::string a_mac = fmt::format("02:70:73:00:{:02x}:01", links);
        const std::string b_mac = fmt::format("02:70:73:00:{:02x}:02", links);
        run_command({"ip", "-n", a.ns, "link", "add", a_if, "address", a_mac, "type", "veth", "peer",
                     "name", b_if, "address", b_mac, "netns", b.ns});
        a.links.push_back(a_if);
        b.links.push_back(b_if);
        for (auto [side, ifname, addr] : {std::tuple{&a, a_if, a_addr}, {&b, b_if, b_addr}}) {
            // Multicast off: no MLD state to report during a trial.
            run_command({"ip", "-n", side->ns, "link", "set", ifname, "multicast", "off"});
            run_command({"ip", "-n", side->ns, "-6", "addr", "add", addr, "dev", ifname, "nodad"});
            run_command({"ip", "-n", side->ns, "link", "set", ifname, "up"});
        }
        neighbour(a.ns, a_if, address_only(b_addr), b_mac);
        neighbour(b.ns, b_if, address_only(a_addr), a_mac);
        return b_mac;
    };
    NetSide& snd = sides_[0];
    NetSide& rcv = sides_[1];
    std::string receiver_mac;  // where the receiver's further addresses are reached
    std::string toward_receiver_ns, toward_receiver_if;
    if (!forward) {
        receiver_mac = link(snd, rcv, veth + "a", veth + "b", cfg.sender_address, cfg.receiver_address);
        toward_receiver_ns = snd.ns, toward_receiver_if = veth + "a";
    } else {
        NetSide& rtr = sides_[2];
        link(snd, rtr, veth + "a", veth + "b", cfg.sender_address, cfg.router_in_address);
        receiver_mac = link(rtr, rcv, veth + "c", veth + "d", cfg.router_out_address, cfg.receiver_address);
        toward_receiver_ns = rtr.ns, toward_receiver_if = veth + "c";
        write_sysctl(rtr.fd, rtr.ns, "net.ipv6.conf.all.forwarding", "1", false);
        run_command({"ip", "-n", snd.ns, "-6", "route", "add", "default", "via",
                     address_only(cfg.router_in_address)});
        run_command({"ip", "-n", rcv.ns, "-6", "route", "add", "default", "via",
                     address_only(cfg.router_out_address)});
    }
    // Further destinations of [source] that lie in the receiver's prefix are its addresses too.
    const auto rx_prefix = engine::parse_prefix6(cfg.receiver_address);
    const auto rx_addr = engine::parse_ip6(address_only(cfg.receiver_address));
    if (engine.source.enabled && rx_prefix && rx_addr)
        for (uint32_t i = 0; i < engine.source.destinations; ++i) {
            const engine::Ip6Addr a = nth_address(engine.source.destination, i);
            if (a != *rx_addr && in_prefix(a, *rx_prefix)) {
                run_command({"ip", "-n", rcv.ns, "-6", "addr", "add", engine::format_ip6(a) + "/128",
                             "dev", rcv.links.back(), "nodad"});
                neighbour(toward_receiver_ns, toward_receiver_if, engine::format_ip6(a), receiver_mac);
            }
        }
    // Routes and rules go where the path's route decision is made: the
    // router of a forwarding path, else the sender (its route output).
    NetSide& decides = forward ? sides_[2] : snd;
    const std::string next_hop = address_only(cfg.receiver_address);
    for (const auto& r : engine.routes)
        run_command({"ip", "-n", decides.ns, "-6", "route", "add", engine::format_prefix6(r.prefix),
                     "via", next_hop, "table", std::to_string(r.table)});
    if (cfg.rules)
        for (const auto& r : engine.rules) {
            std::vector<std::string> cmd{"ip", "-n", decides.ns, "-6", "rule", "add", "priority",
                                         std::to_string(r.priority)};
            if (r.has_from) cmd.insert(cmd.end(), {"from", engine::format_prefix6(r.from)});
            if (r.has_to) cmd.insert(cmd.end(), {"to", engine::format_prefix6(r.to)});
            if (!r.iif.empty()) cmd.insert(cmd.end(), {"iif", r.iif});
            if (const std::string action = rule_action(r); !action.empty())
                cmd.push_back(action);
            else
                cmd.insert(cmd.end(), {"table", std::to_string(r.table)});
            run_command(cmd);
        }
    for (const auto& s : sides_)
        for (const auto& [key, value] : cfg.sysctls) write_sysctl(s.fd, s.ns, key, value, true);
    // The MLD reports of the links coming up, 1 ms apart, are over by now.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
}

}  // namespace pathscope::capture
