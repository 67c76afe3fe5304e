// The transmit path and its variant switches on real net_ring ports: the
// route cache (counted FIB lookups), transmit queue selection, neighbour
// discovery, the socket API's four bind/connect combinations and its
// errors, and the address list's RCU protection (run under ASan).
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include "analysis/verdicts/path_graph.h"
#include "capture/run.h"
#include "capture/snapshot_rows.h"
#include "engine/dpdk.h"
#include "engine/engine.h"
#include "engine/ifaddr.h"
#include "engine/socket.h"
#include "tests/engine/eal_env.h"

using namespace pathscope;
using namespace pathscope::engine;
using test::ip;
using Frame = std::vector<uint8_t>;

namespace {

class Transmit : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { test::init_eal(); }
};

rte_mbuf* datagram(Engine& e, const char* text = "pathscope") {
    rte_mbuf* m = rte_pktmbuf_alloc(e.pool());
    EXPECT_NE(m, nullptr);
    const size_t n = strlen(text);
    memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(n)), text, n);
    return m;
}

Ip6Addr nth(const char* base, unsigned i) {
    Ip6Addr a = ip(base);
    a[14] = static_cast<uint8_t>(i >> 8);
    a[15] = static_cast<uint8_t>(i);
    return a;
}

uint16_t be16(const Frame& f, size_t at) { return static_cast<uint16_t>(f[at] << 8 | f[at + 1]); }

bool checksum_ok(const Frame& f) {
    Frame copy = f;
    fix_l4_checksum(copy);
    return copy == f;
}

TEST_F(Transmit, ConnectedSocketWithRouteCacheDoesNoLookupPerDatagram) {
    for (const bool cache : {true, false}) {
        auto cfg = test::ring_config();
        cfg.route_cache = cache;
        Engine eng(cfg);
        UdpSocket conn(eng.context()), plain(eng.context());
        ASSERT_EQ(conn.connect(ip("2001:db8:aaaa::5"), 9), 0);
        for (int i = 0; i < 100; ++i) ASSERT_EQ(conn.send(datagram(eng)), 0);
        eng.run_until_idle();
        EngineSnapshot s = eng.snapshot();
        EXPECT_EQ(s.send_path.route_lookups, cache ? 0u : 100u) << "route_cache " << cache;
        EXPECT_EQ(s.send_path.source_selections, 0u);  // chosen once, at connect
        EXPECT_EQ(s.ledger.sent, 100u);
        EXPECT_TRUE(s.ledger.send_balanced());
        EXPECT_EQ(test::collect(eng, "out").size(), 100u);
        // An unconnected socket looks every datagram up, whatever the switch says.
        for (int i = 0; i < 50; ++i) ASSERT_EQ(plain.sendto(datagram(eng), ip("2001:db8:aaaa::6"), 9), 0);
        eng.run_until_idle();
        s = eng.snapshot();
        EXPECT_EQ(s.send_path.route_lookups, (cache ? 0u : 100u) + 50u);
        EXPECT_EQ(s.send_path.source_selections, 50u);
        EXPECT_EQ(s.ledger.sent, 150u);
        test::collect(eng, "out");
    }
}

/// Sends 10 datagrams to each of 64 destinations over a 4-queue port and
/// returns the packets each transmit queue took.
std::vector<uint64_t> queue_counts(TxqHash hash) {
    auto cfg = test::ring_config();
    cfg.ports[1].tx_queues = 4;
    cfg.txq_hash = hash;
    Engine eng(cfg);
    UdpSocket s(eng.context());
    for (int round = 0; round < 10; ++round) {
        for (unsigned d = 1; d <= 64; ++d)
            EXPECT_EQ(s.sendto(datagram(eng), nth("2001:db8:aaaa::", d), 9), 0);
        eng.run_until_idle();
    }
    std::vector<uint64_t> counts;
    for (const auto& q : eng.snapshot().queues)
        if (q.port == "out" && !q.rx) counts.push_back(q.packets);
    const RingPort& rp = eng.ring_port("out");
    for (size_t q = 0; q < rp.tx.size(); ++q)
        EXPECT_EQ(rte_ring_count(rp.tx[q]), counts.at(q)) << "queue " << q;  // really enqueued there
    test::collect(eng, "out");
    return counts;
}

TEST_F(Transmit, TxqHashNonePutsEverythingOnQueueZero) {
    const auto c = queue_counts(TxqHash::none);
    ASSERT_EQ(c.size(), 4u);
    EXPECT_EQ(c[0], 640u);
    EXPECT_EQ(c[1] + c[2] + c[3], 0u);
}

TEST_F(Transmit, TxqHashFlowSpreadsSixtyFourFlowsOverFourQueues) {
    const auto c = queue_counts(TxqHash::flow);
    ASSERT_EQ(c.size(), 4u);
    uint64_t total = 0;
    for (auto v : c) total += v;
    EXPECT_EQ(total, 640u);
    for (size_t q = 0; q < c.size(); ++q) {
        EXPECT_GT(c[q], 0u) << "queue " << q;
        EXPECT_LE(c[q] * 100, total * 40) << "queue " << q << " took " << c[q] << " of " << total;
        EXPECT_EQ(c[q] % 10, 0u) << "a flow's packets stay on one queue";
    }
}

namespace {
/// The snapshot's edges by (from, to), and the balance at every stage that
/// the Path page and the dot export check (every one must hold).
std::map<std::pair<std::string, std::string>, uint64_t> edges_balanced(const EngineSnapshot& snap) {
    std::map<std::pair<std::string, std::string>, uint64_t> edges;
    for (const auto& e : snap.edges) edges[{e.from, e.to}] = e.packets;
    capture::RunResult r;
    r.snapshot = snap;
    db::RunData run;
    run.rows = capture::trial_rows(0, r);
    const auto balance = analysis::path_balance(analysis::path_graph(run), run);
    for (const auto& b : balance) EXPECT_TRUE(b.ok()) << analysis::render_balance(balance);
    return edges;
}
}  // namespace

TEST_F(Transmit, NeighbourIsSolicitedOnceAndHeldPacketsGoOnItsAdvertisement) {
    Engine eng(test::ring_config());
    UdpSocket s(eng.context());
    const Ip6Addr peer = ip("2001:db8:2::77");  // on-link behind "out", not yet known
    for (int i = 0; i < 3; ++i) ASSERT_EQ(s.sendto(datagram(eng), peer, 4242), 0);
    eng.run_until_idle();
    auto out = test::collect(eng, "out");
    ASSERT_EQ(out.size(), 1u) << "one solicitation, the datagrams held";
    const Frame& ns = out[0];
    EXPECT_EQ(ns[20], 58);                      // ICMPv6
    EXPECT_EQ(ns[21], 255);                     // hop limit
    EXPECT_EQ(ns[kEthLen + kIp6Len], 135);      // neighbour solicitation
    EXPECT_EQ(0, memcmp(&ns[kEthLen + kIp6Len + 8], peer.data(), 16));  // target
    const Ip6Addr group = ip("ff02::1:ff00:77");
    EXPECT_EQ(0, memcmp(&ns[38], group.data(), 16));
    EXPECT_EQ(0, memcmp(&ns[22], ip("2001:db8:2::1").data(), 16));  // from our address there
    const uint8_t group_mac[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x77};
    EXPECT_EQ(0, memcmp(&ns[0], group_mac, 6));
    EXPECT_TRUE(checksum_ok(ns));
    EXPECT_EQ(eng.snapshot().ledger.sent, 0u);

    // The neighbour answers: solicited, override, its link-layer address.
    FrameSpec na;
    const MacAddr peer_mac{0x02, 0, 0, 0, 0, 0x77};
    na.src_mac = peer_mac;
    memcpy(na.dst_mac.data(), eng.context().ports[eng.port_id("out")].mac.addr_bytes, 6);
    na.src = peer;
    na.dst = ip("2001:db8:2::1");
    na.hop_limit = 255;
    std::vector<uint8_t> body(28, 0);
    body[0] = 0x60;
    memcpy(body.data() + 4, peer.data(), 16);
    body[20] = 2, body[21] = 1;
    memcpy(body.data() + 22, peer_mac.data(), 6);
    test::inject(eng, "out", {icmp6_frame(na, 136, 0, body)});
    eng.run_until_idle();
    out = test::collect(eng, "out");
    ASSERT_EQ(out.size(), 3u);
    for (const Frame& f : out) {
        EXPECT_EQ(0, memcmp(&f[0], peer_mac.data(), 6));
        EXPECT_EQ(f[20], 17);
        EXPECT_EQ(be16(f, kEthLen + kIp6Len + 2), 4242);
        EXPECT_TRUE(checksum_ok(f));
    }
    const EngineSnapshot snap = eng.snapshot();
    EXPECT_EQ(snap.ledger.sent, 3u);
    EXPECT_TRUE(snap.ledger.send_balanced());
    EXPECT_EQ(snap.send_path.solicitations, 1u);
    // Now known: the next datagram goes straight out, with no solicitation.
    ASSERT_EQ(s.sendto(datagram(eng), peer, 4242), 0);
    eng.run_until_idle();
    out = test::collect(eng, "out");
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0][20], 17);
    EXPECT_EQ(eng.snapshot().send_path.solicitations, 1u);
    // The path graph: three datagrams held by the neighbour table, which sent
    // the solicitation and released them on the advertisement (which was
    // delivered to the stack); then one straight through.
    auto edge = edges_balanced(eng.snapshot());
    EXPECT_EQ((edge[{"nd_resolve", "neighbours"}]), 3u);
    EXPECT_EQ((edge[{"neighbours", "txq_select"}]), 1u);
    EXPECT_EQ((edge[{"neighbours", "nd_resolve"}]), 3u);
    EXPECT_EQ((edge[{"nd_resolve", "txq_select"}]), 4u);
    EXPECT_EQ((edge[{"icmp6_input", "deliver"}]), 1u);
    EXPECT_EQ((edge[{"eth_tx", "wire"}]), 5u);
}

TEST_F(Transmit, NeighbourThatNeverAnswersEndsInNdTimeoutAfterTheRetries) {
    auto cfg = test::ring_config();
    cfg.nd_probes = 3;
    cfg.nd_retrans_s = 0.01;
    Engine eng(cfg);
    UdpSocket s(eng.context());
    ASSERT_EQ(s.sendto(datagram(eng), ip("2001:db8:2::99"), 9), 0);
    for (int i = 0; i < 500 && eng.snapshot().ledger.total_send_drops() == 0; ++i) {
        eng.poll();
        rte_delay_us(500);
    }
    const EngineSnapshot snap = eng.snapshot();
    EXPECT_EQ(snap.ledger.send_drops[static_cast<unsigned>(DropReason::nd_timeout)], 1u);
    EXPECT_TRUE(snap.ledger.send_balanced());
    EXPECT_EQ(snap.send_path.solicitations, 3u);
    EXPECT_EQ(test::collect(eng, "out").size(), 3u);  // three solicitations and nothing else
    // The first solicitation left the table from nd_resolve's call, the
    // retries and the timed-out datagram from nd_timer (a source stage).
    auto edge = edges_balanced(eng.snapshot());
    EXPECT_EQ((edge[{"nd_resolve", "neighbours"}]), 1u);
    EXPECT_EQ((edge[{"neighbours", "txq_select"}]), 1u);
    EXPECT_EQ((edge[{"nd_timer", "txq_select"}]), 2u);
    EXPECT_EQ((edge[{"nd_timer", "drop"}]), 1u);
}

// A receive burst whose packets alternate between two egress ports leaves
// as one transmit burst per port and queue (txq_select groups it), not one
// per change of port (sixteen each, before).
TEST_F(Transmit, ABurstForTwoPortsLeavesAsOneTransmitBurstPerPortAndQueue) {
    Engine eng(test::ring_config());
    std::vector<std::vector<uint8_t>> frames;
    for (unsigned i = 0; i < 32; ++i) {
        FrameSpec s = test::from_peer(eng, i % 2 ? "2001:db8:aaaa::1" : "2001:db8:100::9");
        s.src_port = static_cast<uint16_t>(1000 + i);
        frames.push_back(udp6_frame(s));
    }
    test::inject(eng, "wire", frames);
    eng.run_until_idle();
    const EngineSnapshot snap = eng.snapshot();
    EXPECT_EQ(snap.ledger.forwarded, 32u);
    std::map<std::string, const QueueSnapshot*> tx;
    for (const auto& q : snap.queues)
        if (!q.rx) tx[q.port] = &q;
    ASSERT_TRUE(tx.count("out") && tx.count("wire"));
    EXPECT_EQ(tx["out"]->packets, 16u);
    EXPECT_EQ(tx["wire"]->packets, 16u);
    EXPECT_EQ(tx["out"]->bursts, 1u);
    EXPECT_EQ(tx["wire"]->bursts, 1u);
    // In each port's burst, the flows keep their order.
    for (const char* port : {"out", "wire"}) {
        const auto sent = test::collect(eng, port);
        ASSERT_EQ(sent.size(), 16u) << port;
        for (size_t i = 1; i < sent.size(); ++i)
            EXPECT_LT(be16(sent[i - 1], kEthLen + kIp6Len), be16(sent[i], kEthLen + kIp6Len)) << port;
    }
}

TEST_F(Transmit, SocketApiInAllFourBindConnectCombinations) {
    Engine eng(test::ring_config());
    const Ip6Addr ours = ip("2001:db8:2::1");
    const Ip6Addr dst = ip("2001:db8:aaaa::9");
    uint16_t port = 6000;
    for (const bool bind : {false, true})
        for (const bool connect : {false, true}) {
            SCOPED_TRACE(std::string("bind ") + (bind ? "yes" : "no") + ", connect " +
                         (connect ? "yes" : "no"));
            UdpSocket s(eng.context());
            if (bind) {
                ASSERT_EQ(s.bind(ours, ++port), 0);
            }
            if (connect) {
                ASSERT_EQ(s.connect(dst, 53), 0);
            }
            const EngineSnapshot before = eng.snapshot();
            for (int i = 0; i < 10; ++i)
                ASSERT_EQ(connect ? s.send(datagram(eng)) : s.sendto(datagram(eng), dst, 53), 0);
            eng.run_until_idle();
            const EngineSnapshot after = eng.snapshot();
            EXPECT_EQ(after.ledger.sent - before.ledger.sent, 10u);
            EXPECT_TRUE(after.ledger.send_balanced());
            // Only an unbound, unconnected socket selects a source per datagram.
            EXPECT_EQ(after.send_path.source_selections - before.send_path.source_selections,
                      !bind && !connect ? 10u : 0u);
            const auto out = test::collect(eng, "out");
            ASSERT_EQ(out.size(), 10u);
            for (const Frame& f : out) {
                EXPECT_EQ(0, memcmp(&f[22], ours.data(), 16));  // source address
                EXPECT_EQ(0, memcmp(&f[38], dst.data(), 16));
                const uint16_t sport = be16(f, kEthLen + kIp6Len);
                if (bind) {
                    EXPECT_EQ(sport, port);
                } else {
                    EXPECT_GE(sport, 49152);  // an ephemeral port
                }
                EXPECT_EQ(sport, s.local_port());
                EXPECT_EQ(be16(f, kEthLen + kIp6Len + 2), 53);
                EXPECT_EQ(be16(f, 18), kUdpLen + 9);  // payload length
                EXPECT_TRUE(checksum_ok(f));
            }
        }
}

TEST_F(Transmit, SocketErrorsAsPosixHasThem) {
    Engine eng(test::ring_config());
    EngineContext& ctx = eng.context();
    UdpSocket a(ctx), b(ctx), c(ctx);
    ASSERT_EQ(a.bind(Ip6Addr{}, 7000), 0);
    EXPECT_EQ(b.bind(Ip6Addr{}, 7000), -EADDRINUSE);
    EXPECT_EQ(a.bind(Ip6Addr{}, 7001), -EINVAL);  // already bound
    EXPECT_EQ(b.bind(ip("2001:db8:77::1"), 7002), -EADDRNOTAVAIL);
    EXPECT_EQ(b.bind(ip("::ffff:192.0.2.1"), 7003), -EAFNOSUPPORT);
    EXPECT_EQ(b.send(datagram(eng)), -EDESTADDRREQ);
    EXPECT_EQ(b.send_burst(nullptr, 0), -EDESTADDRREQ);
    EXPECT_EQ(b.sendto(datagram(eng), ip("::ffff:192.0.2.1"), 9), -EAFNOSUPPORT);
    EXPECT_EQ(b.sendto(datagram(eng), Ip6Addr{}, 9), -EINVAL);
    EXPECT_EQ(b.sendto(datagram(eng), ip("2001:db8:aaaa::1"), 0), -EINVAL);
    EXPECT_EQ(c.connect(ip("::ffff:192.0.2.1"), 9), -EAFNOSUPPORT);
    EXPECT_EQ(c.connect(ip("3fff::1"), 9), -ENETUNREACH);
    ASSERT_EQ(c.connect(ip("2001:db8:aaaa::1"), 9), 0);
    EXPECT_EQ(c.connect(ip("2001:db8:aaaa::2"), 9), -EISCONN);
    // None of the refused calls is a send: the send ledger saw nothing.
    EXPECT_EQ(eng.snapshot().ledger.sends, 0u);

    // ENOBUFS: a send ring of 4 holds 3 until udp6_output drains it.
    UdpSocket tiny(ctx, 4);
    int ok = 0, nobufs = 0;
    for (int i = 0; i < 5; ++i) {
        const int rc = tiny.sendto(datagram(eng), ip("2001:db8:aaaa::1"), 9);
        ok += rc == 0;
        nobufs += rc == -ENOBUFS;
    }
    EXPECT_EQ(ok, 3);
    EXPECT_EQ(nobufs, 2);
    rte_mbuf* burst[4] = {datagram(eng), datagram(eng), datagram(eng), datagram(eng)};
    ASSERT_EQ(tiny.connect(ip("2001:db8:aaaa::1"), 9), 0);
    EXPECT_EQ(tiny.send_burst(burst, 4), 0);  // the ring is still full: none queued
    eng.run_until_idle();
    const Ledger l = eng.snapshot().ledger;
    EXPECT_EQ(l.send_drops[static_cast<unsigned>(DropReason::socket_full)], 6u);
    EXPECT_EQ(l.sends, 9u);
    EXPECT_EQ(l.sent, 3u);
    EXPECT_TRUE(l.send_balanced());
    test::collect(eng, "out");
}

TEST_F(Transmit, RecvAndRecvfromGiveTheDatagramAndItsSender) {
    Engine eng(test::ring_config());
    UdpSocket s(eng.context());
    ASSERT_EQ(s.bind(Ip6Addr{}, 4000), 0);
    FrameSpec f = test::from_peer(eng, "2001:db8:1::1", 4000);
    f.payload = 5;
    test::inject(eng, "wire", {udp6_frame(f), udp6_frame(f)});
    eng.run_until_idle();
    rte_mbuf* m = nullptr;
    SockAddr6 from;
    ASSERT_EQ(s.recvfrom(&m, &from), 0);
    EXPECT_EQ(from.addr, ip("2001:db8:100::5"));
    EXPECT_EQ(from.port, 5555);
    EXPECT_EQ(rte_pktmbuf_pkt_len(m), 5u);
    rte_pktmbuf_free(m);
    ASSERT_EQ(s.recv(&m), 0);
    rte_pktmbuf_free(m);
    EXPECT_EQ(s.recv(&m), -EAGAIN);
}

/// A reader holds the list while a writer removes an address from it: the
/// writer must not return, nor free the old list, before the reader is done
/// (an RCU quiescent state, or the read lock released). With a plain free,
/// the reader's last look is a use after free, which ASan reports.
void removal_waits_for_reader(IfaddrSync sync) {
    InterfaceAddresses list(sync, 1);
    list.use_port(0);
    ASSERT_TRUE(list.add(0, {ip("2001:db8:5::1"), 64}));
    ASSERT_TRUE(list.add(0, {ip("2001:db8:5::2"), 64}));
    std::atomic<bool> holding{false}, removing{false}, removed{false};
    bool removed_while_held = true, contents_intact = false;
    std::thread reader([&] {
        list.online(1);
        list.read(0, [&](const Prefix6* a, unsigned n) {
            holding = true;
            while (!removing) std::this_thread::yield();
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            removed_while_held = removed.load();
            contents_intact = n == 2 && a[0].addr == ip("2001:db8:5::1") &&
                              a[1].addr == ip("2001:db8:5::2");
        });
        list.quiescent(1);
        list.offline(1);
    });
    while (!holding) std::this_thread::yield();
    removing = true;
    EXPECT_TRUE(list.remove(0, ip("2001:db8:5::1")));
    removed = true;
    reader.join();
    EXPECT_FALSE(removed_while_held) << "the old list was released while a reader held it";
    EXPECT_TRUE(contents_intact);
    EXPECT_FALSE(list.contains(0, ip("2001:db8:5::1").data()));
    EXPECT_TRUE(list.contains(0, ip("2001:db8:5::2").data()));
}

TEST_F(Transmit, RcuFreesARemovedAddressOnlyAfterEveryReaderPassedAQuiescentState) {
    removal_waits_for_reader(IfaddrSync::rcu);
}

TEST_F(Transmit, RwlockRemovalWaitsForTheReadLock) { removal_waits_for_reader(IfaddrSync::rwlock); }

TEST_F(Transmit, SourceSelectionPrefersScopeThenLongestMatch) {
    InterfaceAddresses list(IfaddrSync::rcu, 1);
    list.use_port(0);
    list.add(0, {ip("fe80::1"), 64});
    list.add(0, {ip("2001:db8:1::1"), 64});
    list.add(0, {ip("2001:db8:2::1"), 64});
    uint8_t src[16];
    ASSERT_TRUE(list.select_source(0, ip("fe80::99").data(), src));
    EXPECT_EQ(0, memcmp(src, ip("fe80::1").data(), 16));
    ASSERT_TRUE(list.select_source(0, ip("2001:db8:2::77").data(), src));
    EXPECT_EQ(0, memcmp(src, ip("2001:db8:2::1").data(), 16));
    ASSERT_TRUE(list.select_source(0, ip("2001:db8:1::1").data(), src));  // the destination itself
    EXPECT_EQ(0, memcmp(src, ip("2001:db8:1::1").data(), 16));
    InterfaceAddresses only_ll(IfaddrSync::rcu, 1);
    only_ll.add(0, {ip("fe80::1"), 64});
    EXPECT_FALSE(only_ll.select_source(0, ip("2001:db8:9::1").data(), src));
}

/// The ring configuration with the source application sending batches of
/// `batch` to 2001:db8:aaaa::1 at 4000 datagrams a second (well within the
/// ring port's 4096 slots).
EngineConfig source_config(uint16_t batch) {
    auto cfg = test::ring_config();
    cfg.source.enabled = true;
    cfg.source.destination = ip("2001:db8:aaaa::1");
    cfg.source.batch = batch;
    cfg.source.rate_pps = 4000;
    return cfg;
}

/// Runs `eng` until `sends` datagrams went out (0.025 s for 100 at the rate;
/// longer when a loaded machine, or ASan, slows the worker: a minute at
/// most), then stops it; the seconds it ran. Its last walk sends what the
/// last poll queued.
double run_until_sent(Engine& eng, uint64_t sends) {
    const auto began = std::chrono::steady_clock::now();
    eng.start();
    do std::this_thread::sleep_for(std::chrono::milliseconds(20));
    while (eng.snapshot().ledger.sends < sends &&
           std::chrono::steady_clock::now() - began < std::chrono::seconds(60));
    eng.stop();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

TEST_F(Transmit, SourceApplicationSendsInEachCombinationAndBurstMode) {
    for (const bool bind : {false, true})
        for (const bool connect : {false, true})
            for (const SocketSend mode : {SocketSend::single, SocketSend::burst}) {
                auto cfg = source_config(16);
                cfg.source.destinations = 4;
                cfg.source.bind = bind;
                cfg.source.connect = connect;
                cfg.socket_send = mode;
                Engine eng(cfg);
                const double seconds = run_until_sent(eng, 100);
                const EngineSnapshot s = eng.snapshot();
                EXPECT_GE(s.ledger.sends, 100u);
                // The rate held: no more than 4000/s over the time it ran, and a batch.
                EXPECT_LE(static_cast<double>(s.ledger.sends), 4000 * seconds + 16);
                EXPECT_EQ(s.ledger.sent, s.ledger.sends);
                EXPECT_TRUE(s.ledger.send_balanced());
                const auto out = test::collect(eng, "out");
                ASSERT_EQ(out.size(), s.ledger.sent);
                std::set<uint8_t> dsts;
                for (const Frame& f : out) dsts.insert(f[53]);
                EXPECT_EQ(dsts.size(), 4u) << "every destination got datagrams";
            }
}

// The source application's datagrams carry `source.payload` bytes of 0x5a
// at every size, around the lengths its inline fill changes how it writes
// (under 8, 8 to 16, 17 to 32, longer).
TEST_F(Transmit, SourceApplicationPayloadIsItsSizeOfTheFillByte) {
    for (const uint16_t payload : {1, 7, 8, 9, 15, 16, 17, 18, 24, 31, 32, 33, 100}) {
        auto cfg = source_config(8);
        cfg.source.payload = payload;
        Engine eng(cfg);
        run_until_sent(eng, 16);
        const auto out = test::collect(eng, "out");
        ASSERT_GE(out.size(), 16u) << payload << "-byte payload";
        for (const Frame& f : out) {
            ASSERT_EQ(f.size(), 62u + payload);
            EXPECT_EQ(be16(f, 58), 8 + payload);  // the UDP length
            for (uint32_t i = 0; i < payload; ++i)
                ASSERT_EQ(f[62 + i], 0x5a) << "byte " << i << " of a " << payload << "-byte payload";
        }
    }
}

/// What one send-accounting mode sent, and what its sockets still count.
struct AccountingOutcome {
    std::vector<Frame> out;
    uint64_t sent = 0, no_route = 0, tx_full = 0, stuck_sent = 0;
    uint64_t conn_before = 0, plain_before = 0;  ///< in flight once queued, before any walk
    uint64_t conn_after = 0, plain_after = 0, stuck_after = 0;
    uint64_t wakeups = 0;
};

AccountingOutcome account(SendAccounting mode) {
    auto cfg = test::ring_config();
    cfg.send_accounting = mode;
    Engine eng(cfg);
    AccountingOutcome r;
    UdpSocket conn(eng.context()), plain(eng.context()), stuck(eng.context());
    EXPECT_EQ(conn.connect(ip("2001:db8:aaaa::5"), 9), 0);
    EXPECT_EQ(stuck.bind(ip("2001:db8:2::1"), 0), 0);  // the stuck port has no address of its own
    for (int i = 0; i < 40; ++i) EXPECT_EQ(conn.send(datagram(eng, "single")), 0);
    rte_mbuf* burst[24];
    for (auto*& m : burst) m = datagram(eng, "burst");
    EXPECT_EQ(conn.send_burst(burst, 24), 24);
    for (int i = 0; i < 10; ++i)
        EXPECT_EQ(plain.sendto(datagram(eng, "routed"), ip("2001:db8:aaaa::6"), 9), 0);
    for (int i = 0; i < 5; ++i)  // no route: dropped in udp6_output, freed by drop
        EXPECT_EQ(plain.sendto(datagram(eng, "lost"), ip("2001:db8:dead::1"), 9), 0);
    r.conn_before = conn.inflight_bytes();
    r.plain_before = plain.inflight_bytes();
    eng.run_until_idle();
    r.out = test::collect(eng, "out");
    // A port nobody drains: once its 4095 slots are full, eth_tx hands the
    // rest to drop as tx_full. 1000 queued at a time is 2 MB in flight, over
    // the send buffer: a sender waits, and the releases wake it.
    for (int round = 0; round < 5; ++round) {
        for (int i = 0; i < 1000; ++i)
            EXPECT_EQ(stuck.sendto(datagram(eng, "stuck"), ip("2001:db8:bbbb::1"), 9), 0);
        eng.run_until_idle();
    }
    const EngineSnapshot s = eng.snapshot();
    r.sent = s.ledger.sent;
    r.no_route = s.ledger.send_drops[static_cast<unsigned>(DropReason::ip6_no_route)];
    r.tx_full = s.ledger.send_drops[static_cast<unsigned>(DropReason::tx_full)];
    EXPECT_TRUE(s.ledger.send_balanced());
    r.conn_after = conn.inflight_bytes();
    r.plain_after = plain.inflight_bytes();
    r.stuck_after = stuck.inflight_bytes();
    r.wakeups = conn.write_wakeups() + plain.write_wakeups() + stuck.write_wakeups();
    r.stuck_sent = test::collect(eng, "stuck").size();
    return r;
}

TEST_F(Transmit, SendAccountingModesSendTheSameDatagramsAndReleaseEveryByte) {
    const AccountingOutcome atomic = account(SendAccounting::atomic);
    const AccountingOutcome local = account(SendAccounting::local);
    // Each queued datagram holds its whole buffer (as skb->truesize): the
    // pool's data room, RTE_MBUF_DEFAULT_BUF_SIZE.
    const uint64_t truesize = RTE_MBUF_DEFAULT_BUF_SIZE;
    for (const AccountingOutcome* r : {&atomic, &local}) {
        const char* mode = r == &atomic ? "atomic" : "local";
        EXPECT_EQ(r->conn_before, 64 * truesize) << mode;
        EXPECT_EQ(r->plain_before, 15 * truesize) << mode;
        EXPECT_EQ(r->out.size(), 74u) << mode;
        EXPECT_EQ(r->no_route, 5u) << mode;
        EXPECT_EQ(r->stuck_sent, 4095u) << mode;  // a 4096-slot ring holds 4095
        EXPECT_EQ(r->tx_full, 5000u - 4095u) << mode;
        EXPECT_EQ(r->sent, 74u + 4095u) << mode;
        // Transmitted, dropped in the stages or refused by the device: every
        // byte charged at send is released.
        EXPECT_EQ(r->conn_after, 0u) << mode;
        EXPECT_EQ(r->plain_after, 0u) << mode;
        EXPECT_EQ(r->stuck_after, 0u) << mode;
    }
    EXPECT_EQ(atomic.out, local.out) << "the same datagrams, byte for byte";
    EXPECT_GT(atomic.wakeups, 0u) << "atomic accounting checks for a waiting sender";
    EXPECT_EQ(local.wakeups, 0u);
}

TEST_F(Transmit, SendAccountingReturnsToZeroAfterARunningEngineStops) {
    for (const SendAccounting mode : {SendAccounting::atomic, SendAccounting::local})
        for (const SocketSend send : {SocketSend::single, SocketSend::burst}) {
            auto cfg = test::ring_config();
            cfg.source.enabled = true;
            cfg.source.destination = ip("2001:db8:aaaa::1");
            cfg.source.destinations = 2;
            cfg.source.bind = cfg.source.connect = true;
            cfg.source.batch = 16;
            cfg.source.rate_pps = 4000;
            cfg.socket_send = send;
            cfg.send_accounting = mode;
            Engine eng(cfg);
            // Until 100 datagrams went out (a minute at most), not for a time.
            const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
            eng.start();
            do std::this_thread::sleep_for(std::chrono::milliseconds(20));
            while (eng.snapshot().ledger.sends < 100 && std::chrono::steady_clock::now() < limit);
            eng.stop();
            const EngineSnapshot s = eng.snapshot();
            EXPECT_GE(s.ledger.sent, 100u);
            EXPECT_EQ(s.ledger.sent, s.ledger.sends);
            EXPECT_EQ(test::collect(eng, "out").size(), s.ledger.sent);
            ASSERT_FALSE(eng.context().sockets.empty());
            for (const UdpSocket* sock : eng.context().sockets)
                EXPECT_EQ(sock->inflight_bytes(), 0u)
                    << (mode == SendAccounting::atomic ? "atomic" : "local") << " port "
                    << sock->local_port();
        }
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
