// Early demux and translation position (engine.early_demux, engine.ila), as
// the Linux ILA review measured them: 200 clients each talk to their own
// connected server socket (bound to the SIR address [2001:db8:5::1]:7000
// with SO_REUSEADDR, connected to the client), which echoes every request.
// The FIB holds 40,000 generated routes. Requests go to the SIR address
// (no translation) or to the ILA address 2001:db8:ff::1 (translated late,
// after the route lookup, or early, before demux), or to an NPTv6 external
// address. The engine runs on this thread (Engine::poll), so the figures
// are the stages' own cycles, without a second lcore competing.
//
//   bench_demux [--packets N] [--rounds R] [--min 1]
//
// Prints, per variant, cycles per request of ip6_lookup, of the receive
// path (eth_rx .. udp6_input), and of the whole path (every stage, the
// replies' send path included), the median (or least) over R rounds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/dpdk.h"
#include "engine/eal.h"
#include "engine/engine.h"
#include "workload/frame_builder.h"
#include "engine/routes.h"
#include "engine/socket.h"

using namespace pathscope;
using namespace pathscope::engine;

namespace {

constexpr unsigned kClients = 200;
constexpr uint16_t kServerPort = 7000;

struct Variant {
    const char* name;
    bool demux;
    IlaMode ila;
    const char* dst;  ///< where the clients send
};

Ip6Addr client(unsigned i) {
    Ip6Addr a = *parse_ip6("2001:db8:100::");
    a[14] = static_cast<uint8_t>((i + 1) >> 8);
    a[15] = static_cast<uint8_t>(i + 1);
    return a;
}

EngineConfig config(const Variant& v, const Ip6Addr& nptv6_internal) {
    EngineConfig c;
    c.mbufs = 16383;
    c.icmp_errors_per_s = 0;
    PortConfig wire;
    wire.name = "wire";
    wire.mac = {2, 0, 0, 0, 0, 1};
    wire.addresses = {{*parse_ip6("2001:db8:1::1"), 64},
                      {*parse_ip6("2001:db8:5::1"), 128},
                      {nptv6_internal, 128}};
    c.ports = {wire};
    c.nexthops = {{1, "wire", {2, 0, 0, 0, 0, 0x10}}};
    c.routes = {{*parse_prefix6("2001:db8:100::/48"), 1}};
    c.routes_generate = 40000;
    c.routes_file_nexthop = 1;
    c.early_demux = v.demux;
    c.ila = v.ila;
    IlaMapConfig e;
    e.identifier = {0, 0, 0, 0, 0, 0, 0, 1};
    e.locator = e.match = {0x20, 0x01, 0x0d, 0xb8, 0, 0xff, 0, 0};
    e.sir_prefix = {0x20, 0x01, 0x0d, 0xb8, 0, 5, 0, 0};
    if (v.ila == IlaMode::late || v.ila == IlaMode::early) c.ila_map = {e};
    if (v.ila == IlaMode::nptv6)
        c.nptv6 = {{*parse_prefix6("2001:db8:ee::/48"), *parse_prefix6("2001:db8:5::/48")}};
    return c;
}

struct Figures {
    double lookup, demux, xlat, local, receive, whole;
    double ip6_input, udp6_input, udp6_output;
    uint64_t hits, translations;
};

Figures run(const Variant& v, uint64_t packets) {
    // The NPTv6 internal address of the external 2001:db8:ee::1: found by
    // translating it once with the engine's own table (the tests check it).
    Nptv6Table t;
    t.add(*parse_prefix6("2001:db8:ee::/48"), *parse_prefix6("2001:db8:5::/48"));
    Ip6Addr internal = *parse_ip6("2001:db8:ee::1");
    t.rx(internal.data());
    const bool nptv6 = v.ila == IlaMode::nptv6;

    Engine eng(config(v, internal));
    std::vector<std::unique_ptr<UdpSocket>> socks;
    for (unsigned i = 0; i < kClients; ++i) {
        auto s = std::make_unique<UdpSocket>(eng.context());
        s->set_reuse_addr(true);
        if (s->bind(nptv6 ? internal : *parse_ip6("2001:db8:5::1"), kServerPort) != 0 ||
            s->connect(client(i), 5555) != 0) {
            std::fprintf(stderr, "socket setup failed\n");
            std::exit(1);
        }
        socks.push_back(std::move(s));
    }
    std::vector<std::vector<uint8_t>> frames;
    for (unsigned i = 0; i < kClients; ++i) {
        FrameSpec s;
        memcpy(s.dst_mac.data(), eng.context().ports[eng.port_id("wire")].mac.addr_bytes, 6);
        s.src = client(i);
        s.dst = *parse_ip6(v.dst);
        s.src_port = 5555;
        s.dst_port = kServerPort;
        s.payload = 18;
        frames.push_back(udp6_frame(s));
    }
    const RingPort& rp = eng.ring_port("wire");
    rte_mbuf* m[64];
    auto drain = [&] {
        for (auto& s : socks) {
            const unsigned n = s->recv_burst(m, 64);
            if (n) s->send_burst(m, n);  // echo on the connected socket
        }
        void* out[64];
        unsigned got;
        while ((got = rte_ring_dequeue_burst(rp.tx[0], out, 64, nullptr)) != 0)
            rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(out), got);
    };
    uint64_t sent = 0;
    unsigned next = 0;
    while (sent < packets) {
        for (unsigned b = 0; b < 32; ++b, ++sent) {
            const auto& f = frames[next];
            next = (next + 1) % kClients;
            while (!eng.inject("wire", f.data(), f.size())) eng.poll(), drain();
        }
        eng.poll();
        drain();
    }
    eng.run_until_idle();
    drain();
    eng.run_until_idle();
    drain();
    const EngineSnapshot s = eng.snapshot(false);
    const double rx = static_cast<double>(s.ledger.received);
    Figures f{};
    static const std::vector<std::string> receive_path = {"eth_rx",    "eth_input",   "ip6_input",
                                                          "ila_early", "early_demux", "ip6_lookup",
                                                          "ila_late",  "ip6_local",   "udp6_input"};
    for (const auto& st : s.stages) {
        const double busy = static_cast<double>(st.cycles - st.idle_cycles);
        if (st.name == "ip6_lookup") f.lookup = busy / rx;
        if (st.name == "early_demux") f.demux = busy / rx;
        if (st.name == "ila_early" || st.name == "ila_late") f.xlat += busy / rx;
        if (st.name == "ip6_local") f.local = busy / rx;
        if (st.name == "ip6_input") f.ip6_input = busy / rx;
        if (st.name == "udp6_input") f.udp6_input = busy / rx;
        if (st.name == "udp6_output") f.udp6_output = busy / rx;
        if (std::find(receive_path.begin(), receive_path.end(), st.name) != receive_path.end())
            f.receive += busy / rx;
        f.whole += busy / rx;
    }
    f.hits = s.events[static_cast<unsigned>(PathEvent::demux_hits)];
    f.translations = s.events[static_cast<unsigned>(PathEvent::ila_translations)] +
                     s.events[static_cast<unsigned>(PathEvent::nptv6_translations)];
    if (s.ledger.delivered != s.ledger.received || !s.ledger.balanced())
        std::fprintf(stderr, "warning: %s delivered %lu of %lu\n", v.name,
                     static_cast<unsigned long>(s.ledger.delivered),
                     static_cast<unsigned long>(s.ledger.received));
    socks.clear();
    return f;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    uint64_t packets = 400000;
    unsigned rounds = 5;
    bool use_min =
        false;  // --min: the least of the rounds (on a loaded machine, the least disturbed)
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--packets")) packets = std::strtoull(argv[i + 1], nullptr, 10);
        if (!strcmp(argv[i], "--rounds")) rounds = static_cast<unsigned>(std::atoi(argv[i + 1]));
        if (!strcmp(argv[i], "--min")) use_min = strcmp(argv[i + 1], "0") != 0;
    }
    eal_init({"--no-huge", "-m", "1024", "--no-pci", "--no-shconf", "-l", "0-1", "--log-level",
              "lib.*:error", "--log-level", "pmd.*:error"});
    const Variant variants[] = {
        {"demux off, no translation", false, IlaMode::off, "2001:db8:5::1"},
        {"demux on,  no translation", true, IlaMode::off, "2001:db8:5::1"},
        {"demux on,  ila late", true, IlaMode::late, "2001:db8:ff::1"},
        {"demux on,  ila early", true, IlaMode::early, "2001:db8:ff::1"},
        {"demux on,  nptv6 (late)", true, IlaMode::nptv6, "2001:db8:ee::1"},
        {"demux off, ila late", false, IlaMode::late, "2001:db8:ff::1"},
        {"demux off, ila early", false, IlaMode::early, "2001:db8:ff::1"},
    };
    std::map<const char*, std::vector<Figures>> all;
    for (unsigned r = 0; r < rounds; ++r)  // rounds interleaved, so that drift hits every variant
        for (const auto& v : variants) all[v.name].push_back(run(v, packets));
    std::printf("%u clients, %lu requests a round, %s of %u rounds (cycles per request)\n",
                kClients, static_cast<unsigned long>(packets), use_min ? "least" : "median",
                rounds);
    std::printf("%-27s %10s %11s %9s %9s %12s %10s %10s %12s\n", "variant", "ip6_lookup",
                "early_demux", "ila_stage", "ip6_local", "receive path", "whole path", "demux hits",
                "translations");
    for (const auto& v : variants) {
        auto med = [&](double Figures::*field) {
            std::vector<double> x;
            for (const auto& f : all[v.name]) x.push_back(f.*field);
            return use_min ? *std::min_element(x.begin(), x.end()) : median(x);
        };
        const Figures& last = all[v.name].back();
        std::printf("%-27s %10.1f %11.1f %9.1f %9.1f %12.1f %10.1f %10lu %12lu\n", v.name,
                    med(&Figures::lookup), med(&Figures::demux), med(&Figures::xlat),
                    med(&Figures::local), med(&Figures::receive), med(&Figures::whole),
                    static_cast<unsigned long>(last.hits),
                    static_cast<unsigned long>(last.translations));
    }
    std::printf("\n%-27s %10s %11s %12s\n", "variant", "ip6_input", "udp6_input", "udp6_output");
    for (const auto& v : variants) {
        auto med = [&](double Figures::*field) {
            std::vector<double> x;
            for (const auto& f : all[v.name]) x.push_back(f.*field);
            return use_min ? *std::min_element(x.begin(), x.end()) : median(x);
        };
        std::printf("%-27s %10.1f %11.1f %12.1f\n", v.name, med(&Figures::ip6_input),
                    med(&Figures::udp6_input), med(&Figures::udp6_output));
    }
    return 0;
}
