// What a run on the Linux kernel target measures: the [target] and [linux]
// tables of a scenario (kind = "linux"), and the [sysctl] settings applied
// inside the namespaces pathscope makes. Plain data; the scenario parser
// fills it, capture/kernel/ runs it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pathscope::capture {

/// Where the traffic goes through the kernel.
enum class KernelPath {
    /// sender namespace -> veth -> receiver namespace (a recvmmsg sink there)
    send,
    /// client namespace -> veth -> server namespace and back: request/response
    rr,
    /// sender -> veth -> router namespace (forwarding on) -> veth -> receiver
    forward,
};

/// "send", "rr", "forward".
const char* kernel_path_name(KernelPath p);

struct KernelConfig {
    KernelPath path = KernelPath::send;
    /// CPUs the workload's threads are pinned to: the sender (or rr client)
    /// and the receiver (sink, or rr server); -1: not pinned.
    int sender_cpu = 0;
    int receiver_cpu = 1;
    /// A recvmmsg sink in the receiver namespace (send and forward paths);
    /// false: datagrams reach a port nobody listens on (NO_SOCKET drops).
    bool sink = true;
    /// Install the scenario's [[rule]] entries (a [matrix] axis: one rule or none).
    bool rules = true;
    /// Count fib6:fib6_table_lookup (tables looked up, lookups begun): the
    /// path events behind tables/lookup. Off by default: the tracepoint
    /// builds a record for every lookup, a few percent of a UDP send's cost
    /// (tests/bench/bench_kernel measures it).
    bool count_lookups = false;
    /// Addresses with their on-link prefix length. The router has one on
    /// each of its links (router_in faces the sender, router_out the receiver).
    std::string sender_address = "2001:db8:1::1/64";
    std::string receiver_address = "2001:db8:1::2/64";
    std::string router_in_address = "2001:db8:1::fe/64";
    std::string router_out_address = "2001:db8:2::fe/64";
    /// Request/response: streams (one connected client socket each, served
    /// by a connected server socket each) and request bytes.
    uint32_t rr_streams = 1;
    uint16_t rr_payload = 8;
    uint16_t rr_port = 7;
    /// Request/response: a request unanswered this long is sent again.
    double rr_timeout_s = 0.1;
    /// The stage map file (kernel function -> stage); "": the one shipped
    /// in samples/kernel-stages.map.
    std::string stage_map;
    /// Namespaces someone else made ("" each: pathscope makes its own). Given
    /// namespaces are used as they are: no address, route, rule or sysctl is
    /// applied and nothing is removed.
    std::string sender_namespace, receiver_namespace, router_namespace;
    /// sysctl.* settings ("net.ipv4.udp_early_demux", "1"), applied in every
    /// namespace pathscope makes, in name order.
    std::vector<std::pair<std::string, std::string>> sysctls;
    /// capture.perf_data: also write the kernel samples as a perf.data file
    /// (perf report, perf script, hotspot read it); "": none.
    std::string perf_data;

    bool given_namespaces() const { return !sender_namespace.empty(); }
};

/// "" when a sysctl key may be set in pathscope's own namespaces, else why
/// not: keys outside net.* and the global net.core.* keys would change the
/// host, not the namespace.
std::string sysctl_refusal(const std::string& key);

}  // namespace pathscope::capture
