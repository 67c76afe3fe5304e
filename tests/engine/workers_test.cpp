// Several worker lcores (engine.workers): each walks its own graph over its
// own receive queues, keeps its own counters, and the engine's figures are
// their sum. Two workers on a two-queue ring port, real lcores.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include "engine/eal.h"
#include "engine/engine.h"
#include "workload/frame_builder.h"
#include "engine/socket.h"
#include "tests/engine/eal_env.h"

using namespace pathscope;
using namespace pathscope::engine;

namespace {

class Workers : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        // The main lcore and two workers, whichever CPUs the machine has: a
        // 2-CPU machine runs one worker on each and the main lcore beside them.
        eal_init({"--no-huge", "-m", "1024", "--no-pci", "--no-shconf", "--lcores",
                  "0@(0-1),1@0,2@1", "--log-level", "lib.*:error", "--log-level", "pmd.*:error"});
    }
};

/// The test ports: "wire" polled on two receive queues (and replying on two
/// transmit queues), "out" transmit-only with two queues, one per worker.
EngineConfig two_worker_config() {
    EngineConfig c = test::ring_config();
    c.workers = 2;
    c.ports.resize(2);
    c.ports[0].rx_queues = 2;
    c.ports[0].tx_queues = 2;
    c.ports[1].poll = false;
    c.ports[1].tx_queues = 2;
    c.nexthops.resize(2);
    c.routes.resize(2);
    return c;
}

std::vector<std::vector<uint8_t>> mixed_frames(const Engine& eng, unsigned forward, unsigned sink,
                                               unsigned bad_version) {
    std::vector<std::vector<uint8_t>> frames;
    for (unsigned i = 0; i < forward; ++i) {
        FrameSpec s = test::from_peer(eng, "2001:db8:aaaa::1");
        s.src_port = static_cast<uint16_t>(1000 + i);
        frames.push_back(udp6_frame(s));
    }
    for (unsigned i = 0; i < sink; ++i)
        frames.push_back(udp6_frame(test::from_peer(eng, "2001:db8:1::1", 9)));
    for (unsigned i = 0; i < bad_version; ++i) {
        auto f = udp6_frame(test::from_peer(eng, "2001:db8:1::1"));
        f[14] = 0x40;
        frames.push_back(f);
    }
    return frames;
}

const StageSnapshot* stage(const std::vector<StageSnapshot>& stages, const std::string& name) {
    for (const auto& s : stages)
        if (s.name == name) return &s;
    return nullptr;
}


/// What the connected echo server sent back, checked reply by reply.
struct EchoOutcome {
    uint64_t requests = 0;
    uint64_t replies = 0;
    uint64_t duplicates = 0;    ///< a request answered twice
    uint64_t wrong_client = 0;  ///< answered to another client than the one that asked
    EngineSnapshot snapshot;
    unsigned connected = 0;
};

void put_u32(std::vector<uint8_t>& f, size_t at, uint32_t v) { memcpy(f.data() + at, &v, 4); }
uint32_t get_u32(const std::vector<uint8_t>& f, size_t at) {
    uint32_t v;
    memcpy(&v, f.data() + at, 4);
    return v;
}

/// kClients clients of the connected echo server (each its own source port)
/// join over the first half of kRounds rounds, each sending one request a
/// round, alternately on receive queue 0 (worker 0) and 1 (worker 1): so
/// worker 1 delivers to connected sockets while worker 0 opens new ones, the
/// early demux (when on) and udp6_input of both workers look them up, and
/// every socket's datagrams come from both workers. A request carries its
/// client and round; its reply must go to that client, once.
EchoOutcome connected_echo_from_both_workers(bool early_demux) {
    constexpr unsigned kClients = 400, kRounds = 24, kInFlight = 2048;
    constexpr size_t kPayload = kEthLen + kIp6Len + kUdpLen;
    EngineConfig c = two_worker_config();
    c.apps[1].connected = true;
    c.apps[1].max_clients = kClients;
    c.early_demux = early_demux;
    Engine eng(c);
    EchoOutcome out;
    std::set<std::pair<uint32_t, uint32_t>> answered;
    const auto take_replies = [&] {
        for (const auto& f : test::collect(eng, "wire")) {
            if (f.size() < kPayload + 8) continue;
            const uint16_t dst_port = static_cast<uint16_t>(f[kEthLen + kIp6Len + 2] << 8 |
                                                            f[kEthLen + kIp6Len + 3]);
            const uint32_t client = get_u32(f, kPayload), round = get_u32(f, kPayload + 4);
            ++out.replies;
            if (dst_port != 20000 + client) ++out.wrong_client;
            if (!answered.insert({client, round}).second) ++out.duplicates;
        }
    };
    eng.start();
    for (unsigned r = 0; r < kRounds; ++r) {
        const unsigned active = std::min(kClients, (r + 1) * kClients / (kRounds / 2));
        for (unsigned cl = 0; cl < active; ++cl) {
            FrameSpec s = test::from_peer(eng, "2001:db8:1::1", 7);
            s.src_port = static_cast<uint16_t>(20000 + cl);
            s.payload = 8;
            auto f = udp6_frame(s);
            put_u32(f, kPayload, cl);
            put_u32(f, kPayload + 4, r);
            fix_l4_checksum(f);
            // At most kInFlight requests unanswered: the replies' ring
            // (4096) never fills, however late this thread gets the CPU.
            while (out.requests - out.replies >= kInFlight ||
                   !eng.inject("wire", f.data(), f.size(), (cl + r) % 2)) {
                take_replies();
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
            ++out.requests;
        }
        take_replies();
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (out.replies < out.requests && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        take_replies();
    }
    eng.stop();
    take_replies();
    out.snapshot = eng.snapshot();
    out.connected = eng.context().connected_count.load();
    return out;
}

void expect_every_request_answered_once_to_its_client(const EchoOutcome& o) {
    EXPECT_EQ(o.replies, o.requests) << "datagrams lost";
    EXPECT_EQ(o.wrong_client, 0u) << "datagrams delivered to another client's socket";
    EXPECT_EQ(o.duplicates, 0u);
    EXPECT_EQ(o.connected, 400u);
    const EngineSnapshot& s = o.snapshot;
    EXPECT_EQ(s.ledger.received, o.requests);
    EXPECT_EQ(s.ledger.delivered, o.requests);
    EXPECT_EQ(s.ledger.total_drops(), 0u);
    EXPECT_EQ(s.ledger.total_send_drops(), 0u);
    for (unsigned r = 0; r < kDropReasonCount; ++r) {
        EXPECT_EQ(s.ledger.drops[r], 0u) << drop_reason_name(static_cast<DropReason>(r));
        EXPECT_EQ(s.ledger.send_drops[r], 0u) << drop_reason_name(static_cast<DropReason>(r));
    }
    EXPECT_TRUE(s.ledger.balanced());
    EXPECT_TRUE(s.ledger.send_balanced());
    ASSERT_EQ(s.workers.size(), 2u);
    uint64_t received = 0;
    for (const WorkerSnapshot& w : s.workers) {
        EXPECT_TRUE(w.ledger.balanced()) << "worker " << w.worker;
        EXPECT_GT(w.ledger.delivered, 0u) << "worker " << w.worker;
        received += w.ledger.received;
    }
    EXPECT_EQ(received, o.requests);
}
}  // namespace

TEST_F(Workers, EachWorkerBalancesItsOwnLedgerAndTheEngineIsTheirSum) {
    Engine eng(two_worker_config());
    ASSERT_EQ(eng.workers(), 2u);
    // Queue 0 goes to worker 0, queue 1 to worker 1: different loads, so a
    // mixed-up attribution shows.
    const auto q0 = mixed_frames(eng, 300, 100, 20);
    const auto q1 = mixed_frames(eng, 500, 40, 10);
    test::inject(eng, "wire", q0, 0);
    test::inject(eng, "wire", q1, 1);
    eng.start();
    const uint64_t total = q0.size() + q1.size();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (eng.snapshot(false).ledger.received < total &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the last walk finishes
    eng.stop();

    const EngineSnapshot s = eng.snapshot();
    ASSERT_EQ(s.workers.size(), 2u);
    const WorkerSnapshot& w0 = s.workers[0];
    const WorkerSnapshot& w1 = s.workers[1];
    EXPECT_EQ(w0.worker, 0u);
    EXPECT_EQ(w1.worker, 1u);
    EXPECT_NE(w0.lcore, w1.lcore);

    // Per worker: what its own queue brought, each path where it belongs.
    EXPECT_EQ(w0.ledger.received, q0.size());
    EXPECT_EQ(w1.ledger.received, q1.size());
    EXPECT_EQ(w0.ledger.forwarded, 300u);
    EXPECT_EQ(w1.ledger.forwarded, 500u);
    EXPECT_EQ(w0.ledger.delivered, 100u);
    EXPECT_EQ(w1.ledger.delivered, 40u);
    EXPECT_EQ(w0.ledger.total_drops(), 20u);
    EXPECT_EQ(w1.ledger.total_drops(), 10u);
    EXPECT_TRUE(w0.ledger.balanced());
    EXPECT_TRUE(w1.ledger.balanced());

    // In total: the sum, and it balances.
    EXPECT_EQ(s.ledger.received, total);
    EXPECT_EQ(s.ledger.forwarded, 800u);
    EXPECT_EQ(s.ledger.delivered, 140u);
    EXPECT_TRUE(s.ledger.balanced());

    // Stages: per worker, and merged by name in the engine's rows.
    for (const char* name : {"eth_rx", "eth_input", "ip6_input", "ip6_lookup", "ip6_forward",
                             "txq_select", "eth_tx", "udp6_input", "drop"}) {
        const StageSnapshot* a = stage(w0.stages, name);
        const StageSnapshot* b = stage(w1.stages, name);
        const StageSnapshot* sum = stage(s.stages, name);
        ASSERT_TRUE(a && b && sum) << name;
        EXPECT_EQ(sum->packets, a->packets + b->packets) << name;
        EXPECT_EQ(sum->calls, a->calls + b->calls) << name;
        EXPECT_EQ(sum->cycles, a->cycles + b->cycles) << name;
        EXPECT_EQ(sum->cycles_per_call.count(), a->cycles_per_call.count() + b->cycles_per_call.count())
            << name;
    }
    EXPECT_EQ(stage(w0.stages, "eth_rx")->packets, q0.size());
    EXPECT_EQ(stage(w1.stages, "eth_rx")->packets, q1.size());
    EXPECT_EQ(stage(w0.stages, "ip6_forward")->packets, 300u);
    EXPECT_EQ(stage(w1.stages, "ip6_forward")->packets, 500u);
    // The send stage runs on worker 0 only; each worker has its neighbour
    // timer (it sends on what that worker held).
    EXPECT_NE(stage(w0.stages, "udp6_output"), nullptr);
    EXPECT_EQ(stage(w1.stages, "udp6_output"), nullptr);
    EXPECT_NE(stage(w1.stages, "nd_timer"), nullptr);

    // Queues: each receive queue's worker and its eth_rx instance's calls;
    // each worker sends on its own transmit queue.
    std::map<std::pair<std::string, uint16_t>, const QueueSnapshot*> rx, tx;
    for (const auto& q : s.queues) (q.rx ? rx : tx)[{q.port, q.queue}] = &q;
    ASSERT_TRUE(rx.count({"wire", 0}) && rx.count({"wire", 1}));
    const QueueSnapshot& r0 = *rx.at({"wire", 0});
    const QueueSnapshot& r1 = *rx.at({"wire", 1});
    EXPECT_EQ(r0.worker, 0u);
    EXPECT_EQ(r1.worker, 1u);
    EXPECT_EQ(r0.calls + r1.calls, stage(s.stages, "eth_rx")->calls);
    EXPECT_EQ(r0.cycles + r1.cycles, stage(s.stages, "eth_rx")->cycles);
    ASSERT_TRUE(tx.count({"out", 0}) && tx.count({"out", 1}));
    const QueueSnapshot& t0 = *tx.at({"out", 0});
    const QueueSnapshot& t1 = *tx.at({"out", 1});
    EXPECT_EQ(t0.packets, 300u);
    EXPECT_EQ(t1.packets, 500u);
    EXPECT_EQ(t1.worker, 1u);

    // Edges add up too.
    uint64_t rx_edge = 0;
    for (const auto& e : s.edges)
        if (e.from == "eth_rx" && e.to == "eth_input") rx_edge = e.packets;
    EXPECT_EQ(rx_edge, total);
    EXPECT_EQ(test::collect(eng, "out").size(), 800u);
}

TEST_F(Workers, PollWalksEveryWorkersGraphOnTheCallingThread) {
    Engine eng(two_worker_config());
    const auto q0 = mixed_frames(eng, 10, 5, 0);
    const auto q1 = mixed_frames(eng, 20, 0, 3);
    test::inject(eng, "wire", q0, 0);
    test::inject(eng, "wire", q1, 1);
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    EXPECT_EQ(s.workers[0].ledger.received, q0.size());
    EXPECT_EQ(s.workers[1].ledger.received, q1.size());
    EXPECT_EQ(s.ledger.received, q0.size() + q1.size());
    EXPECT_TRUE(s.ledger.balanced());
}

TEST_F(Workers, ConfigurationsThatCannotGiveEachWorkerItsQueuesAreRefusedByName) {
    EngineConfig c = two_worker_config();
    c.ports[0].rx_queues = 1;
    try {
        Engine eng(c);
        FAIL() << "one receive queue for two workers was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("engine.workers = 2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("rx_queues"), std::string::npos) << e.what();
    }
    c = two_worker_config();
    c.ports[1].tx_queues = 1;
    try {
        Engine eng(c);
        FAIL() << "one transmit queue for two workers was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("port 'out'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("tx_queues = 2"), std::string::npos) << e.what();
    }
}

// A test that failed before sockets were made safe for several workers:
// worker 1 appended to the server's ready list while worker 0 walked and
// cleared it (a socket listed then forgotten never got its datagrams).
TEST_F(Workers, ConnectedSocketsTakeDatagramsFromBothWorkersWhileNewOnesOpen) {
    expect_every_request_answered_once_to_its_client(connected_echo_from_both_workers(false));
}

// The same with early demux: its socket, found on one worker while worker 0
// opens sockets, is the one udp6_input delivers to (before, udp6_input read
// a stale socket pointer when the first connection opened between the two).
TEST_F(Workers, EarlyDemuxOnBothWorkersDeliversToTheRightSocket) {
    const EchoOutcome o = connected_echo_from_both_workers(true);
    expect_every_request_answered_once_to_its_client(o);
    EXPECT_GT(o.snapshot.events[static_cast<unsigned>(PathEvent::demux_hits)], 0u);
}

// Both workers forward to an on-link neighbour nobody knows yet: each holds
// its own packets and solicits; the advertisement reaches worker 0 only,
// and each worker then sends what it held, on its own queue, counted on its
// own ledger (before, worker 0 released and counted worker 1's packets, and
// worker 1's ledger never balanced). Reachable neighbours are read without
// a lock.
TEST_F(Workers, EachWorkerSendsOnWhatItHeldForANeighbourAnotherWorkerLearnt) {
    constexpr unsigned kPerQueue[2] = {20, 35};
    EngineConfig c = two_worker_config();
    c.nd_hold = 64;
    c.nd_retrans_s = 60;  // one solicitation a worker: the test decides when the answer comes
    Engine eng(c);
    const Ip6Addr neighbour = test::ip("2001:db8:2::77");  // on-link on "out"
    for (unsigned q = 0; q < 2; ++q) {
        std::vector<std::vector<uint8_t>> frames;
        for (unsigned i = 0; i < kPerQueue[q]; ++i) {
            FrameSpec s = test::from_peer(eng, "2001:db8:2::77");
            s.src_port = static_cast<uint16_t>(1000 + 100 * q + i);
            frames.push_back(udp6_frame(s));
        }
        test::inject(eng, "wire", frames, q);
    }
    eng.start();
    const auto wait_for = [&](auto done) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!done(eng.snapshot(false)) && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    };
    wait_for([&](const EngineSnapshot& s) {
        return s.ledger.received == kPerQueue[0] + kPerQueue[1] && s.send_path.solicitations == 2;
    });
    {
        const EngineSnapshot s = eng.snapshot(false);
        ASSERT_EQ(s.send_path.solicitations, 2u) << "each worker solicits for what it holds";
        EXPECT_EQ(s.ledger.forwarded, 0u) << "nothing leaves before the neighbour answers";
    }
    // The advertisement, on worker 0's queue.
    FrameSpec na;
    const MacAddr peer_mac{0x02, 0, 0, 0, 0, 0x77};
    na.src_mac = peer_mac;
    memcpy(na.dst_mac.data(), eng.context().ports[eng.port_id("wire")].mac.addr_bytes, 6);
    na.src = neighbour;
    na.dst = test::ip("2001:db8:2::1");
    na.hop_limit = 255;
    std::vector<uint8_t> body(28, 0);
    body[0] = 0x60;  // solicited, override
    memcpy(body.data() + 4, neighbour.data(), 16);
    body[20] = 2, body[21] = 1;  // target link-layer address option
    memcpy(body.data() + 22, peer_mac.data(), 6);
    test::inject(eng, "wire", {icmp6_frame(na, 136, 0, body)}, 0);
    wait_for([&](const EngineSnapshot& s) { return s.ledger.forwarded == kPerQueue[0] + kPerQueue[1]; });
    eng.stop();

    const EngineSnapshot s = eng.snapshot();
    ASSERT_EQ(s.workers.size(), 2u);
    for (unsigned w = 0; w < 2; ++w) {
        const Ledger& l = s.workers[w].ledger;
        EXPECT_EQ(l.forwarded, kPerQueue[w]) << "worker " << w << " sends what it held";
        EXPECT_EQ(l.total_drops(), 0u) << "worker " << w;
        EXPECT_TRUE(l.balanced()) << "worker " << w;
    }
    EXPECT_EQ(s.workers[0].ledger.delivered, 1u) << "the advertisement";
    EXPECT_TRUE(s.ledger.balanced());
    // Every datagram left with the neighbour's address, each worker's on its own queue.
    std::map<uint16_t, uint64_t> per_queue;
    for (const auto& q : s.queues)
        if (!q.rx && q.port == "out") per_queue[q.queue] += q.packets;
    EXPECT_EQ(per_queue[0], kPerQueue[0] + 1u) << "worker 0: its datagrams and its solicitation";
    EXPECT_EQ(per_queue[1], kPerQueue[1] + 1u) << "worker 1: its datagrams and its solicitation";
    unsigned to_neighbour = 0;
    for (const auto& f : test::collect(eng, "out"))
        if (memcmp(f.data(), peer_mac.data(), 6) == 0) ++to_neighbour;
    EXPECT_EQ(to_neighbour, kPerQueue[0] + kPerQueue[1]);
    uint64_t released = 0;
    for (const auto& e : s.edges)
        if (e.from == "neighbours" && e.to == "nd_resolve") released = e.packets;
    EXPECT_EQ(released, kPerQueue[0] + kPerQueue[1]) << "released by the table";
}

// ILA translation before early demux (engine.ila = early) on both workers:
// each translates and delivers what its own queue brought to one connected
// socket, early demux finds it on both, and each worker's ledger balances.
TEST_F(Workers, IlaEarlyAndEarlyDemuxOnBothWorkersDeliverEachWorkersDatagrams) {
    constexpr unsigned kPerQueue[2] = {60, 90};
    EngineConfig c = two_worker_config();
    c.ports[0].addresses.push_back({test::ip("2001:db8:5::1"), 128});  // the socket's SIR address
    c.early_demux = true;
    c.ila = IlaMode::early;
    IlaMapConfig e;
    e.identifier = {0, 0, 0, 0, 0, 0, 0, 1};
    e.locator = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0xff, 0, 0};
    e.sir_prefix = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x05, 0, 0};
    e.match = e.locator;
    c.ila_map = {e};
    Engine eng(c);
    UdpSocket sock(eng.context());
    sock.set_reuse_addr(true);
    ASSERT_EQ(sock.bind(test::ip("2001:db8:5::1"), 7000), 0);
    ASSERT_EQ(sock.connect(test::ip("2001:db8:100::5"), 5555), 0);
    for (unsigned q = 0; q < 2; ++q) {
        std::vector<std::vector<uint8_t>> frames;
        for (unsigned i = 0; i < kPerQueue[q]; ++i) {
            FrameSpec s = test::from_peer(eng, "2001:db8:ff::1", 7000);  // its ILA address
            s.src_port = 5555;
            frames.push_back(udp6_frame(s));
        }
        test::inject(eng, "wire", frames, q);
    }
    eng.start();
    const uint64_t total = kPerQueue[0] + kPerQueue[1];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (eng.snapshot(false).ledger.delivered < total && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    eng.stop();
    const EngineSnapshot s = eng.snapshot();
    ASSERT_EQ(s.workers.size(), 2u);
    for (unsigned w = 0; w < 2; ++w) {
        const Ledger& l = s.workers[w].ledger;
        EXPECT_EQ(l.received, kPerQueue[w]) << "worker " << w;
        EXPECT_EQ(l.delivered, kPerQueue[w]) << "worker " << w;
        EXPECT_TRUE(l.balanced()) << "worker " << w;
        const StageSnapshot* ila = stage(s.workers[w].stages, "ila_early");
        const StageSnapshot* demux = stage(s.workers[w].stages, "early_demux");
        ASSERT_TRUE(ila && demux) << "worker " << w;
        EXPECT_EQ(ila->packets, kPerQueue[w]) << "worker " << w;
        EXPECT_EQ(demux->packets, kPerQueue[w]) << "worker " << w;
    }
    EXPECT_TRUE(s.ledger.balanced());
    EXPECT_EQ(s.events[static_cast<unsigned>(PathEvent::ila_translations)], total);
    EXPECT_EQ(s.events[static_cast<unsigned>(PathEvent::demux_hits)], total);
    unsigned received = 0;
    rte_mbuf* m;
    while (sock.recv(&m) == 0) {
        ++received;
        rte_pktmbuf_free(m);
    }
    EXPECT_EQ(received, total);
}

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
