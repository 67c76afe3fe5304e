// One crafted packet for each drop reason: each must end in its own counter,
// and nowhere else, with the receive ledger balanced after every packet.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <set>

#include "engine/dpdk.h"
#include "engine/engine.h"
#include "engine/routes.h"
#include "engine/socket.h"
#include "tests/engine/eal_env.h"

using namespace pathscope;
using namespace pathscope::engine;
using test::from_peer;
using test::ip;
using Frame = std::vector<uint8_t>;

namespace {

void set_plen(Frame& f) {
    const uint16_t plen = static_cast<uint16_t>(f.size() - kEthLen - kIp6Len);
    f[18] = static_cast<uint8_t>(plen >> 8);
    f[19] = static_cast<uint8_t>(plen);
}

/// Inserts extension headers (each 8 bytes, next-header chained) before the upper layer.
Frame with_ext(Frame f, const std::vector<uint8_t>& kinds) {
    const uint8_t upper = f[20];
    std::vector<uint8_t> ext;
    for (size_t i = 0; i < kinds.size(); ++i) {
        const uint8_t next = i + 1 < kinds.size() ? kinds[i + 1] : upper;
        const uint8_t h[8] = {next, 0, 1, 4, 0, 0, 0, 0};  // PadN option filling the header
        ext.insert(ext.end(), h, h + 8);
    }
    f[20] = kinds[0];
    f.insert(f.begin() + kEthLen + kIp6Len, ext.begin(), ext.end());
    set_plen(f);
    return f;
}

class DropReasons : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { test::init_eal(); }
    void SetUp() override { eng = std::make_unique<Engine>(test::ring_config()); }
    void TearDown() override { eng.reset(); }

    /// Sends one frame and checks that exactly `reason` went up by one.
    void expect_drop(const Frame& f, DropReason reason) {
        const Ledger before = eng->snapshot().ledger;
        test::inject(*eng, "wire", {f});
        eng->run_until_idle();
        const Ledger after = eng->snapshot().ledger;
        EXPECT_EQ(after.received, before.received + 1);
        for (unsigned r = 0; r < kDropReasonCount; ++r)
            EXPECT_EQ(after.drops[r] - before.drops[r],
                      r == static_cast<unsigned>(reason) ? 1u : 0u)
                << "counter " << kDropReasonNames[r] << " while expecting "
                << drop_reason_name(reason);
        EXPECT_TRUE(after.balanced());
        covered.insert(reason);
    }

  public:
    /// The reasons produced so far in this process (read by main).
    static std::set<DropReason> covered;

  protected:
    std::unique_ptr<Engine> eng;
};
std::set<DropReason> DropReasons::covered;

TEST_F(DropReasons, Ethernet) {
    Frame ok = udp6_frame(from_peer(*eng, "2001:db8:1::1"));
    expect_drop(Frame(ok.begin(), ok.begin() + 10), DropReason::eth_short);
    Frame other = ok;
    other[0] = 0x04;  // another host's unicast MAC
    expect_drop(other, DropReason::eth_not_for_us);
    Frame ip4 = ok;
    ip4[12] = 0x08, ip4[13] = 0x00;
    expect_drop(ip4, DropReason::eth_unknown_type);
}

// A frame whose length is more than its segments hold, as DPDK 22.11's
// net_pcap gives a frame over 64 KiB: dropped by name before any stage
// reads past its buffers (a forwarded one crashed whoever read it).
TEST_F(DropReasons, LengthNotWhatTheSegmentsHold) {
    Frame f = udp6_frame(from_peer(*eng, "2001:db8:1::1"));
    f.resize(5000, 0);
    const Ledger before = eng->snapshot().ledger;
    test::inject_segments(*eng, "wire", f, 2048, 5000 + 65536);
    eng->run_until_idle();
    const Ledger after = eng->snapshot().ledger;
    EXPECT_EQ(after.received, before.received + 1);
    EXPECT_EQ(after.drops[static_cast<unsigned>(DropReason::eth_bad_length)],
              before.drops[static_cast<unsigned>(DropReason::eth_bad_length)] + 1);
    EXPECT_TRUE(after.balanced());
    covered.insert(DropReason::eth_bad_length);
}

TEST_F(DropReasons, Ip6Header) {
    Frame ok = udp6_frame(from_peer(*eng, "2001:db8:1::1"));
    expect_drop(Frame(ok.begin(), ok.begin() + kEthLen + 20), DropReason::ip6_short);
    Frame v4 = ok;
    v4[14] = 0x45;
    expect_drop(v4, DropReason::ip6_bad_version);
    Frame trunc = ok;
    trunc[19] += 40;
    expect_drop(trunc, DropReason::ip6_truncated);
    Frame jumbo = with_ext(ok, {0});
    jumbo[18] = jumbo[19] = 0;
    expect_drop(jumbo, DropReason::ip6_jumbogram);
    Frame mcast_src = ok;
    mcast_src[22] = 0xff;
    expect_drop(mcast_src, DropReason::ip6_bad_source);
}

TEST_F(DropReasons, ExtensionHeaders) {
    Frame ok = udp6_frame(from_peer(*eng, "2001:db8:1::1"));
    expect_drop(with_ext(ok, {60, 0}), DropReason::ip6_hbh_not_first);
    Frame cut = with_ext(ok, {60});
    cut[kEthLen + kIp6Len + 1] = 20;  // claims 168 bytes
    expect_drop(cut, DropReason::ip6_ext_truncated);
    expect_drop(with_ext(ok, std::vector<uint8_t>(9, 60)), DropReason::ip6_ext_too_many);
    expect_drop(with_ext(ok, {44}), DropReason::ip6_fragment);
}

TEST_F(DropReasons, LookupAndForward) {
    expect_drop(udp6_frame(from_peer(*eng, "3fff::1")), DropReason::ip6_no_route);
    expect_drop(udp6_frame(from_peer(*eng, "ff02::2")), DropReason::ip6_mcast_not_joined);
    FrameSpec s = from_peer(*eng, "2001:db8:aaaa::1");
    s.hop_limit = 1;
    expect_drop(udp6_frame(s), DropReason::ip6_hop_limit);
    Frame tcp = udp6_frame(from_peer(*eng, "2001:db8:1::1"));
    tcp[20] = 6;
    expect_drop(tcp, DropReason::ip6_unknown_proto);
}

TEST_F(DropReasons, Icmp6) {
    FrameSpec s = from_peer(*eng, "2001:db8:1::1");
    Frame echo = icmp6_frame(s, 128, 0, {0, 1, 0, 1});
    Frame tiny(echo.begin(), echo.begin() + kEthLen + kIp6Len + 2);
    set_plen(tiny);
    expect_drop(tiny, DropReason::icmp6_short);
    Frame bad = echo;
    bad[kEthLen + kIp6Len + 2] ^= 0xff;
    expect_drop(bad, DropReason::icmp6_bad_checksum);
    expect_drop(icmp6_frame(s, 134, 0, std::vector<uint8_t>(12, 0)), DropReason::icmp6_unhandled);
    s.hop_limit = 255;
    std::vector<uint8_t> ns(20, 0);
    const Ip6Addr other = ip("2001:db8:1::77");
    memcpy(ns.data() + 4, other.data(), 16);
    expect_drop(icmp6_frame(s, 135, 0, ns), DropReason::icmp6_ns_invalid);
}

TEST_F(DropReasons, Udp) {
    Frame ok = udp6_frame(from_peer(*eng, "2001:db8:1::1"));
    Frame short_udp(ok.begin(), ok.begin() + kEthLen + kIp6Len + 4);
    set_plen(short_udp);
    expect_drop(short_udp, DropReason::udp_short);
    Frame len = ok;
    len[kEthLen + kIp6Len + 5] = 100;
    expect_drop(len, DropReason::udp_bad_length);
    Frame sum = ok;
    sum[kEthLen + kIp6Len + 6] ^= 0x11;
    expect_drop(sum, DropReason::udp_bad_checksum);
    Frame zero = ok;
    zero[kEthLen + kIp6Len + 6] = zero[kEthLen + kIp6Len + 7] = 0;
    expect_drop(zero, DropReason::udp_bad_checksum);
    expect_drop(udp6_frame(from_peer(*eng, "2001:db8:1::1", 4444)), DropReason::udp_no_socket);
}

TEST_F(DropReasons, Translation) {
    // ILA late: the locator 2001:db8:ff::/64 routes to translate; identifier
    // 0:0:0:1 maps to the SIR address 2001:db8:1::1, 0:0:0:3 to 3fff::3 (no route).
    EngineConfig c = test::ring_config();
    c.ila = IlaMode::late;
    IlaMapConfig e;
    e.identifier = {0, 0, 0, 0, 0, 0, 0, 1};
    e.locator = e.match = {0x20, 0x01, 0x0d, 0xb8, 0, 0xff, 0, 0};
    e.sir_prefix = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0};
    IlaMapConfig lost = e;
    lost.identifier[7] = 3;
    lost.sir_prefix = {0x3f, 0xff, 0, 0, 0, 0, 0, 0};
    c.ila_map = {e, lost};
    eng = std::make_unique<Engine>(c);
    expect_drop(udp6_frame(from_peer(*eng, "2001:db8:ff::2")), DropReason::xlat_no_mapping);
    Frame short_udp = udp6_frame(from_peer(*eng, "2001:db8:ff::1"));
    short_udp.resize(kEthLen + kIp6Len + 4);  // the checksum field is not there
    set_plen(short_udp);
    expect_drop(short_udp, DropReason::ila_no_checksum);
    expect_drop(udp6_frame(from_peer(*eng, "2001:db8:ff::3")), DropReason::xlat_no_route);
    // NPTv6 /64: the adjustment goes in the first of words 4-7 that is not 0xffff.
    eng.reset();
    c.ila = IlaMode::nptv6;
    c.ila_map.clear();
    c.nptv6 = {{*parse_prefix6("2001:db8:ee::/64"), *parse_prefix6("2001:db8:1::/64")}};
    eng = std::make_unique<Engine>(c);
    expect_drop(udp6_frame(from_peer(*eng, "2001:db8:ee::ffff:ffff:ffff:ffff")),
                DropReason::nptv6_no_adjust_word);
}

TEST_F(DropReasons, RemovedAddress) {
    // The FIB still routes 2001:db8:1::1 to us, but the address left the list.
    ASSERT_TRUE(eng->context().ifaddrs->remove(eng->port_id("wire"), ip("2001:db8:1::1")));
    expect_drop(udp6_frame(from_peer(*eng, "2001:db8:1::1")), DropReason::ip6_addr_gone);
}

TEST_F(DropReasons, NeighbourDiscovery) {
    eng.reset();
    auto cfg = test::ring_config();
    cfg.nd_hold = 2;
    cfg.nd_probes = 2;
    cfg.nd_retrans_s = 0.02;
    eng = std::make_unique<Engine>(cfg);
    // Three packets to a silent on-link neighbour: two held, one over the limit.
    const Frame f = udp6_frame(from_peer(*eng, "2001:db8:2::99"));
    test::inject(*eng, "wire", {f, f, f});
    eng->run_until_idle();
    Ledger l = eng->snapshot().ledger;
    EXPECT_EQ(l.drops[static_cast<unsigned>(DropReason::nd_queue_full)], 1u);
    EXPECT_EQ(l.forwarded + l.total_drops(), 1u);  // two are held, in no ledger column yet
    covered.insert(DropReason::nd_queue_full);
    // After two unanswered solicitations (20 ms apart) the held two time out.
    for (int i = 0; i < 200 && eng->snapshot().ledger.total_drops() < 3; ++i) {
        eng->poll();
        rte_delay_ms(1);
    }
    l = eng->snapshot().ledger;
    EXPECT_EQ(l.drops[static_cast<unsigned>(DropReason::nd_timeout)], 2u);
    EXPECT_TRUE(l.balanced());
    EXPECT_EQ(test::collect(*eng, "out").size(), 2u);  // the two solicitations, nothing else
    covered.insert(DropReason::nd_timeout);

    // A packet still held when the engine stops is dropped by name.
    eng.reset();
    cfg.nd_retrans_s = 60;
    eng = std::make_unique<Engine>(cfg);
    test::inject(*eng, "wire", {f});
    eng->start();
    for (int i = 0; i < 1000 && eng->snapshot().ledger.received == 0; ++i) rte_delay_ms(1);
    eng->stop();
    l = eng->snapshot().ledger;
    EXPECT_EQ(l.drops[static_cast<unsigned>(DropReason::nd_pending_at_stop)], 1u);
    EXPECT_TRUE(l.balanced());
    covered.insert(DropReason::nd_pending_at_stop);
}

/// Sends one datagram from a socket and checks that exactly `reason` went up
/// by one in the send ledger, which balances.
void expect_send_drop(Engine& e, UdpSocket& s, rte_mbuf* m, const char* to, DropReason reason) {
    const Ledger before = e.snapshot().ledger;
    EXPECT_EQ(s.sendto(m, ip(to), 9), 0);
    e.run_until_idle();
    const Ledger after = e.snapshot().ledger;
    for (unsigned r = 0; r < kDropReasonCount; ++r)
        EXPECT_EQ(after.send_drops[r] - before.send_drops[r],
                  r == static_cast<unsigned>(reason) ? 1u : 0u)
            << "send counter " << kDropReasonNames[r] << " while expecting "
            << drop_reason_name(reason);
    EXPECT_EQ(after.sends, before.sends + 1);
    EXPECT_TRUE(after.send_balanced());
}

TEST_F(DropReasons, SendPath) {
    UdpSocket s(eng->context());
    auto datagram = [&] {
        rte_mbuf* m = rte_pktmbuf_alloc(eng->pool());
        memcpy(rte_pktmbuf_append(m, 4), "ping", 4);
        return m;
    };
    expect_send_drop(*eng, s, datagram(), "3fff::1", DropReason::ip6_no_route);
    // The "stuck" port has no address to send from.
    expect_send_drop(*eng, s, datagram(), "2001:db8:bbbb::1", DropReason::udp_no_source);
    covered.insert(DropReason::udp_no_source);
    rte_mbuf* full = rte_pktmbuf_alloc(eng->pool());
    full->data_off = 0;  // no room left in front
    memcpy(rte_pktmbuf_append(full, 4), "ping", 4);
    ASSERT_LT(rte_pktmbuf_headroom(full), 62u);
    expect_send_drop(*eng, s, full, "2001:db8:aaaa::1", DropReason::udp_no_headroom);
    covered.insert(DropReason::udp_no_headroom);
}

// Policy rules that end a lookup: each action its own reason, on the
// receive path (ip6_lookup) and the send path (udp6_output), and a connect
// gets Linux's errno for it.
TEST_F(DropReasons, PolicyRules) {
    EngineConfig c = test::ring_config();
    const std::pair<const char*, RuleAction> kRules[] = {{"2001:db8:aaaa:1::/64", RuleAction::unreachable},
                                                         {"2001:db8:aaaa:2::/64", RuleAction::prohibit},
                                                         {"2001:db8:aaaa:3::/64", RuleAction::blackhole}};
    for (const auto& [to, action] : kRules) {
        RuleConfig r;
        r.priority = 100;
        r.has_to = true;
        r.to = *parse_prefix6(to);
        r.action = action;
        c.rules.push_back(r);
    }
    eng = std::make_unique<Engine>(c);
    expect_drop(udp6_frame(from_peer(*eng, "2001:db8:aaaa:1::9")), DropReason::ip6_rule_unreachable);
    expect_drop(udp6_frame(from_peer(*eng, "2001:db8:aaaa:2::9")), DropReason::ip6_rule_prohibit);
    expect_drop(udp6_frame(from_peer(*eng, "2001:db8:aaaa:3::9")), DropReason::ip6_rule_blackhole);
    UdpSocket s(eng->context());
    auto datagram = [&] {
        rte_mbuf* m = rte_pktmbuf_alloc(eng->pool());
        memcpy(rte_pktmbuf_append(m, 4), "ping", 4);
        return m;
    };
    expect_send_drop(*eng, s, datagram(), "2001:db8:aaaa:1::9", DropReason::ip6_rule_unreachable);
    expect_send_drop(*eng, s, datagram(), "2001:db8:aaaa:2::9", DropReason::ip6_rule_prohibit);
    expect_send_drop(*eng, s, datagram(), "2001:db8:aaaa:3::9", DropReason::ip6_rule_blackhole);
    UdpSocket a(eng->context()), b(eng->context()), d(eng->context());
    EXPECT_EQ(a.connect(ip("2001:db8:aaaa:1::9"), 9), -ENETUNREACH);
    EXPECT_EQ(b.connect(ip("2001:db8:aaaa:2::9"), 9), -EACCES);
    EXPECT_EQ(d.connect(ip("2001:db8:aaaa:3::9"), 9), -EINVAL);
    // Outside the rules' prefixes the main table still answers.
    UdpSocket ok(eng->context());
    EXPECT_EQ(ok.connect(ip("2001:db8:aaaa:4::9"), 9), 0);
}

TEST_F(DropReasons, SocketFull) {
    UdpSocket tiny(eng->context(), 4);  // a ring of 4 holds 3
    ASSERT_EQ(tiny.bind(Ip6Addr{}, 5000), 0);
    std::vector<Frame> frames(5, udp6_frame(from_peer(*eng, "2001:db8:1::1", 5000)));
    test::inject(*eng, "wire", frames);
    eng->run_until_idle();
    const Ledger l = eng->snapshot().ledger;
    EXPECT_EQ(l.delivered, 3u);
    EXPECT_EQ(l.drops[static_cast<unsigned>(DropReason::socket_full)], 2u);
    EXPECT_TRUE(l.balanced());
    covered.insert(DropReason::socket_full);
}

TEST_F(DropReasons, TxFull) {
    // The "stuck" port's transmit ring (4096) is never drained.
    const Frame f = udp6_frame(from_peer(*eng, "2001:db8:bbbb::1"));
    for (int round = 0; round < 5; ++round) {
        test::inject(*eng, "wire", std::vector<Frame>(1000, f));
        eng->run_until_idle();
    }
    const Ledger l = eng->snapshot().ledger;
    EXPECT_EQ(l.forwarded, 4095u);  // a ring of 4096 holds 4095
    EXPECT_EQ(l.drops[static_cast<unsigned>(DropReason::tx_full)], 5000u - 4095u);
    EXPECT_TRUE(l.balanced());
    covered.insert(DropReason::tx_full);
    // Free what sits in the stuck ring so the pool can be released.
    test::collect(*eng, "stuck");
}

TEST_F(DropReasons, PortUnreachableWhenAllowed) {
    eng.reset();
    auto cfg = test::ring_config();
    cfg.icmp_errors_per_s = 1000;
    eng = std::make_unique<Engine>(cfg);
    Frame f = udp6_frame(from_peer(*eng, "2001:db8:1::1", 4444));
    test::inject(*eng, "wire", {f});
    eng->run_until_idle();
    const Ledger l = eng->snapshot().ledger;
    EXPECT_EQ(l.replied, 1u);
    EXPECT_TRUE(l.balanced());
    auto out = test::collect(*eng, "wire");
    ASSERT_EQ(out.size(), 1u);
    const Frame& r = out[0];
    EXPECT_EQ(r[20], 58);                      // ICMPv6
    EXPECT_EQ(r[kEthLen + kIp6Len], 1);        // destination unreachable
    EXPECT_EQ(r[kEthLen + kIp6Len + 1], 4);    // port unreachable
    EXPECT_EQ(0, memcmp(&r[0], &f[6], 6));     // back to the sender's MAC
    EXPECT_EQ(0, memcmp(&r[38], &f[22], 16));  // to the sender's address
    EXPECT_EQ(0, memcmp(&r[kEthLen + kIp6Len + 8], &f[kEthLen],
                        f.size() - kEthLen));  // carries the original
    EXPECT_EQ(internet_checksum(&r[kEthLen + kIp6Len], r.size() - kEthLen - kIp6Len,
                                [&] {
                                    uint32_t s =
                                        58 + static_cast<uint32_t>(r.size() - kEthLen - kIp6Len);
                                    for (size_t i = 22; i < 54; i += 2)
                                        s += static_cast<uint32_t>(r[i] << 8 | r[i + 1]);
                                    return s;
                                }()),
              0);
}

TEST_F(DropReasons, TimeExceededWhenAllowedButNeverForAnError) {
    eng.reset();
    auto cfg = test::ring_config();
    cfg.icmp_errors_per_s = 1000;
    eng = std::make_unique<Engine>(cfg);
    FrameSpec s = from_peer(*eng, "2001:db8:aaaa::1");
    s.hop_limit = 1;
    const Frame f = udp6_frame(s);
    // An ICMPv6 error that itself runs out of hops is dropped, not answered.
    const Frame err = icmp6_frame(s, 1, 4, std::vector<uint8_t>(44, 0));
    test::inject(*eng, "wire", {f, err});
    eng->run_until_idle();
    const Ledger l = eng->snapshot().ledger;
    EXPECT_EQ(l.replied, 1u);
    EXPECT_EQ(l.drops[static_cast<unsigned>(DropReason::ip6_hop_limit)], 1u);
    EXPECT_TRUE(l.balanced());
    auto out = test::collect(*eng, "wire");
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0][kEthLen + kIp6Len], 3);      // time exceeded
    EXPECT_EQ(out[0][kEthLen + kIp6Len + 1], 0);  // hop limit exceeded in transit
    EXPECT_EQ(0, memcmp(&out[0][22], test::ip("2001:db8:1::1").data(), 16));  // from the in-port
    EXPECT_EQ(0, memcmp(&out[0][38], &f[22], 16));                            // to the sender
}

}  // namespace

// ctest runs each case alone, and the whole binary once more with
// --check-coverage: after every case has run in this process, every reason
// in the table must have been produced by one of them.
int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    const bool check_coverage = argc > 1 && std::strcmp(argv[1], "--check-coverage") == 0;
    int rc = RUN_ALL_TESTS();
    if (!check_coverage) return rc;
    if (::testing::GTEST_FLAG(filter) != "*") {
        std::fprintf(stderr, "--check-coverage needs every case: drop --gtest_filter\n");
        return 1;
    }
    for (unsigned r = 0; r < kDropReasonCount; ++r)
        if (!DropReasons::covered.count(static_cast<DropReason>(r))) {
            std::fprintf(stderr, "no test produces the drop reason %.*s\n",
                         static_cast<int>(kDropReasonNames[r].size()), kDropReasonNames[r].data());
            rc = 1;
        }
    if (rc == 0) std::printf("every one of the %u drop reasons is produced by a case\n", kDropReasonCount);
    return rc;
}
