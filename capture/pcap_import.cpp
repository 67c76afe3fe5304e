#include "capture/pcap_import.h"

#include <pcap/dlt.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "capture/pcap_reader.h"
#include "capture/recorder.h"
#include "capture/snapshot_rows.h"
#include "db/schema.h"
#include "engine/eal.h"
#include "engine/engine.h"
#include "common/ip6_ext.h"
#include "engine/routes.h"

namespace pathscope::capture {

using namespace engine;
using analysis::Ip6ExtStop;
using analysis::Ip6ExtWalk;
using analysis::walk_ip6_ext;

namespace {

constexpr uint16_t kEthIpv6 = 0x86dd;
constexpr uint16_t kEthIpv4 = 0x0800;

/// Bytes to strip before the network layer, and the EtherType to put in
/// their place, for the link types that are not Ethernet; nullopt: refuse.
struct LinkAdapter {
    size_t strip = 0;
    bool ethernet = false;
};
std::optional<LinkAdapter> adapter_for(int dlt) {
    switch (dlt) {
        case DLT_EN10MB:
            return LinkAdapter{0, true};
        case DLT_RAW:
        case 14:
        case 229:  // LINKTYPE_IPV6
            return LinkAdapter{0, false};
        case DLT_NULL:
        case DLT_LOOP:
            return LinkAdapter{4, false};
        case DLT_LINUX_SLL:
            return LinkAdapter{16, false};
        case 276:
            return LinkAdapter{20, false};  // LINUX_SLL2
        default:
            return std::nullopt;
    }
}

/// What the summary counts a packet as: its upper-layer protocol, found by
/// a bounds-checked walk of the IPv6 extension headers.
struct Parsed {
    std::string proto = "other";
    std::string flow;  ///< "src dst proto sport dport"; empty when not IPv6
};

std::string hex_addr(const uint8_t* a) {
    Ip6Addr x;
    std::memcpy(x.data(), a, 16);
    return format_ip6(x);
}

Parsed classify(const uint8_t* p, size_t n) {
    Parsed out;
    if (n < 14) {
        out.proto = "runt";
        return out;
    }
    const uint16_t type = static_cast<uint16_t>(p[12] << 8 | p[13]);
    if (type == kEthIpv4) {
        out.proto = "ipv4";
        return out;
    }
    if (type != kEthIpv6) {
        out.proto = type == 0x0806 ? "arp" : "non-ip";
        return out;
    }
    p += 14;
    n -= 14;
    if (n < 40) {
        out.proto = "ipv6-truncated";
        return out;
    }
    if ((p[0] >> 4) != 6) {
        out.proto = "ipv6-bad-version";
        return out;
    }
    const std::string src = hex_addr(p + 8), dst = hex_addr(p + 24);
    // The engine's own walk: ip6_input names the same upper layer.
    const uint32_t plen = static_cast<uint32_t>(p[4] << 8 | p[5]);
    const uint32_t avail = static_cast<uint32_t>(n);
    const Ip6ExtWalk w = walk_ip6_ext(p, std::min(40 + plen, avail), avail);
    const uint8_t next = w.proto;
    const size_t off = w.off;
    uint16_t sport = 0, dport = 0;
    switch (w.stop) {
        case Ip6ExtStop::upper:
            out.proto = next == 17   ? "udp"
                        : next == 6  ? "tcp"
                        : next == 58 ? "icmpv6"
                        : next == 59 ? "ipv6-no-next"
                                     : "ipv6-proto-" + std::to_string(next);
            break;
        case Ip6ExtStop::fragment:
            out.proto = "ipv6-fragment";
            break;
        case Ip6ExtStop::hbh_not_first:
            out.proto = "ipv6-hbh-not-first";
            break;
        case Ip6ExtStop::truncated:
            out.proto = "ipv6-ext-truncated";
            break;
        case Ip6ExtStop::too_many:
            out.proto = "ipv6-ext-too-many";
            break;
    }
    if (w.stop == Ip6ExtStop::upper && (next == 17 || next == 6) && off + 4 <= n) {
        sport = static_cast<uint16_t>(p[off] << 8 | p[off + 1]);
        dport = static_cast<uint16_t>(p[off + 2] << 8 | p[off + 3]);
    }
    out.flow = src + " " + dst + " " + std::to_string(next) + " " + std::to_string(sport) + " " +
               std::to_string(dport);
    return out;
}

void check_link(const PcapReader& reader, const std::string& file) {
    if (!adapter_for(reader.link_type()))
        throw std::runtime_error(file + ": link type " + reader.link_name() + " (file header)" +
                                 " is not one pathscope can parse (Ethernet, raw IPv6, BSD "
                                 "loopback or Linux cooked)");
}

EngineConfig parser_config() {
    EngineConfig c;
    c.mbufs = 8191;
    PortConfig in;
    in.name = "capture";
    in.device = "ring";
    in.promiscuous = true;  // the frames were addressed to other hosts
    in.mac = {2, 0, 0, 0, 0, 1};
    PortConfig out;
    out.name = "out";
    out.device = "net_null_import" + std::to_string(getpid()) + ",no-rx=1";
    out.poll = false;
    out.mac = {2, 0, 0, 0, 0, 2};
    c.ports = {in, out};
    c.nexthops = {{1, "out", {2, 0, 0, 0, 0, 0xfe}}};
    c.routes = {{Prefix6{{}, 0}, 1}};  // a default route: well-formed packets are forwarded
    c.icmp_errors_per_s = 0;
    return c;
}

}  // namespace

std::vector<uint8_t> ethernet_frame(int dlt, const uint8_t* data, uint32_t cap_len) {
    const auto adapter = adapter_for(dlt);
    if (!adapter) return {};
    if (adapter->ethernet) return {data, data + cap_len};
    if (cap_len < adapter->strip) return {};
    const uint8_t* l3 = data + adapter->strip;
    // Raw and loopback captures say IPv4 or IPv6 by the version nibble.
    const uint16_t type = cap_len > adapter->strip && (l3[0] >> 4) == 4 ? kEthIpv4 : kEthIpv6;
    std::vector<uint8_t> frame = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 9,
                                  static_cast<uint8_t>(type >> 8), static_cast<uint8_t>(type)};
    frame.insert(frame.end(), l3, data + cap_len);
    return frame;
}

std::string frame_protocol(const uint8_t* frame, size_t n) { return classify(frame, n).proto; }

EngineConfig import_engine_config() { return parser_config(); }

CaptureFacts read_capture(const std::string& file, Engine& engine) {
    PcapReader reader(file);
    check_link(reader, file);
    uint64_t bytes = 0, cut_short = 0, too_big = 0, too_short = 0;
    std::map<std::string, uint64_t> protocols;
    std::set<std::string> flows;
    std::vector<uint8_t> frame;
    PcapReader::Packet p;
    unsigned pending = 0;
    while (reader.next(p)) {
        bytes += p.wire_len;
        if (p.cap_len < p.wire_len) ++cut_short;
        frame = ethernet_frame(reader.link_type(), p.data, p.cap_len);
        const Parsed parsed = classify(frame.data(), frame.size());
        protocols[parsed.proto]++;
        if (!parsed.flow.empty()) flows.insert(parsed.flow);
        if (frame.empty()) {  // shorter than its link-layer header
            ++too_short;
            continue;
        }
        if (frame.size() > engine.max_frame()) {  // a GSO super-frame: counted, not parsed
            ++too_big;
            continue;
        }
        while (!engine.inject("capture", frame.data(), frame.size())) engine.run_until_idle(4);
        if (++pending == 256) {
            engine.run_until_idle(4);
            pending = 0;
        }
    }
    engine.run_until_idle(64);
    if (reader.packets() == 0) throw std::runtime_error(file + ": capture holds no packets");

    CaptureFacts facts;
    auto fact = [&](const std::string& k, const std::string& v) { facts.emplace_back(k, v); };
    fact("pcap.file", std::filesystem::absolute(file).string());
    fact("pcap.link_type", reader.link_name());
    fact("pcap.packets", std::to_string(reader.packets()));
    fact("pcap.bytes", std::to_string(bytes));
    fact("pcap.flows", std::to_string(flows.size()));
    fact("pcap.cut_short", std::to_string(cut_short));
    // Frames the engine did not see, so that packets = received + these.
    fact("pcap.too_big_to_parse", std::to_string(too_big));
    fact("pcap.not_parsed_short", std::to_string(too_short));
    for (const auto& [proto, n] : protocols) fact("pcap.protocol." + proto, std::to_string(n));
    return facts;
}

db::RunData import_pcap(const std::string& file, const std::string& db_path,
                        const std::string& label) {
    {
        // A link type it cannot parse is refused before the engine starts.
        PcapReader reader(file);
        check_link(reader, file);
    }
    EngineConfig cfg = parser_config();
    eal_init(cfg.eal_args);
    Engine engine(cfg);
    CaptureFacts facts = read_capture(file, engine);

    RunResult r;
    r.snapshot = engine.snapshot();
    r.window_start = r.window_end = r.snapshot;
    db::Batch batch = trial_rows(0, r);
    // The walks that polled until the engine was idle are this loop's, not a
    // worker's waiting for traffic: an import has no worker to starve, so
    // they are not stored (its stage calls still count busy ones apart).
    for (auto& t : batch.trials) t.walks = t.idle_walks = 0;
    batch.facts.insert(batch.facts.end(), facts.begin(), facts.end());
    return store_import(db::kPcapImportKind, file, label, std::move(batch), db_path);
}

}  // namespace pathscope::capture
