// Hostile traffic. The built-in generator's malformed mix at full rate for a
// whole trial, through the run driver `pathscope run` uses, on the default
// scenario (a net_ring port fed by the generator, 40,000 routes, a net_null
// uplink): every malformed frame ends under the drop reason its malformation
// names, every good frame is still delivered or forwarded, and every stage
// passes on what it took in.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "analysis/path_graph.h"
#include "capture/run.h"
#include "capture/scenario.h"
#include "capture/snapshot_rows.h"
#include "engine/generator.h"
#include "tests/engine/eal_env.h"

using namespace pathscope;
using namespace pathscope::engine;

namespace {

/// The drop reason each of the generator's malformations must end in.
DropReason reason_of(Malformation m) {
    switch (m) {
        case Malformation::bad_version: return DropReason::ip6_bad_version;
        case Malformation::truncated: return DropReason::ip6_truncated;
        case Malformation::bad_udp_checksum: return DropReason::udp_bad_checksum;
        case Malformation::not_ip6: return DropReason::eth_unknown_type;
        case Malformation::hop_limit: return DropReason::ip6_hop_limit;
        case Malformation::fragment: return DropReason::ip6_fragment;
        case Malformation::hbh_not_first: return DropReason::ip6_hbh_not_first;
        case Malformation::short_udp: return DropReason::udp_bad_length;
    }
    return DropReason::count_;
}

uint64_t drops(const Ledger& l, DropReason r) { return l.drops[static_cast<unsigned>(r)]; }

TEST(Hostile, MalformedMixAtFullRateForAWholeTrialDeliversEveryGoodFrame) {
    // Half the frames malformed, the rest forwarded (25%), to the sink (20%)
    // and to echo (5%); the generator as fast as the worker takes them.
    capture::Scenario sc = capture::load_scenario(
        std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml",
        {"workload.malformed_percent=50", "engine.duration=2.0"});
    test::init_eal();
    const capture::RunResult r = capture::run_engine(sc.engine);
    const Ledger& l = r.snapshot.ledger;
    const GeneratedMix& mix = r.mix;

    std::printf("malformed mix, %.2f s at full rate: %llu frames generated (%llu good: %llu "
                "forward, %llu sink, %llu echo; %llu malformed)\n",
                r.seconds, static_cast<unsigned long long>(r.generated),
                static_cast<unsigned long long>(mix.good()),
                static_cast<unsigned long long>(mix.forward),
                static_cast<unsigned long long>(mix.sink), static_cast<unsigned long long>(mix.echo),
                static_cast<unsigned long long>(mix.total_malformed()));
    for (unsigned k = 0; k < kMalformationCount; ++k)
        std::printf("  %-17s generated %-9llu -> %s %llu\n", kMalformationNames[k],
                    static_cast<unsigned long long>(mix.malformed[k]),
                    std::string(drop_reason_name(reason_of(static_cast<Malformation>(k)))).c_str(),
                    static_cast<unsigned long long>(drops(l, reason_of(static_cast<Malformation>(k)))));
    std::printf("  ledger: received %llu delivered %llu forwarded %llu replied %llu drops %llu; "
                "echo sends %llu sent %llu\n",
                static_cast<unsigned long long>(l.received),
                static_cast<unsigned long long>(l.delivered),
                static_cast<unsigned long long>(l.forwarded),
                static_cast<unsigned long long>(l.replied),
                static_cast<unsigned long long>(l.total_drops()),
                static_cast<unsigned long long>(l.sends), static_cast<unsigned long long>(l.sent));

    // A whole trial at full rate: far more than one pass over the templates.
    EXPECT_GT(r.generated, 10000u);
    EXPECT_EQ(mix.total(), r.generated);
    EXPECT_EQ(l.received, r.generated) << "the worker took every frame the generator put in";
    EXPECT_TRUE(l.balanced()) << "received " << l.received << " delivered " << l.delivered
                              << " forwarded " << l.forwarded << " replied " << l.replied
                              << " drops " << l.total_drops();

    // Every malformed frame under the reason its malformation names; a frame
    // whose hop limit ran out may get an ICMPv6 time exceeded instead
    // (rate-limited: engine.icmp_errors_per_s), counted as replied.
    for (unsigned k = 0; k < kMalformationCount; ++k) {
        const auto m = static_cast<Malformation>(k);
        EXPECT_GT(mix.malformed[k], 0u) << kMalformationNames[k];
        EXPECT_EQ(drops(l, reason_of(m)) + (m == Malformation::hop_limit ? l.replied : 0),
                  mix.malformed[k])
            << kMalformationNames[k] << " frames must end in "
            << drop_reason_name(reason_of(m));
    }
    // ... and no other drop: the good frames are all delivered or forwarded.
    uint64_t expected_drops = 0;
    for (unsigned k = 0; k < kMalformationCount; ++k)
        expected_drops += drops(l, reason_of(static_cast<Malformation>(k)));
    for (unsigned d = 0; d < kDropReasonCount; ++d)
        if (l.drops[d]) {
            bool malformation = false;
            for (unsigned k = 0; k < kMalformationCount; ++k)
                malformation |= reason_of(static_cast<Malformation>(k)) == static_cast<DropReason>(d);
            EXPECT_TRUE(malformation) << l.drops[d] << " good frames dropped as " << kDropReasonNames[d];
        }
    EXPECT_EQ(l.total_drops(), expected_drops);
    EXPECT_EQ(l.delivered, mix.sink + mix.echo);
    EXPECT_EQ(l.forwarded, mix.forward);
    EXPECT_EQ(l.delivered + l.forwarded, mix.good());
    // The echo application answered every datagram it was given (sent, or
    // refused by the generator's transmit ring under a named reason).
    EXPECT_EQ(l.sends, mix.echo);
    EXPECT_TRUE(l.send_balanced()) << "sends " << l.sends << " sent " << l.sent << " send drops "
                                   << l.total_send_drops();

    // Per stage and per edge: what each stage took in it handled and passed on.
    db::RunData run;
    run.rows = capture::trial_rows(0, r);
    const analysis::PathGraph g = analysis::path_graph(run);
    const auto balance = analysis::path_balance(g, run);
    ASSERT_GE(balance.size(), 10u);
    for (const auto& b : balance)
        EXPECT_TRUE(b.ok()) << b.node << ": in " << b.in << ", packets " << b.packets << ", out "
                            << b.out;
    std::map<std::string, uint64_t> stage;
    for (const auto& s : r.snapshot.stages) stage[s.name] = s.packets;
    EXPECT_EQ(stage["eth_rx"], l.received);
    EXPECT_EQ(stage["drop"], l.total_drops() + l.total_send_drops());
    // The stored rows name every drop and say how many frames were malformed.
    uint64_t named = 0;
    for (const auto& d : run.rows.drops)
        if (d.path == "receive") named += d.packets;
    EXPECT_EQ(named, l.total_drops());
    bool fact_seen = false;
    for (const auto& [k, v] : run.rows.facts)
        if (k == "trial0.generated_malformed") {
            EXPECT_EQ(v, std::to_string(mix.total_malformed()));
            fact_seen = true;
        }
    EXPECT_TRUE(fact_seen);
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
