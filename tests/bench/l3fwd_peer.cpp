#include "tests/bench/l3fwd_peer.h"

#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/routes.h"
#include "tests/bench/bench_workload.h"
#include "tests/bench/peer_process.h"

namespace pathscope::bench {

namespace {

constexpr const char* kOutPort = "1";  // net_null1: every route leads there

/// One "pathscope-counts start|end time_ns=N ... portP_rx=N portP_tx=N"
/// line printed by the patch, as name -> value.
std::map<std::string, uint64_t> counts_line(const std::string& output, const std::string& when) {
    std::istringstream in(output);
    std::string line;
    const std::string tag = "pathscope-counts " + when + " ";
    while (std::getline(in, line)) {
        if (line.rfind(tag, 0) != 0) continue;
        std::map<std::string, uint64_t> fields;
        static const std::regex field(R"((\w+)=(\d+)(\s|$))");
        for (std::sregex_iterator it(line.begin(), line.end(), field), end; it != end; ++it)
            fields[(*it)[1]] = std::stoull((*it)[2]);
        return fields;
    }
    return {};
}

}  // namespace

L3fwdRules write_l3fwd_rules(const std::string& dir) {
    L3fwdRules rules{dir + "/l3fwd-rules-v6.txt", dir + "/l3fwd-rules-v4.txt"};
    std::ofstream v6(rules.ipv6), v4(rules.ipv4);
    for (const auto& r : engine::read_route_file(routes_file(), 1))
        v6 << 'R' << engine::format_prefix6(r.prefix) << ' ' << kOutPort << '\n';
    v4 << "R198.18.0.0/15 " << kOutPort << '\n';
    if (!v6 || !v4) throw std::runtime_error("cannot write l3fwd's rule files in " + dir);
    return rules;
}

L3fwdReading run_l3fwd(const std::string& l3fwd, const std::string& lookup,
                       const std::string& pcap, const L3fwdRules& rules, double seconds,
                       const std::string& log) {
    const std::string what = "l3fwd --lookup=" + lookup;
    // One lcore: net_pcap has one tx queue per lcore that l3fwd sets up.
    std::vector<std::string> argv = {l3fwd};
    for (const auto& a : eal_with_lcores("-l", "1")) argv.push_back(a);
    argv.insert(argv.end(),
                {"--vdev", "net_pcap0,rx_pcap=" + pcap + ",infinite_rx=1", "--vdev",
                 "net_null1,no-rx=1", "--", "-p", "0x3", "--config", "(0,0,1)",
                 "--lookup=" + lookup, "--parse-ptype", "--rule_ipv4", rules.ipv4, "--rule_ipv6",
                 rules.ipv6});
    PeerProcess peer(argv, log);
    // Loading 40,000 routes takes a few seconds on a busy machine.
    peer.wait_for(std::regex("^pathscope-counts start "), 180, what);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const int status = peer.stop(30);

    const std::string out = peer.output();
    const auto start = counts_line(out, "start"), end = counts_line(out, "end");
    const std::string rx = "port0_rx", tx = std::string("port") + kOutPort + "_tx";
    const auto has_counts = [&](const std::map<std::string, uint64_t>& c) {
        return c.count("time_ns") && c.count(rx) && c.count(tx);
    };
    if (!has_counts(start) || !has_counts(end))
        throw std::runtime_error(what + " stopped (exit status " + std::to_string(status) +
                                 ") without its end counts of ports 0 and 1 (built from " +
                                 "l3fwd/l3fwd.patch?); see " + log);
    L3fwdReading r;
    r.received = end.at(rx) - start.at(rx);
    r.forwarded = end.at(tx) - start.at(tx);
    r.seconds = static_cast<double>(end.at("time_ns") - start.at("time_ns")) / 1e9;
    if (r.seconds <= 0 || r.forwarded == 0)
        throw std::runtime_error(what + " forwarded nothing to port 1 (received " +
                                 std::to_string(r.received) + " on port 0 in " +
                                 std::to_string(r.seconds) + " s); see " + log);
    // Frames still in l3fwd's tx buffers at the end are at most a burst or two.
    if (r.forwarded + 1024 < r.received * 0.99)
        throw std::runtime_error(what + " forwarded " + std::to_string(r.forwarded) + " of " +
                                 std::to_string(r.received) +
                                 " received packets to port 1: the rest went elsewhere or were "
                                 "dropped; see " + log);
    return r;
}

}  // namespace pathscope::bench
