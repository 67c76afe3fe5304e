#include "tests/bench/bench_workload.h"

#include <pcap/pcap.h>

#include <algorithm>
#include <random>
#include <stdexcept>

#include "engine/eal.h"
#include "workload/frame_builder.h"
#include "engine/routes.h"

namespace pathscope::bench {

using namespace engine;

// The same EAL arguments for the engine and for testpmd. --hugepages swaps
// --no-huge for hugetlbfs memory (pages must be reserved and mounted).
std::vector<std::string> kEal = {"--no-huge",   "-m",          "1024",       "--no-pci",
                                 "--no-shconf", "-l",          "0-1",        "--log-level",
                                 "lib.*:error", "--log-level", "pmd.*:error"};
namespace {
const MacAddr kInMac = {2, 0, 0, 0, 0, 1};
const std::string kRoutes = std::string(PATHSCOPE_SOURCE_DIR) + "/samples/routes-40k.txt";
}  // namespace

void use_hugepages() { kEal = with_hugepages(kEal); }

std::vector<std::string> eal_with_lcores(const std::string& option, const std::string& value) {
    std::vector<std::string> eal = kEal;
    const auto l = std::find(eal.begin(), eal.end(), "-l");
    if (l == eal.end() || l + 1 == eal.end())
        throw std::logic_error("bench: kEal has no '-l LIST' to replace");
    *l = option;
    *(l + 1) = value;
    return eal;
}

const std::string& routes_file() { return kRoutes; }

void write_pcap(const std::string& path, const std::vector<std::vector<uint8_t>>& frames) {
    pcap_t* dead = pcap_open_dead(DLT_EN10MB, 65535);
    pcap_dumper_t* d = pcap_dump_open(dead, path.c_str());
    if (!d) throw std::runtime_error(path + ": " + pcap_geterr(dead));
    for (const auto& f : frames) {
        pcap_pkthdr h{};
        h.caplen = h.len = static_cast<bpf_u_int32>(f.size());
        pcap_dump(reinterpret_cast<u_char*>(d), &h, f.data());
    }
    pcap_dump_close(d);
    pcap_close(dead);
}

std::vector<std::vector<uint8_t>> frames(bool forward) {
    const auto routes = read_route_file(kRoutes, 1);
    std::mt19937_64 rng(3);
    std::vector<std::vector<uint8_t>> out;
    for (unsigned i = 0; i < 1024; ++i) {
        FrameSpec s;
        s.dst_mac = kInMac;
        s.src = *parse_ip6("2001:db8:100::1");
        s.src[15] = static_cast<uint8_t>(i);
        s.src_port = static_cast<uint16_t>(1024 + i);
        if (forward) {
            const Prefix6& r = routes[rng() % routes.size()].prefix;
            s.dst = r.addr;
            s.dst[15] |= 1;
            s.dst_port = 4789;
        } else {
            s.dst = *parse_ip6("2001:db8:1::1");
            s.dst_port = 9;
        }
        out.push_back(udp6_frame(s));
    }
    return out;
}

EngineConfig bench_config(const std::string& pcap, double seconds, bool histograms) {
    EngineConfig c;
    c.eal_args = kEal;
    c.duration_s = seconds;
    c.call_histograms = histograms;
    PortConfig in;
    in.name = "in";
    in.mac = kInMac;
    in.addresses = {{*parse_ip6("2001:db8:1::1"), 64}};
    PortConfig out;
    out.name = "out";
    out.device = "net_null_bench0,no-rx=1";
    out.poll = false;
    out.mac = {2, 0, 0, 0, 0, 2};
    c.ports = {in, out};
    c.nexthops = {{1, "out", {2, 0, 0, 0, 0, 0xfe}}};
    c.routes_file = kRoutes;
    c.routes_file_nexthop = 1;
    c.apps = {{AppKind::sink, 9}};
    c.workload.kind = WorkloadKind::pcap;
    c.workload.pcap = {"in", pcap, true};
    return c;
}

}  // namespace pathscope::bench
