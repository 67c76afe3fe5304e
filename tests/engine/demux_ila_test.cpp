// Early demux and address translation (engine.early_demux, engine.ila) on a
// real engine: a connected socket on the SIR address 2001:db8:5::1 port 7000,
// connected to the peer [2001:db8:100::5]:5555, which sends to the ILA
// address 2001:db8:ff::1 (locator 2001:db8:ff:0, identifier 0:0:0:1).
// Expected counts come from the frames the test sends; checksums are
// recomputed here over the bytes, with this file's own arithmetic.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "engine/dpdk.h"
#include "engine/engine.h"
#include "engine/packet_meta.h"
#include "engine/routes.h"
#include "engine/socket.h"
#include "tests/engine/eal_env.h"
#include "tests/support/setup_skip.h"

using namespace pathscope;
using namespace pathscope::engine;
using test::ip;
using Frame = std::vector<uint8_t>;

namespace {

constexpr uint16_t kSockPort = 7000, kPeerPort = 5555;
const char* kPeer = "2001:db8:100::5";
const char* kSir = "2001:db8:5::1";
const char* kIla = "2001:db8:ff::1";

/// The Internet checksum over the IPv6 pseudo header and a UDP datagram:
/// 0xffff when the datagram's checksum field is right. Written here, apart
/// from the engine's checksum code.
uint16_t udp_sum(const uint8_t* ip6, const uint8_t* udp, size_t udp_len) {
    uint64_t s = 0;
    auto add = [&](const uint8_t* p, size_t n) {
        for (size_t i = 0; i + 1 < n; i += 2) s += (uint32_t{p[i]} << 8) | p[i + 1];
        if (n % 2) s += uint32_t{p[n - 1]} << 8;
    };
    add(ip6 + 8, 32);  // source and destination
    s += udp_len;
    s += 17;
    add(udp, udp_len);
    while (s >> 16) s = (s & 0xffff) + (s >> 16);
    return static_cast<uint16_t>(s);
}

std::map<std::string, uint64_t> stage_packets(const EngineSnapshot& s) {
    std::map<std::string, uint64_t> m;
    for (const auto& st : s.stages) m[st.name] = st.packets;
    return m;
}

uint64_t event(const EngineSnapshot& s, PathEvent e) { return s.events[static_cast<unsigned>(e)]; }

IlaMapConfig ila_entry() {
    IlaMapConfig e;
    e.identifier = {0, 0, 0, 0, 0, 0, 0, 1};
    e.locator = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0xff, 0, 0};
    e.sir_prefix = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x05, 0, 0};
    e.match = e.locator;
    return e;
}

/// The address NPTv6 maps `ext` to under ext_prefix/48 -> int_prefix/48:
/// the prefix replaced and word 3 set so that the 16-bit one's-complement
/// sum of the address is unchanged (RFC 6296 3.2), computed here word by word.
Ip6Addr nptv6_expected(Ip6Addr a, const Ip6Addr& int_prefix) {
    auto sum = [](const Ip6Addr& x, int skip) {
        uint32_t s = 0;
        for (int w = 0; w < 8; ++w)
            if (w != skip) s += (uint32_t{x[2 * w]} << 8) | x[2 * w + 1];
        while (s >> 16) s = (s & 0xffff) + (s >> 16);
        return s;
    };
    const uint32_t before = sum(a, -1);
    for (int i = 0; i < 6; ++i) a[i] = int_prefix[i];
    uint32_t w3 = before + (0xffff - sum(a, 3));  // before - rest
    while (w3 >> 16) w3 = (w3 & 0xffff) + (w3 >> 16);
    if (w3 == 0xffff) w3 = 0;
    a[6] = static_cast<uint8_t>(w3 >> 8);
    a[7] = static_cast<uint8_t>(w3);
    return a;
}

/// What the socket saw of one datagram.
struct Seen {
    std::string payload;
    Ip6Addr from{}, to{};
    uint16_t from_port = 0;
    uint16_t checksum_field = 0;
    bool checksum_ok = false;
    bool operator==(const Seen&) const = default;
};

class DemuxIla : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { test::init_eal(); }
    void TearDown() override {
        sock.reset();
        eng.reset();
    }

    /// Starts an engine with the connected socket on `sock_addr`.
    void start(EngineConfig c, const char* sock_addr = kSir) {
        eng = std::make_unique<Engine>(c);
        sock = std::make_unique<UdpSocket>(eng->context());
        sock->set_reuse_addr(true);  // as a server's per-client sockets are
        ASSERT_EQ(sock->bind(ip(sock_addr), kSockPort), 0);
        ASSERT_EQ(sock->connect(ip(kPeer), kPeerPort), 0);
    }
    static EngineConfig config(bool demux, IlaMode ila, std::vector<Prefix6> extra = {}) {
        EngineConfig c = test::ring_config();
        c.ports[0].addresses.push_back({ip(kSir), 128});
        for (const auto& p : extra) c.ports[0].addresses.push_back(p);
        c.early_demux = demux;
        c.ila = ila;
        if (ila == IlaMode::late || ila == IlaMode::early) c.ila_map = {ila_entry()};
        return c;
    }
    Frame request(const char* dst, unsigned i, uint16_t src_port = kPeerPort) {
        FrameSpec s = test::from_peer(*eng, dst, kSockPort);
        s.src_port = src_port;
        s.payload = 12;
        Frame f = udp6_frame(s);
        char text[16];  // "requestNNNNN": the 12-byte payload, without its NUL
        snprintf(text, sizeof text, "request%05u", i % 100000);
        memcpy(&f[kEthLen + kIp6Len + kUdpLen], text, 12);
        fix_l4_checksum(f);
        return f;
    }
    std::vector<Seen> receive_all() {
        std::vector<Seen> out;
        rte_mbuf* m;
        SockAddr6 from;
        while (sock->recvfrom(&m, &from) == 0) {
            Seen s;
            s.payload.assign(rte_pktmbuf_mtod(m, const char*), rte_pktmbuf_data_len(m));
            s.from = from.addr;
            s.from_port = from.port;
            // The headers are still in front of the payload.
            const uint8_t* udp = rte_pktmbuf_mtod(m, const uint8_t*) - kUdpLen;
            const uint8_t* ip6 = udp - meta(m)->l4_off;
            memcpy(s.to.data(), ip6 + 24, 16);
            s.checksum_field = static_cast<uint16_t>(udp[6] << 8 | udp[7]);
            s.checksum_ok = udp_sum(ip6, udp, kUdpLen + rte_pktmbuf_data_len(m)) == 0xffff;
            out.push_back(s);
            rte_pktmbuf_free(m);
        }
        return out;
    }
    void send_replies(unsigned n) {
        for (unsigned i = 0; i < n; ++i) {
            rte_mbuf* m = rte_pktmbuf_alloc(eng->pool());
            ASSERT_NE(m, nullptr);
            char text[16];  // "replyNNNN" and its NUL: the 10-byte payload
            snprintf(text, sizeof text, "reply%04u", i % 10000);
            memcpy(rte_pktmbuf_append(m, 10), text, 10);
            ASSERT_EQ(sock->send(m), 0);
        }
        eng->run_until_idle();
    }

    std::unique_ptr<Engine> eng;
    std::unique_ptr<UdpSocket> sock;
};

TEST_F(DemuxIla, EarlyDemuxHitsConnectedSocketsAndSkipsTheLookup) {
    const unsigned kToSocket = 40, kOtherAddress = 7, kOtherPeerPort = 5, kPing = 3;
    for (const bool demux : {false, true}) {
        SCOPED_TRACE(demux ? "early_demux on" : "early_demux off");
        start(config(demux, IlaMode::off));
        std::vector<Frame> frames;
        for (unsigned i = 0; i < kToSocket; ++i) frames.push_back(request(kSir, i));
        // To another of our addresses: the 4-tuple matches, the local address does not.
        for (unsigned i = 0; i < kOtherAddress; ++i) frames.push_back(request("2001:db8:1::1", i));
        // From another port of the peer: not the connection (the bound port takes it).
        for (unsigned i = 0; i < kOtherPeerPort; ++i) frames.push_back(request(kSir, i, 4444));
        for (unsigned i = 0; i < kPing; ++i)
            frames.push_back(icmp6_frame(test::from_peer(*eng, kSir), 128, 0, {0, 1, 0, 1}));
        test::inject(*eng, "wire", frames);
        eng->run_until_idle();
        const EngineSnapshot s = eng->snapshot();
        auto st = stage_packets(s);
        const uint64_t total = frames.size();
        const uint64_t hits = demux ? kToSocket : 0;
        EXPECT_EQ(event(s, PathEvent::demux_hits), hits);
        EXPECT_EQ(event(s, PathEvent::demux_misses), demux ? kOtherAddress + kOtherPeerPort : 0u);
        EXPECT_EQ(st["early_demux"], demux ? total : 0u);
        EXPECT_EQ(st["ip6_lookup"], total - hits);
        EXPECT_EQ(st["ip6_local"], total - hits);
        EXPECT_EQ(st["udp6_input"], kToSocket + kOtherAddress + kOtherPeerPort);
        EXPECT_EQ(s.ledger.delivered, kToSocket + kOtherAddress + kOtherPeerPort);
        EXPECT_EQ(s.ledger.replied, kPing);
        const auto seen = receive_all();
        ASSERT_EQ(seen.size(), kToSocket + kOtherAddress + kOtherPeerPort);
        for (unsigned i = 0; i < kToSocket; ++i) {
            EXPECT_EQ(seen[i].payload, "request" + std::string(5 - std::to_string(i).size(), '0') +
                                           std::to_string(i));
            EXPECT_EQ(seen[i].to, ip(kSir));
            EXPECT_TRUE(seen[i].checksum_ok);
        }
        TearDown();
    }
}

TEST_F(DemuxIla, RoutesChangedSinceConnectMissUntilReconnected) {
    start(config(true, IlaMode::off));
    ++eng->context().route_generation;  // the socket's cached route is now stale
    test::inject(*eng, "wire", {request(kSir, 0)});
    eng->run_until_idle();
    const EngineSnapshot s = eng->snapshot();
    EXPECT_EQ(event(s, PathEvent::demux_hits), 0u);
    EXPECT_EQ(event(s, PathEvent::demux_misses), 1u);
    EXPECT_EQ(s.ledger.delivered, 1u);
}

/// Early translation lets demux hit; late translation comes after demux
/// missed and the lookup ran; both deliver the same datagrams, translated,
/// with valid checksums, and translate the replies back.
TEST_F(DemuxIla, EarlyTranslationHitsDemuxLateMissesAndBothDeliverTheSame) {
    const unsigned kN = 50;
    std::map<IlaMode, std::vector<Seen>> delivered;
    for (const IlaMode mode : {IlaMode::early, IlaMode::late}) {
        const bool early = mode == IlaMode::early;
        SCOPED_TRACE(early ? "ila early" : "ila late");
        start(config(true, mode));
        std::vector<Frame> frames;
        for (unsigned i = 0; i < kN; ++i) frames.push_back(request(kIla, i));
        test::inject(*eng, "wire", frames);
        eng->run_until_idle();
        EngineSnapshot s = eng->snapshot();
        auto st = stage_packets(s);
        EXPECT_EQ(event(s, PathEvent::ila_translations), kN);
        EXPECT_EQ(event(s, PathEvent::demux_hits), early ? kN : 0u);
        EXPECT_EQ(event(s, PathEvent::demux_misses), early ? 0u : kN);
        EXPECT_EQ(st["ila_early"], early ? kN : 0u);
        EXPECT_EQ(st["ila_late"], early ? 0u : kN);
        EXPECT_EQ(st["ip6_lookup"], early ? 0u : kN);
        EXPECT_EQ(st["ip6_local"], early ? 0u : kN);
        EXPECT_EQ(s.ledger.delivered, kN);
        delivered[mode] = receive_all();
        ASSERT_EQ(delivered[mode].size(), kN);
        for (const Seen& d : delivered[mode]) {
            EXPECT_EQ(d.to, ip(kSir));  // the socket sees its SIR address
            EXPECT_EQ(d.from, ip(kPeer));
            EXPECT_EQ(d.from_port, kPeerPort);
            EXPECT_TRUE(d.checksum_ok);
        }

        // Replies leave from the ILA address, with checksums valid for it.
        send_replies(kN);
        const auto out = test::collect(*eng, "wire");
        ASSERT_EQ(out.size(), kN);
        for (const Frame& f : out) {
            const uint8_t* ip6 = f.data() + kEthLen;
            EXPECT_EQ(0, memcmp(ip6 + 8, ip(kIla).data(), 16));
            EXPECT_EQ(0, memcmp(ip6 + 24, ip(kPeer).data(), 16));
            EXPECT_EQ(udp_sum(ip6, ip6 + kIp6Len, f.size() - kEthLen - kIp6Len), 0xffff);
        }
        s = eng->snapshot();
        EXPECT_EQ(event(s, PathEvent::ila_translations), 2 * kN);
        TearDown();
    }
    EXPECT_EQ(delivered[IlaMode::early], delivered[IlaMode::late]);
}

TEST_F(DemuxIla, WithoutDemuxEarlyTranslationStillDelivers) {
    start(config(false, IlaMode::early));
    test::inject(*eng, "wire", {request(kIla, 0), request(kSir, 1)});
    eng->run_until_idle();
    const EngineSnapshot s = eng->snapshot();
    EXPECT_EQ(event(s, PathEvent::ila_translations),
              1u);  // the SIR address has no mapping to apply
    EXPECT_EQ(event(s, PathEvent::demux_hits) + event(s, PathEvent::demux_misses), 0u);
    EXPECT_EQ(stage_packets(s)["ip6_lookup"], 2u);
    EXPECT_EQ(s.ledger.delivered, 2u);
}

TEST_F(DemuxIla, MostSpecificIlaMappingWins) {
    EngineConfig c = config(true, IlaMode::early);
    // Any locator on any port -> 2001:db8:7:0 (no such address: the packet
    // would be answered as unreachable); this locator on the wire port -> the SIR.
    IlaMapConfig any = ila_entry();
    any.match_any = true;
    any.sir_prefix = {0x20, 0x01, 0x0d, 0xb8, 0, 7, 0, 0};
    IlaMapConfig on_port = ila_entry();
    on_port.port = "wire";
    c.ila_map = {any, on_port};
    start(c);
    test::inject(*eng, "wire", {request(kIla, 0), request("2001:db8:ee::1", 1)});
    eng->run_until_idle();
    const EngineSnapshot s = eng->snapshot();
    EXPECT_EQ(event(s, PathEvent::ila_translations), 2u);
    EXPECT_EQ(event(s, PathEvent::demux_hits), 1u);  // the specific one, to the SIR address
    const auto seen = receive_all();
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].payload, "request00000");
    EXPECT_EQ(s.ledger.drops[static_cast<unsigned>(DropReason::ip6_no_route)],
              1u);  // 2001:db8:7::1
}

TEST_F(DemuxIla, Nptv6KeepsTheChecksumFieldByConstruction) {
    const Ip6Addr internal = nptv6_expected(ip(kIla), ip("2001:db8:5::"));
    ASSERT_NE(internal, ip(kIla));
    EngineConfig c = config(true, IlaMode::nptv6, {{internal, 128}});
    c.nptv6 = {{*parse_prefix6("2001:db8:ff::/48"), *parse_prefix6("2001:db8:5::/48")}};
    start(c, format_ip6(internal).c_str());
    const unsigned kN = 20;
    std::vector<Frame> frames;
    std::vector<uint16_t> sent_checksums;
    for (unsigned i = 0; i < kN; ++i) {
        frames.push_back(request(kIla, i));
        const uint8_t* udp = frames.back().data() + kEthLen + kIp6Len;
        sent_checksums.push_back(static_cast<uint16_t>(udp[6] << 8 | udp[7]));
    }
    test::inject(*eng, "wire", frames);
    eng->run_until_idle();
    EngineSnapshot s = eng->snapshot();
    EXPECT_EQ(event(s, PathEvent::nptv6_translations), kN);
    EXPECT_EQ(event(s, PathEvent::ila_translations), 0u);
    EXPECT_EQ(event(s, PathEvent::demux_misses), kN);  // late: after the lookup
    EXPECT_EQ(stage_packets(s)["ila_late"], kN);
    const auto seen = receive_all();
    ASSERT_EQ(seen.size(), kN);
    for (unsigned i = 0; i < kN; ++i) {
        EXPECT_EQ(seen[i].to, internal);
        EXPECT_EQ(seen[i].checksum_field, sent_checksums[i]);  // unchanged
        EXPECT_TRUE(seen[i].checksum_ok);                      // and still right
    }
    send_replies(kN);
    const auto out = test::collect(*eng, "wire");
    ASSERT_EQ(out.size(), kN);
    for (const Frame& f : out) {
        const uint8_t* ip6 = f.data() + kEthLen;
        EXPECT_EQ(0, memcmp(ip6 + 8, ip(kIla).data(), 16));
        EXPECT_EQ(udp_sum(ip6, ip6 + kIp6Len, f.size() - kEthLen - kIp6Len), 0xffff);
    }
    s = eng->snapshot();
    EXPECT_EQ(event(s, PathEvent::nptv6_translations), 2 * kN);
}

/// On the wire, read by tshark: replies from the ILA address to the peer,
/// with Wireshark's checksum check passing, in both translation positions.
TEST_F(DemuxIla, TsharkSeesTranslatedRepliesWithGoodChecksums) {
    if (system("command -v tshark >/dev/null 2>&1") != 0)
        PATHSCOPE_SKIP_UNLESS_SETUP("tshark is not installed");
    for (const IlaMode mode : {IlaMode::early, IlaMode::late}) {
        const std::string pcap = std::filesystem::temp_directory_path() /
                                 ("pathscope_ila_" + std::to_string(getpid()) + ".pcap");
        std::filesystem::remove(pcap);
        EngineConfig c = config(true, mode);
        c.ports.push_back(test::port(
            "tx", "net_pcap_ila" + std::to_string(static_cast<int>(mode)) + ",tx_pcap=" + pcap,
            {2, 0, 0, 0, 0, 4}, {{ip("2001:db8:4::1"), 64}}));
        c.ports.back().poll = false;
        c.ports.back().rx_queues = 0;
        c.nexthops[1].port = "tx";  // the peers are reached through the pcap port
        start(c);
        test::inject(*eng, "wire", {request(kIla, 0), request(kIla, 1), request(kIla, 2)});
        eng->run_until_idle();
        ASSERT_EQ(receive_all().size(), 3u);
        send_replies(3);
        TearDown();  // closes the port: the file is complete
        const std::string cmd = "tshark -r " + pcap +
                                " -o udp.check_checksum:TRUE -T fields -e ipv6.src -e ipv6.dst "
                                "-e udp.srcport -e udp.checksum.status 2>/dev/null";
        FILE* p = popen(cmd.c_str(), "r");
        ASSERT_NE(p, nullptr);
        std::string text;
        char buf[512];
        while (fgets(buf, sizeof buf, p)) text += buf;
        pclose(p);
        std::filesystem::remove(pcap);
        const std::string line = std::string(kIla) + "\t" + kPeer + "\t7000\t1\n";
        EXPECT_EQ(text, line + line + line) << (mode == IlaMode::early ? "early" : "late");
    }
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
