// Policy rules on a real engine: the fast path never enters the rules layer
// while only the default rules exist, the slow path enters it on every
// lookup, and with custom rules each address resolves to the table that the
// highest-priority matching rule names (a miss going on to the next rule),
// checked against this test's own small rule matcher.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include "engine/dpdk.h"
#include "engine/engine.h"
#include "engine/routes.h"
#include "tests/engine/eal_env.h"

using namespace pathscope;
using namespace pathscope::engine;
using test::from_peer;
using test::ip;
using Frame = std::vector<uint8_t>;

namespace {

class FibRulesTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { test::init_eal(); }
};

uint64_t event(const EngineSnapshot& s, PathEvent e) { return s.events[static_cast<unsigned>(e)]; }

uint64_t stage(const EngineSnapshot& s, const std::string& name) {
    for (const auto& st : s.stages)
        if (st.name == name) return st.packets;
    return 0;
}

/// Forwarded, local and unroutable packets from the wire port.
struct Mix {
    unsigned forward = 40, local = 30, no_route = 20;
    std::vector<Frame> frames(const Engine& e) const {
        std::vector<Frame> f;
        for (unsigned i = 0; i < forward; ++i) f.push_back(udp6_frame(from_peer(e, "2001:db8:aaaa::1")));
        for (unsigned i = 0; i < local; ++i) f.push_back(udp6_frame(from_peer(e, "2001:db8:1::1", 9)));
        for (unsigned i = 0; i < no_route; ++i) f.push_back(udp6_frame(from_peer(e, "3fff::1")));
        return f;
    }
    unsigned total() const { return forward + local + no_route; }
};

TEST_F(FibRulesTest, FastPathWithoutCustomRulesNeverEntersTheRuleLayer) {
    EngineConfig c = test::ring_config();
    c.fib_rules_fast_path = true;
    Engine eng(c);
    const Mix mix;
    test::inject(eng, "wire", mix.frames(eng));
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    ASSERT_EQ(stage(s, "ip6_lookup"), mix.total());
    EXPECT_EQ(event(s, PathEvent::rule_layer_entries), 0u);
    EXPECT_EQ(event(s, PathEvent::rules_evaluated), 0u);
    EXPECT_EQ(event(s, PathEvent::fib_lookups), mix.total());  // one main-table lookup each
    EXPECT_EQ(s.ledger.forwarded, mix.forward);
    EXPECT_EQ(s.ledger.delivered, mix.local);  // the local /128 answers through main's copy
    EXPECT_EQ(s.ledger.drops[static_cast<unsigned>(DropReason::ip6_no_route)], mix.no_route);
    EXPECT_TRUE(s.ledger.balanced());
}

TEST_F(FibRulesTest, FastPathOffEntersTheRuleLayerOnEveryLookup) {
    EngineConfig c = test::ring_config();
    c.fib_rules_fast_path = false;
    Engine eng(c);
    const Mix mix;
    test::inject(eng, "wire", mix.frames(eng));
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    EXPECT_EQ(event(s, PathEvent::rule_layer_entries), mix.total());
    // Rules 0 local, 32766 main, 32767 default (no default table: no lookup).
    // Local address: local hits (1 rule, 1 lookup). Forwarded: local misses,
    // main hits (2, 2). No route: local, main miss, default skipped (3, 2).
    EXPECT_EQ(event(s, PathEvent::rules_evaluated), mix.local * 1 + mix.forward * 2 + mix.no_route * 3);
    EXPECT_EQ(event(s, PathEvent::fib_lookups), mix.local * 1 + mix.forward * 2 + mix.no_route * 2);
    // The same outcomes as the fast path.
    EXPECT_EQ(s.ledger.forwarded, mix.forward);
    EXPECT_EQ(s.ledger.delivered, mix.local);
    EXPECT_EQ(s.ledger.drops[static_cast<unsigned>(DropReason::ip6_no_route)], mix.no_route);
    EXPECT_TRUE(s.ledger.balanced());
}

// The fast path looks a run of packets to one destination up once
// (ip6_lookup's gather_destinations): bursts of runs of every length,
// repeats after another address, and every kind of outcome, each packet
// counted where its own destination sends it, forwarded frames on their own
// next hop's port.
TEST_F(FibRulesTest, FastPathRunsOfOneDestinationRouteEachPacketAsItsOwn) {
    EngineConfig c = test::ring_config();
    Engine eng(c);
    ASSERT_TRUE(eng.context().fib.direct());
    enum Kind { to_out, to_wire, local, no_route, mcast, kKinds };
    const char* dests[kKinds] = {"2001:db8:aaaa::1", "2001:db8:100::9", "2001:db8:1::1", "3fff::1",
                                 "ff02::2"};
    std::mt19937 rng(11);
    std::vector<Frame> frames;
    unsigned sent[kKinds] = {};
    while (frames.size() < 400) {  // runs of 1 to 5, the next kind at random (itself again too)
        const auto kind = static_cast<Kind>(rng() % kKinds);
        for (unsigned n = 1 + rng() % 5; n; --n, ++sent[kind])
            frames.push_back(udp6_frame(from_peer(eng, dests[kind])));
    }
    test::inject(eng, "wire", frames);
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    EXPECT_EQ(event(s, PathEvent::fib_lookups), frames.size());  // a packet each, as before
    EXPECT_EQ(s.ledger.forwarded, sent[to_out] + sent[to_wire]);
    EXPECT_EQ(s.ledger.delivered, sent[local]);
    EXPECT_EQ(s.ledger.drops[static_cast<unsigned>(DropReason::ip6_no_route)], sent[no_route]);
    EXPECT_EQ(s.ledger.drops[static_cast<unsigned>(DropReason::ip6_mcast_not_joined)], sent[mcast]);
    EXPECT_TRUE(s.ledger.balanced());
    for (const auto& [port, kind] : {std::pair{"out", to_out}, std::pair{"wire", to_wire}}) {
        const auto out = test::collect(eng, port);
        EXPECT_EQ(out.size(), sent[kind]) << port;
        const Ip6Addr want = ip(dests[kind]);
        for (const auto& f : out) {
            ASSERT_GE(f.size(), 14u + 40u);
            EXPECT_EQ(memcmp(f.data() + 14 + 24, want.data(), 16), 0) << "a frame on " << port;
        }
    }
}

// The fast path's one lookup (main, holding copies of the local routes)
// answers as the default rules' walk (local, then main, then default) does,
// over a BGP-shaped table, our own addresses, on-link neighbours and misses.
TEST_F(FibRulesTest, FastPathAnswersAsTheDefaultRulesWalk) {
    EngineConfig c = test::ring_config();
    c.routes_generate = 5000;
    c.routes_file_nexthop = 1;
    c.routes.push_back({*parse_prefix6("2001:db8:1::1/128"), 3});  // a main route our address shadows
    Engine on_eng(c);
    ASSERT_TRUE(on_eng.context().fib.direct());
    std::vector<Ip6Addr> probes = {ip("2001:db8:1::1"), ip("2001:db8:2::1"), ip("2001:db8:1::77"),
                                   ip("2001:db8:aaaa::1"), ip("3fff::1"), ip("::1")};
    std::mt19937_64 rng(3);
    for (const auto& r : on_eng.routes()) {
        Ip6Addr a = r.prefix.addr;
        for (int bit = r.prefix.len; bit < 128; ++bit)
            if (rng() & 1) a[bit / 8] |= static_cast<uint8_t>(0x80u >> (bit % 8));
        probes.push_back(a);
        Ip6Addr miss = a;
        miss[15] ^= 1, miss[1] ^= 0x40;  // most of these fall outside every route
        probes.push_back(miss);
    }
    std::vector<uint32_t> fast;
    for (const auto& p : probes) {
        RuleTally t;
        fast.push_back(on_eng.context().fib.lookup(p.data(), p.data(), 0, t));
        EXPECT_EQ(t.entries, 0u);
    }
    EXPECT_EQ(fast[0], kNexthopLocal);  // our address, not the main route to "stuck"
    c.fib_rules_fast_path = false;
    Engine off_eng(c);
    ASSERT_FALSE(off_eng.context().fib.direct());
    unsigned misses = 0;
    for (size_t i = 0; i < probes.size(); ++i) {
        RuleTally t;
        const uint32_t walked = off_eng.context().fib.lookup(probes[i].data(), probes[i].data(), 0, t);
        EXPECT_EQ(walked, fast[i]) << format_ip6(probes[i]);
        EXPECT_EQ(t.entries, 1u);
        misses += walked == kNexthopNone;
    }
    EXPECT_GT(misses, 0u);
}

// ---- The test's own view of policy routing (independent of the engine) ----

bool covers(const std::string& prefix, const Ip6Addr& a) {
    const auto slash = prefix.find('/');
    const Ip6Addr p = ip(prefix.substr(0, slash).c_str());
    const int len = std::stoi(prefix.substr(slash + 1));
    for (int bit = 0; bit < len; ++bit) {
        const int shift = 7 - bit % 8;
        if (((p[bit / 8] >> shift) & 1) != ((a[bit / 8] >> shift) & 1)) return false;
    }
    return true;
}

struct TestRule {
    uint32_t priority;
    std::string from, to, iif;  // "" any
    uint32_t table;             // 0: unreachable
};

struct TestRoute {
    std::string prefix;
    uint32_t table;
    uint32_t nexthop;  // user next hop id
};

/// The user next hop a lookup ends at (0: no route, -1: unreachable), by
/// trying rules in priority order (ties in the order given, after the
/// defaults) and the longest covering prefix within a table.
int64_t expected_nexthop(std::vector<TestRule> rules, const std::vector<TestRoute>& routes,
                         const Ip6Addr& src, const Ip6Addr& dst, const std::string& iif) {
    rules.insert(rules.begin(), {{0, "", "", "", 255}, {32766, "", "", "", 254}, {32767, "", "", "", 253}});
    std::stable_sort(rules.begin(), rules.end(),
                     [](const TestRule& a, const TestRule& b) { return a.priority < b.priority; });
    for (const auto& r : rules) {
        if (!r.iif.empty() && r.iif != iif) continue;
        if (!r.from.empty() && !covers(r.from, src)) continue;
        if (!r.to.empty() && !covers(r.to, dst)) continue;
        if (r.table == 0) return -1;
        int best_len = -1;
        uint32_t best = 0;
        for (const auto& rt : routes) {
            const int len = std::stoi(rt.prefix.substr(rt.prefix.find('/') + 1));
            if (rt.table == r.table && covers(rt.prefix, dst) && len > best_len)
                best_len = len, best = rt.nexthop;
        }
        if (best_len >= 0) return best;
    }
    return 0;
}

TEST_F(FibRulesTest, CustomRulesResolveToTheHighestPriorityMatchingTable) {
    // Next hops 11..14 on "out", told apart by their MAC's last byte.
    const std::vector<TestRoute> routes = {
        {"2001:db8:aaaa::/48", 254, 1},  {"2001:db8:aaaa::/48", 100, 11},
        {"2001:db8:aaaa:8000::/49", 200, 12}, {"2001:db8:cccc::/48", 200, 12},
        {"2001:db8:aaaa::/48", 300, 13}, {"2001:db8:cccc:1::/64", 300, 14},
        {"2001:db8:dddd::/48", 253, 14},
    };
    const std::vector<TestRule> rules = {
        {500, "2001:db8:100::/48", "2001:db8:aaaa::/48", "", 100},  // peers to aaaa: table 100
        {400, "", "2001:db8:aaaa:8000::/49", "wire", 200},          // upper half from wire: 200 first
        {400, "2001:db8:200::/40", "", "", 300},                    // same priority, after the one above
        {600, "", "2001:db8:cccc::/48", "", 200},
        {450, "", "2001:db8:cccc:2::/64", "", 0},                   // unreachable
        {300, "2001:db8:300::/48", "", "", 999},                    // no table 999: go on
        {700, "", "", "lo", 300},                                   // our own datagrams
    };
    EngineConfig c = test::ring_config();
    c.nexthops.push_back({11, "out", {2, 0, 0, 0, 0, 11}});
    c.nexthops.push_back({12, "out", {2, 0, 0, 0, 0, 12}});
    c.nexthops.push_back({13, "out", {2, 0, 0, 0, 0, 13}});
    c.nexthops.push_back({14, "out", {2, 0, 0, 0, 0, 14}});
    c.routes.erase(std::remove_if(c.routes.begin(), c.routes.end(),
                                  [](const RouteConfig& r) { return r.nexthop == 1; }),
                   c.routes.end());
    for (const auto& r : routes) c.routes.push_back({*parse_prefix6(r.prefix), r.nexthop, r.table});
    for (const auto& r : rules) {
        RuleConfig rc;
        rc.priority = r.priority;
        if (!r.from.empty()) rc.has_from = true, rc.from = *parse_prefix6(r.from);
        if (!r.to.empty()) rc.has_to = true, rc.to = *parse_prefix6(r.to);
        rc.iif = r.iif;
        if (r.table == 0)
            rc.action = RuleAction::unreachable;
        else
            rc.table = r.table;
        c.rules.push_back(rc);
    }
    // The routes the test's matcher knows of for the other configured routes.
    std::vector<TestRoute> all = routes;
    all.push_back({"2001:db8:100::/48", 254, 2});
    all.push_back({"2001:db8:bbbb::/48", 254, 3});
    for (bool fast : {true, false}) {
        c.fib_rules_fast_path = fast;  // custom rules: the walk either way
        Engine eng(c);
        EngineContext& ctx = eng.context();
        // The user next hop id behind an engine next hop index (by MAC).
        auto user_nexthop = [&](uint32_t nh) -> int64_t {
            if (nh == kNexthopNone) return 0;
            if (nh == kNexthopUnreachable) return -1;
            for (const auto& n : c.nexthops)
                if (memcmp(ctx.nexthops[nh].mac.addr_bytes, n.mac.data(), 6) == 0) return n.id;
            return -2;
        };
        std::mt19937 rng(7);
        const char* sources[] = {"2001:db8:100::5", "2001:db8:2ff::1", "2001:db8:300::1",
                                 "2001:db8:9::1", "::"};
        const char* dests[] = {"2001:db8:aaaa::1", "2001:db8:aaaa:8000::1", "2001:db8:aaaa:ffff::1",
                               "2001:db8:cccc::1", "2001:db8:cccc:1::1", "2001:db8:cccc:2::1",
                               "2001:db8:dddd::1", "2001:db8:bbbb::1", "3fff::1"};
        const std::pair<const char*, uint16_t> iifs[] = {{"wire", eng.port_id("wire")},
                                                         {"out", eng.port_id("out")},
                                                         {"lo", kIifLocal}};
        unsigned checked = 0, walked = 0;
        std::map<int64_t, unsigned> outcomes;
        for (const char* src : sources)
            for (const char* dst : dests)
                for (const auto& [iif_name, iif] : iifs) {
                    RuleTally t;
                    const uint32_t nh = ctx.fib.lookup(ip(dst).data(), ip(src).data(), iif, t);
                    const int64_t want = expected_nexthop(rules, all, ip(src), ip(dst), iif_name);
                    EXPECT_EQ(user_nexthop(nh), want) << src << " -> " << dst << " iif " << iif_name;
                    EXPECT_EQ(t.entries, 1u);
                    ++outcomes[want];
                    ++checked;
                    walked += t.entries;
                }
        EXPECT_EQ(walked, checked);
        // The data set exercises every table, the unreachable rule and no route.
        for (int64_t nh : {-1, 0, 1, 11, 12, 13, 14}) EXPECT_GT(outcomes[nh], 0u) << nh;

        // Through the graph: frames from the peer on the wire port go out on
        // "out" to the next hop the rules pick.
        const char* fwd[] = {"2001:db8:aaaa::7", "2001:db8:aaaa:9000::7", "2001:db8:cccc:1::7",
                             "2001:db8:cccc::7", "2001:db8:dddd::7"};
        for (const char* dst : fwd) {
            const int64_t want = expected_nexthop(rules, all, ip("2001:db8:100::5"), ip(dst), "wire");
            ASSERT_GT(want, 10);
            test::inject(eng, "wire", {udp6_frame(from_peer(eng, dst))});
            eng.run_until_idle();
            const auto out = test::collect(eng, "out");
            ASSERT_EQ(out.size(), 1u) << dst;
            EXPECT_EQ(out[0][5], want) << dst;  // the next hop's MAC
        }
        const EngineSnapshot s = eng.snapshot();
        EXPECT_EQ(event(s, PathEvent::rule_layer_entries), std::size(fwd));
        EXPECT_TRUE(s.ledger.balanced());
    }
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
