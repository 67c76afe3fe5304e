// DPDK's l3fwd example (built from dpdk-doc's sources with l3fwd/l3fwd.patch,
// target l3fwd_peer) as the benchmark's forwarding peer: the bench pcap
// replayed by net_pcap (port 0) and forwarded over the same 40,000 routes to
// net_null (port 1), on one lcore.
#pragma once

#include <cstdint>
#include <string>

namespace pathscope::bench {

struct L3fwdRules {
    std::string ipv6, ipv4;  ///< --rule_ipv6 and --rule_ipv4 files
};

/// Writes the benchmark's route table in l3fwd's rule format
/// ("R<prefix>/<len> <port>"), every route to port 1, into `dir`. l3fwd
/// wants an IPv4 file too: one route, never matched by the IPv6 frames.
L3fwdRules write_l3fwd_rules(const std::string& dir);

struct L3fwdReading {
    uint64_t received = 0;   ///< port 0 rx packets in the forwarding window
    uint64_t forwarded = 0;  ///< port 1 tx packets in the window
    double seconds = 0;      ///< the window: l3fwd's start and end counts
    double mpps() const { return static_cast<double>(forwarded) / seconds / 1e6; }
};

/// Runs `l3fwd` with `lookup` ("fib" or "lpm") for `seconds` after it starts
/// forwarding, output in `log`. Throws std::runtime_error saying why and
/// naming the log when it gave no reading or did not forward to port 1.
L3fwdReading run_l3fwd(const std::string& l3fwd, const std::string& lookup,
                       const std::string& pcap, const L3fwdRules& rules, double seconds,
                       const std::string& log);

}  // namespace pathscope::bench
