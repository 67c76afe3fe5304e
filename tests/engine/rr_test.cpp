// The request/response workload on a real engine: every stream's requests
// are answered on its own connected socket of the echo server, the round
// trips land in the rr histogram one per transaction, a lost request is sent
// again after its timeout (and a late answer to the lost one is not taken
// for the resend's), and clients past the server's limit are still answered.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "engine/dpdk.h"
#include "engine/engine.h"
#include "workload/rr_client.h"
#include "tests/engine/eal_env.h"

using namespace pathscope;
using namespace pathscope::engine;

namespace {

class Rr : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { test::init_eal(); }
};

/// ring_config with its echo app on port 7 connected, and an rr workload of
/// `streams` peers in 2001:db8:100::/48 (routed back out of "wire").
EngineConfig rr_config(uint32_t streams, bool connected = true, uint32_t max_clients = 1024) {
    EngineConfig c = test::ring_config();
    c.apps[1].connected = connected;
    c.apps[1].max_clients = max_clients;
    c.workload.kind = WorkloadKind::rr;
    RrConfig& rr = c.workload.rr;
    rr.port = "wire";
    rr.streams = streams;
    rr.server = test::ip("2001:db8:1::1");
    rr.server_port = 7;
    rr.source_prefix = {test::ip("2001:db8:100::"), 48};
    return c;
}

uint64_t event(const EngineSnapshot& s, PathEvent e) { return s.events[static_cast<unsigned>(e)]; }

/// Cycles the worker spent on packets: stages' busy calls (the graph's and
/// the applications' polls, the "apps" row).
uint64_t busy_cycles(const EngineSnapshot& s) {
    uint64_t c = 0;
    for (const auto& st : s.stages) c += st.cycles - st.idle_cycles;
    return c;
}

/// Drops what waits on the wire port's receive ring: requests lost on the way.
unsigned lose_requests(Engine& eng) {
    rte_mbuf* m;
    unsigned n = 0;
    while (rte_ring_dequeue(eng.ring_port("wire").rx[0], reinterpret_cast<void**>(&m)) == 0) {
        rte_pktmbuf_free(m);
        ++n;
    }
    return n;
}

// The review's shape: 200 streams against the connected echo server, on the
// worker lcore, with the peers on their own thread.
TEST_F(Rr, TwoHundredStreamsEachGetTheirResponsesOnTheirOwnSocket) {
    const uint32_t kStreams = 200;
    EngineConfig cfg = rr_config(kStreams);
    // Nothing is lost on the rings; a generous timeout keeps a thread that
    // the scheduler set aside (on a loaded machine) from resending.
    cfg.workload.rr.timeout_s = 30.0;
    Engine eng(cfg);
    RrClient client(eng, cfg.workload.rr);
    eng.start();
    client.start();
    // Waits on the transactions themselves (a minute at most each), never
    // for a time: first one per stream, then 50 per stream more.
    const auto transactions_reach = [&](uint64_t n) {
        const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        EngineSnapshot snap = eng.snapshot();
        while (event(snap, PathEvent::rr_transactions) < n && std::chrono::steady_clock::now() < limit) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            snap = eng.snapshot();
        }
        return snap;
    };
    const EngineSnapshot a = transactions_reach(kStreams);
    const EngineSnapshot b = transactions_reach(event(a, PathEvent::rr_transactions) + 50 * kStreams);
    client.stop();
    eng.stop();
    eng.run_until_idle();  // takes in, and answers, the requests still on the wire
    const EngineSnapshot s = eng.snapshot();

    // The server opened exactly one connected socket per stream.
    EXPECT_EQ(eng.context().connected_count.load(), kStreams);
    EXPECT_EQ(event(s, PathEvent::rr_server_unconnected), 0u);
    // Nothing was lost, so nothing timed out and no response came late.
    EXPECT_EQ(client.timeouts(), 0u);
    EXPECT_EQ(event(s, PathEvent::rr_timeouts), 0u);
    EXPECT_EQ(client.late(), 0u);
    EXPECT_EQ(client.other(), 0u);
    // One transaction per response, every one in the histogram; no stream starved.
    const std::vector<uint64_t> per_stream = client.per_stream();
    uint64_t sum = 0, least = UINT64_MAX;
    for (uint64_t d : per_stream) sum += d, least = std::min(least, d);
    EXPECT_EQ(sum, client.transactions());
    EXPECT_EQ(event(s, PathEvent::rr_transactions), client.transactions());
    EXPECT_EQ(s.rr_latency.count(), client.transactions());
    EXPECT_GE(least, 20u) << "a stream starved";
    // Each request was delivered once; a stream has at most one in flight,
    // so requests = transactions + the ones in flight at the stop.
    EXPECT_GE(client.requests(), client.transactions());
    EXPECT_LE(client.requests(), client.transactions() + kStreams);
    // The ledgers balance, with nothing dropped: every request was delivered
    // to a socket, every echo sent.
    const Ledger& l = s.ledger;
    EXPECT_TRUE(l.balanced());
    EXPECT_TRUE(l.send_balanced());
    EXPECT_EQ(l.total_drops(), 0u);
    EXPECT_EQ(l.total_send_drops(), 0u);
    EXPECT_EQ(l.received, client.requests());
    EXPECT_EQ(l.delivered, l.received);
    EXPECT_EQ(l.sent, l.delivered);
    // Round trips: more than the engine's bare path can take, none beyond
    // the timeout. How short they are is a figure (printed below, and the
    // rr benchmark's), not a verdict: a loaded machine stretches them.
    const double hz = static_cast<double>(s.tsc_hz);
    EXPECT_GT(s.rr_latency.min(), 100u);
    EXPECT_LT(static_cast<double>(s.rr_latency.max()), hz * cfg.workload.rr.timeout_s);

    const uint64_t tx = event(b, PathEvent::rr_transactions) - event(a, PathEvent::rr_transactions);
    const double seconds = static_cast<double>(b.tsc - a.tsc) / hz;
    const double busy = static_cast<double>(busy_cycles(b) - busy_cycles(a));
    std::printf(
        "rr %u streams: %.0f transactions/s, round trip p50 %.1f us p90 %.1f us p99 %.1f us "
        "(p50 %.0f cycles, p99 %.0f cycles), worker busy %.1f%%, %.0f busy cycles/transaction\n",
        kStreams, static_cast<double>(tx) / seconds, s.rr_latency.percentile(50) / hz * 1e6,
        s.rr_latency.percentile(90) / hz * 1e6, s.rr_latency.percentile(99) / hz * 1e6,
        s.rr_latency.percentile(50), s.rr_latency.percentile(99),
        100 * busy / static_cast<double>(b.tsc - a.tsc), busy / static_cast<double>(tx));
    EXPECT_GT(tx, 0u);
    EXPECT_GT(busy, 0);
}

// A request lost on the wire is sent again after the timeout; when both the
// copy that timed out and its resend reach the server, the first response is
// late (not taken for the resend's), the second completes the transaction,
// and the two requests of a stream still share its one connected socket.
TEST_F(Rr, LostRequestIsResentAndALateResponseIsNotTakenForItsResend) {
    const uint32_t kStreams = 8;
    EngineConfig cfg = rr_config(kStreams);
    cfg.workload.rr.timeout_s = 0.002;
    Engine eng(cfg);
    RrClient client(eng, cfg.workload.rr);
    client.step();
    ASSERT_EQ(lose_requests(eng), kStreams);
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
    client.step();  // every stream timed out: resent
    EXPECT_EQ(client.timeouts(), kStreams);
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
    client.step();  // timed out again, while the first resend still waits on the wire
    EXPECT_EQ(client.timeouts(), 2 * kStreams);
    EXPECT_EQ(client.requests(), 3 * kStreams);
    eng.run_until_idle();
    client.step();
    EXPECT_EQ(client.late(), kStreams);
    EXPECT_EQ(client.transactions(), kStreams);
    for (uint64_t d : client.per_stream()) EXPECT_EQ(d, 1u);
    const EngineSnapshot s = eng.snapshot();
    EXPECT_EQ(event(s, PathEvent::rr_timeouts), 2 * kStreams);
    EXPECT_EQ(event(s, PathEvent::rr_transactions), kStreams);
    EXPECT_EQ(s.rr_latency.count(), kStreams);
    EXPECT_EQ(eng.context().connected_count.load(), kStreams);
    EXPECT_EQ(event(s, PathEvent::rr_server_unconnected), 0u);
    EXPECT_EQ(s.ledger.delivered, 2 * kStreams);
    EXPECT_TRUE(s.ledger.balanced());
}

// Past the server's limit of client sockets, clients are still answered,
// from the bound socket, and each such request is counted.
TEST_F(Rr, ClientsPastTheLimitAreAnsweredFromTheBoundSocket) {
    const uint32_t kStreams = 6, kLimit = 4, kRounds = 50;
    EngineConfig cfg = rr_config(kStreams, true, kLimit);
    Engine eng(cfg);
    RrClient client(eng, cfg.workload.rr);
    for (unsigned r = 0; r < kRounds; ++r) {
        client.step();
        eng.run_until_idle(4);
    }
    client.step();  // takes the last responses (and sends the next requests, unanswered)
    const EngineSnapshot s = eng.snapshot();
    EXPECT_EQ(eng.context().connected_count.load(), kLimit);
    const std::vector<uint64_t> done = client.per_stream();
    // Driven in lock step, every stream completes one transaction a round.
    for (uint64_t d : done) EXPECT_EQ(d, kRounds);
    // The first kLimit streams' first requests opened the sockets; the rest
    // were answered from the bound socket, every time.
    EXPECT_EQ(event(s, PathEvent::rr_server_unconnected), (kStreams - kLimit) * kRounds);
    EXPECT_EQ(event(s, PathEvent::rr_transactions), kStreams * kRounds);
    EXPECT_EQ(client.timeouts(), 0u);
    EXPECT_TRUE(s.ledger.balanced());
    EXPECT_TRUE(s.ledger.send_balanced());
    EXPECT_EQ(s.ledger.sent, kStreams * kRounds);
}

// The plain echo app (connected = false) answers the same streams from its
// one bound socket: the workload does not depend on the server's design.
TEST_F(Rr, PlainEchoServesTheStreamsWithoutConnectedSockets) {
    const uint32_t kStreams = 5, kRounds = 10;
    EngineConfig cfg = rr_config(kStreams, false);
    Engine eng(cfg);
    RrClient client(eng, cfg.workload.rr);
    for (unsigned r = 0; r < kRounds; ++r) {
        client.step();
        eng.run_until_idle(4);
    }
    client.step();
    EXPECT_EQ(eng.context().connected_count.load(), 0u);
    EXPECT_EQ(client.transactions(), kStreams * kRounds);
    EXPECT_EQ(event(eng.snapshot(), PathEvent::rr_server_unconnected), 0u);
}

TEST_F(Rr, SettingsTheClientCannotUseAreRefusedByName) {
    EngineConfig cfg = rr_config(4);
    Engine eng(cfg);
    RrConfig small = cfg.workload.rr;
    small.payload = 7;
    try {
        RrClient c(eng, small);
        FAIL() << "a 7-byte payload was taken";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("workload.rr.payload"), std::string::npos) << e.what();
    }
    RrConfig not_ring = cfg.workload.rr;
    not_ring.port = "nosuch";
    EXPECT_THROW(RrClient(eng, not_ring), std::runtime_error);
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
