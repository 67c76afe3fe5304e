// What the engine runs: plain data, filled from a scenario file or by tests.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pathscope::engine {

using Ip6Addr = std::array<uint8_t, 16>;
using MacAddr = std::array<uint8_t, 6>;

struct Prefix6 {
    Ip6Addr addr{};
    uint8_t len = 0;
};

struct PortConfig {
    std::string name;
    /// "ring" for an in-process net_ring port (generator, tests), otherwise a
    /// DPDK device: a vdev ("net_pcap0,rx_pcap=F", "net_null0", "net_tap0,iface=X")
    /// or a PCI address.
    std::string device = "ring";
    uint16_t rx_queues = 1;
    uint16_t tx_queues = 1;
    bool poll = true;                ///< whether the worker polls this port's receive queues
    bool promiscuous = false;        ///< accept frames for any destination MAC
    MacAddr mac{};                   ///< all zero: keep the device's own address
    std::vector<Prefix6> addresses;  ///< our addresses; each adds an on-link route
};

struct NexthopConfig {
    uint32_t id = 0;
    std::string port;  ///< port name
    MacAddr mac{};
};

/// Linux's well-known routing table ids (rtnetlink.h: RT_TABLE_*).
inline constexpr uint32_t kTableLocal = 255;
inline constexpr uint32_t kTableMain = 254;
inline constexpr uint32_t kTableDefault = 253;

struct RouteConfig {
    Prefix6 prefix;
    uint32_t nexthop = 0;
    uint32_t table = kTableMain;  ///< the routing table it goes in
};

/// What a policy rule does when its selectors match (Linux FR_ACT_*): look
/// up a table (a miss there goes on to the next rule), or end the lookup as
/// a named drop.
enum class RuleAction : uint8_t { table, unreachable, prohibit, blackhole };

/// A policy rule ([[rule]], like `ip -6 rule add`). Lower priority numbers
/// are tried first. An unset selector matches everything.
struct RuleConfig {
    uint32_t priority = 0;
    bool has_from = false, has_to = false;
    Prefix6 from;      ///< source prefix
    Prefix6 to;        ///< destination prefix
    std::string iif;   ///< input port name; "lo" matches locally sent datagrams; "" any
    RuleAction action = RuleAction::table;
    uint32_t table = kTableMain;
};

enum class AppKind { sink, echo };

struct AppConfig {
    AppKind kind = AppKind::sink;
    uint16_t port = 0;  ///< UDP port the app binds
    /// Echo only: a connected socket per client (SO_REUSEADDR, bound to the
    /// address the client sent to, connected to the client), as UDP servers
    /// that want the 4-tuple lookup do; false: every reply from the one bound socket.
    bool connected = false;
    /// Connected echo: at most this many client sockets; clients beyond are
    /// answered from the bound socket (counted as rr_server_unconnected).
    uint32_t max_clients = 1024;
};

/// The design variants a review compares: runtime switches, so that one
/// binary runs both sides of a comparison.
enum class SocketSend { single, burst };  ///< one send call per datagram, or a batch per call
enum class IfaddrSync { rcu, rwlock };    ///< how the interface address list is protected
enum class TxqHash { flow, none };        ///< spread over transmit queues by flow, or queue 0
/// How a socket counts the bytes it has in flight (sent, not yet freed after
/// transmit), as Linux's sk_wmem_alloc: `atomic` as the kernel did before the
/// review (an atomic add at send, an atomic subtract, a full barrier and a
/// wake-up check when the buffer is freed: sock_wfree), `local` as after it
/// (a plain count only the worker touches, no barrier).
enum class SendAccounting { local, atomic };
/// Where the receive path translates destination addresses: not at all,
/// ILA after the route lookup (a "translate" route, as a lightweight tunnel),
/// ILA before early demux, or NPTv6 (RFC 6296) after the route lookup.
enum class IlaMode { off, late, early, nptv6 };

/// 64 bits of an address in network byte order: an ILA locator, SIR prefix or identifier.
using Half64 = std::array<uint8_t, 8>;

/// One identifier-locator mapping ([[ila_map]]). The host's sockets use the
/// SIR address (sir_prefix:identifier); the wire carries the ILA address
/// (locator:identifier). Receive rewrites a destination whose upper half is
/// the match locator (any, when match_any) to the SIR prefix; send rewrites a
/// source sir_prefix:identifier to locator:identifier.
struct IlaMapConfig {
    Half64 identifier{};
    Half64 locator{};        ///< the locator on the wire (written on send)
    Half64 sir_prefix{};     ///< the SIR prefix the sockets see (written on receive)
    Half64 match{};          ///< receive matches this locator (default: `locator`)
    bool match_any = false;  ///< receive matches any locator for the identifier
    std::string port;        ///< receive matches only packets in on this port ("": any)
};

/// One NPTv6 prefix pair ([[nptv6]]): receive maps external -> internal
/// destinations, send maps internal -> external sources, checksum-neutrally.
struct Nptv6Config {
    Prefix6 external;
    Prefix6 internal;  ///< same length as external, at most 64
};

/// The source application: a UDP sender on the worker lcore, in one of the
/// four bind/connect combinations ([source] and [socket] in a scenario).
struct SourceConfig {
    bool enabled = false;
    Ip6Addr destination{};      ///< the first destination
    uint32_t destinations = 1;  ///< destination, destination + 1, ...
    uint16_t dst_port = 9;
    uint16_t src_port = 5000;  ///< local port of a bound socket (unbound: ephemeral)
    uint16_t payload = 18;     ///< UDP payload bytes
    double rate_pps = 0;       ///< datagrams a second; 0: as fast as the worker goes
    uint16_t batch = 32;       ///< datagrams per poll (one send_burst call, or that many sends)
    bool bind = false;         ///< bind to an address and port before sending
    bool connect = false;      ///< connect to the destination (one socket each)
    Ip6Addr bind_address{};    ///< all zero: the source address selected for the first destination
    uint8_t hop_limit = 64;    ///< socket options of its sockets
    uint8_t traffic_class = 0;
    uint32_t flow_label = 0;
};

enum class WorkloadKind { none, generator, pcap, tap, rr };

struct GeneratorConfig {
    std::string port;          ///< a "ring" port the generator feeds
    uint32_t flows = 64;       ///< distinct source addresses and ports
    uint16_t frame_size = 64;  ///< bytes per frame, at least the headers
    // Mix of traffic in percent; the rest of 100 is forwarded traffic.
    uint32_t sink_percent = 20;
    uint32_t echo_percent = 5;
    uint32_t malformed_percent = 5;
    uint64_t packets = 0;   ///< 0: as many as the run lasts
    Prefix6 source_prefix;  ///< sources of generated traffic (routed back via the port)
};

/// The request/response workload (workload.kind = "rr"), the engine's stand-in
/// for netperf TCP_RR: `streams` remote peers on a ring port, each with its own
/// source address and port, each sending one request and waiting for its
/// response (or its timeout) before the next.
struct RrConfig {
    std::string port;        ///< the "ring" port the peers are behind
    uint32_t streams = 200;  ///< concurrent streams, one flow each
    Ip6Addr server{};        ///< where requests go (need not be ours: ILA may translate it)
    uint16_t server_port = 7;
    uint16_t payload = 8;  ///< request bytes; the stream and sequence numbers ride in the first 8
    double timeout_s = 0.010;  ///< a request unanswered this long is sent again (rr_timeouts)
    Prefix6 source_prefix;     ///< the peers' addresses: prefix + stream + 1
};

struct PcapWorkloadConfig {
    std::string port;  ///< the port whose device becomes a net_pcap replay
    std::string file;
    bool infinite = false;
};

struct WorkloadConfig {
    WorkloadKind kind = WorkloadKind::none;
    GeneratorConfig generator;
    PcapWorkloadConfig pcap;
    RrConfig rr;
};

/// One value of a plugin stage's [stage.config] table: an integer (true and
/// false are 1 and 0) or text (an array of strings is joined by newlines).
/// The stage's own declaration says which keys it takes and their ranges.
struct StageSetting {
    std::string key;
    bool is_text = false;
    int64_t number = 0;
    std::string text;
};

/// A stage from a shared object ([[stage]] in a scenario, or run --stage
/// FILE.so:after=STAGE), spliced into the edge from `after` to `before`.
struct StageConfig {
    std::string plugin;  ///< the shared object's path
    std::string after;   ///< the stage whose edge it is spliced into
    std::string before;  ///< that edge's stage; "": `after`'s main (first) edge
    std::vector<StageSetting> config;
    /// Relative paths in the config are the stage's to open from here: the
    /// scenario's folder (the current one for --stage).
    std::string base_dir = ".";
    std::string origin;  ///< where it was asked for, for messages: "FILE:LINE", "--stage"
};

/// engine.workers at most: the design keeps every hot-path cache line
/// written by one worker, so this bound is only the size of fixed tables.
inline constexpr unsigned kMaxWorkers = 32;

struct EngineConfig {
    std::vector<std::string> eal_args{"--no-huge", "-m",          "1024",
                                      "--no-pci",  "--no-shconf", "-l",
                                      "0-1",       "--log-level", "lib.*:error"};
    uint16_t burst = 32;
    double duration_s = 2.0;
    uint32_t mbufs = 32767;
    std::vector<PortConfig> ports;
    std::vector<NexthopConfig> nexthops;
    std::vector<RouteConfig> routes;
    std::string routes_file;           ///< "PREFIX/LEN NEXTHOP" lines
    uint32_t routes_file_nexthop = 0;  ///< next hop for lines that name none
    /// Routes generated in memory (BGP-shaped, like `pathscope routes`) via
    /// routes_file_nexthop; 0: none.
    uint32_t routes_generate = 0;
    uint64_t routes_seed = 1;
    /// Policy rules besides Linux's defaults (0 local, 32766 main, 32767 default).
    std::vector<RuleConfig> rules;
    std::vector<AppConfig> apps;
    WorkloadConfig workload;
    uint32_t icmp_errors_per_s = 100;  ///< ICMPv6 port-unreachable rate limit
    SourceConfig source;
    /// Variants (see the enums above).
    bool route_cache = true;  ///< connected sockets keep their route (false: a FIB lookup a packet)
    SocketSend socket_send = SocketSend::single;
    IfaddrSync ifaddr_sync = IfaddrSync::rcu;
    TxqHash txq_hash = TxqHash::flow;
    SendAccounting send_accounting = SendAccounting::local;
    /// With no custom rule, look the main table up directly (on), or walk the
    /// default rules for every lookup (off: the code before the review).
    bool fib_rules_fast_path = true;
    /// Early demux: a UDP packet's connected socket found by its full 4-tuple
    /// before the route lookup, which a hit skips.
    bool early_demux = false;
    IlaMode ila = IlaMode::off;
    std::vector<IlaMapConfig> ila_map;
    std::vector<Nptv6Config> nptv6;
    /// Interface address changes a second made by a control thread during the
    /// run (an address added, an older one removed); 0: none.
    double ifaddr_churn_per_s = 0;
    /// Neighbour discovery: packets held per unresolved neighbour,
    /// solicitations sent before giving up, and the time between them.
    uint16_t nd_hold = 8;
    uint16_t nd_probes = 3;
    double nd_retrans_s = 1.0;
    /// A deliberate slowdown: busy work of this many TSC cycles per packet
    /// in ip6_input (a known regression, for testing a regression gate);
    /// 0: none, and the stage pays one branch a burst.
    uint32_t extra_work_cycles = 0;
    /// engine.timing: time one graph walk in this many ("every" = 1). The
    /// walks between are counted exactly and their cycles estimated at each
    /// stage's last timed rate, so the timing costs the worker 1/N of itself.
    uint32_t timing_period = 1;
    /// engine.interrupted_call_us: a timed call that took longer than this
    /// (in microseconds) was interrupted: the worker was preempted, or the
    /// hypervisor ran something else, in the middle of it. Its packets count;
    /// its cycles are estimated as an untimed walk's (the stage's recent
    /// cycles per packet), so that what the machine took from the worker does
    /// not land in a stage's cycles; the call and its wall cycles are counted
    /// apart. The engine's own calls take 0.3-50 us (a burst of 32 with a
    /// cache miss a packet); 0 keeps every call as timed.
    double interrupted_call_us = 20;
    /// engine.max_simd_bitwidth: the widest vector code DPDK's libraries may
    /// use (128, 256 or 512 bits; rte_fib6's AVX-512 lookup needs 512); 0:
    /// DPDK's own choice (its default, or the EAL's --force-max-simd-bitwidth).
    uint16_t max_simd_bitwidth = 0;
    /// Per-call cycle histograms beside the graph library's own node counters.
    /// Off: the worker uses rte_graph_walk as is (for measuring their cost).
    bool call_histograms = true;
    /// Worker lcores, each walking its own copy of the stage graph. Receive
    /// queues are spread over them (queue i of the polled ports, counted in
    /// port order, goes to worker i % workers); applications, the socket
    /// send stage and the neighbour timer run on worker 0. Every port that
    /// transmits needs at least `workers` tx queues (each worker sends on its own).
    unsigned workers = 1;
    /// Stages from shared objects, spliced into the path in this order
    /// (engine/plugins/; a plugin is code: the CLI loads only what the user allowed).
    std::vector<StageConfig> stages;
};

}  // namespace pathscope::engine
