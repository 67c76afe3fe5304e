// Hostile traffic. The built-in generator's malformed mix at full rate for a
// whole trial, through the run driver `pathscope run` uses, on the default
// scenario (a net_ring port fed by the generator, 40,000 routes, a net_null
// uplink): every malformed frame ends under the drop reason its malformation
// names, every good frame is still delivered or forwarded, and every stage
// passes on what it took in. And the corpus mutated by editcap, replayed at
// full rate on a net_pcap port for a whole trial: counters consistent.
#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "analysis/verdicts/path_graph.h"
#include "capture/pcap_probe.h"
#include "capture/pcap_reader.h"
#include "capture/run.h"
#include "capture/scenario.h"
#include "capture/snapshot_rows.h"
#include "workload/frame_builder.h"
#include "workload/generator.h"
#include "tests/engine/eal_env.h"
#include "tests/support/mutated_corpus.h"
#include "tests/support/setup_skip.h"
#include "tests/support/temp_dir.h"

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
    uint64_t uplink_tx = 0;
    for (const auto& q : r.snapshot.queues)
        if (!q.rx && q.port == "uplink") uplink_tx += q.packets;
    EXPECT_EQ(uplink_tx, l.forwarded) << "the forwarded frames left by the uplink";
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

TEST(Hostile, MutatedCorpusReplayedOnAPortForAWholeTrial) {
    if (test::corpus_files().empty())
        PATHSCOPE_SKIP_UNLESS_SETUP("corpus folder " << test::kCorpusDir << " is absent "
                                    "(it sits beside the checkout in this layout)");
    const std::string editcap = test::find_editcap();
    if (editcap.empty())
        PATHSCOPE_SKIP_UNLESS_SETUP("editcap is not installed (wireshark-common, which "
                                    "scripts/setup.sh's tshark pulls in)");
    const test::TempDir dir("hostile_replay");
    const auto files = test::mutate_corpus(editcap, dir.path(), test::mutation_seeds());
    // Every mutated Ethernet capture, one after the other, in one file; frames
    // cut to one mbuf (2048 bytes) as editcap -s would, which a looped replay
    // needs (the test below).
    const std::string merged = dir.file("mutated-ethernet.pcap");
    pcap_t* dead = pcap_open_dead(DLT_EN10MB, 262144);
    pcap_dumper_t* dump = pcap_dump_open(dead, merged.c_str());
    ASSERT_NE(dump, nullptr) << pcap_geterr(dead);
    unsigned captures = 0;
    uint64_t frames = 0;
    for (const auto& m : files) {
        if (m.path.empty()) continue;
        capture::PcapReader reader(m.path.string());
        if (reader.link_type() != DLT_EN10MB) continue;
        capture::PcapReader::Packet p;
        while (reader.next(p)) {
            pcap_pkthdr h{};
            h.ts = p.ts;
            h.caplen = std::min<uint32_t>(p.cap_len, 2048);
            h.len = p.wire_len;
            pcap_dump(reinterpret_cast<u_char*>(dump), &h, p.data);
            ++frames;
        }
        ++captures;
    }
    pcap_dump_close(dump);
    pcap_close(dead);
    ASSERT_GT(frames, 0u);

    // The default scenario (40,000 routes, sink and echo, ICMPv6 errors
    // rate-limited) with its wire port replaying that file in a loop, and a
    // default route out of the uplink so that what parses is forwarded.
    capture::Scenario sc = capture::load_scenario(
        std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml",
        {"workload.kind=\"pcap\"", "workload.file=" + merged, "workload.infinite=true",
         "engine.duration=1.5", "route.0.prefix=\"::/0\"", "route.0.nexthop=1"});
    test::init_eal();
    const capture::RunResult r = capture::run_engine(sc.engine);
    const Ledger& l = r.snapshot.ledger;
    std::printf("mutated replay on a port: %u captures (%llu frames) looped for %.2f s: received "
                "%llu, delivered %llu, forwarded %llu, replied %llu, dropped %llu\n",
                captures, static_cast<unsigned long long>(frames), r.seconds,
                static_cast<unsigned long long>(l.received),
                static_cast<unsigned long long>(l.delivered),
                static_cast<unsigned long long>(l.forwarded),
                static_cast<unsigned long long>(l.replied),
                static_cast<unsigned long long>(l.total_drops()));
    for (unsigned d = 0; d < kDropReasonCount; ++d)
        if (l.drops[d])
            std::printf("  drop %-22s %llu\n", std::string(kDropReasonNames[d]).c_str(),
                        static_cast<unsigned long long>(l.drops[d]));
    EXPECT_GT(l.received, frames) << "the file went round more than once";
    EXPECT_TRUE(l.balanced()) << "received " << l.received << " delivered " << l.delivered
                              << " forwarded " << l.forwarded << " replied " << l.replied
                              << " drops " << l.total_drops();
    EXPECT_TRUE(l.send_balanced()) << "sends " << l.sends << " sent " << l.sent;
    EXPECT_GT(l.total_drops(), 0u);
    EXPECT_GT(l.forwarded, 0u);
    db::RunData run;
    run.rows = capture::trial_rows(0, r);
    const analysis::PathGraph g = analysis::path_graph(run);
    for (const auto& b : analysis::path_balance(g, run))
        EXPECT_TRUE(b.ok()) << b.node << ": in " << b.in << ", packets " << b.packets << ", out "
                            << b.out;
    uint64_t named = 0;
    for (const auto& d : run.rows.drops)
        if (d.path == "receive") {
            EXPECT_FALSE(d.reason.empty());
            named += d.packets;
        }
    EXPECT_EQ(named, l.total_drops());
}

// A frame in several segments with padding past its IPv6 length (a driver's
// minimum frame, a capture's trailer) that reaches into an earlier segment,
// or is more than 64 KiB: forwarded cut to its IPv6 length, as a one-segment
// frame is (rte_pktmbuf_trim alone cuts only within the last segment).
TEST(Hostile, PaddingReachingIntoAnEarlierSegmentIsCut) {
    test::init_eal();
    Engine eng(test::ring_config());
    FrameSpec spec = test::from_peer(eng, "2001:db8:aaaa::1");
    spec.payload = 846;  // 14 + 40 + 8 + 846 = 908 bytes
    const std::vector<uint8_t> frame = udp6_frame(spec);
    struct Case {
        size_t padded;
        uint16_t segment;
    };
    for (const Case c : {Case{2000, 1000}, Case{70000, 2048}, Case{3000, 2048}}) {
        SCOPED_TRACE(std::to_string(c.padded) + " bytes in segments of " + std::to_string(c.segment));
        std::vector<uint8_t> padded = frame;
        padded.resize(c.padded, 0xee);
        test::inject_segments(eng, "wire", padded, c.segment);
        eng.run_until_idle();
        const auto out = test::collect(eng, "out");
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].size(), frame.size());
        EXPECT_EQ(out[0][kEthLen + kIp6Len + kUdpLen + 845], frame[kEthLen + kIp6Len + kUdpLen + 845]);
    }
    const Ledger l = eng.snapshot().ledger;
    EXPECT_EQ(l.forwarded, 3u);
    EXPECT_TRUE(l.balanced());
}

// The corpus's BIG TCP capture (one 80,054-byte frame) replayed on a
// net_pcap port with a default route out of a net_pcap port that writes a
// file: DPDK 22.11's net_pcap gives the frame segments for 80054 - 65536
// bytes, and writing it out read past them (`pathscope run` died of SIGSEGV).
// Now dropped by name at eth_input.
TEST(Hostile, BigTcpCaptureForwardedToAPcapPortIsDroppedByName) {
    const auto file = test::kCorpusDir / "bigtcp-ipv6.pcap";
    if (!std::filesystem::exists(file))
        PATHSCOPE_SKIP_UNLESS_SETUP(file << " is absent (the corpus sits beside the checkout)");
    const test::TempDir dir("hostile_bigtcp");
    capture::Scenario sc = capture::load_scenario(
        std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml",
        {"workload.kind=\"pcap\"", "workload.file=" + file.string(), "engine.duration=0.3",
         "route.0.prefix=\"::/0\"", "route.0.nexthop=1",
         "port.uplink.device=\"net_pcap_bigtcp_out,tx_pcap=" + dir.file("out.pcap") + "\""});
    test::init_eal();
    const capture::RunResult r = capture::run_engine(sc.engine);
    const Ledger& l = r.snapshot.ledger;
    EXPECT_EQ(l.received, 1u);
    EXPECT_EQ(drops(l, DropReason::eth_bad_length), 1u);
    EXPECT_TRUE(l.balanced());
}

// A looped replay (workload.infinite) of a capture with a frame larger than
// one mbuf: net_pcap would refuse its queue with "Invalid argument"; the run
// is refused before that with the packet, its size and what to do.
TEST(Hostile, LoopedReplayOfAFrameLargerThanAnMbufIsRefusedClearly) {
    const test::TempDir dir("hostile_big");
    const std::string file = dir.file("big-frame.pcap");
    pcap_t* dead = pcap_open_dead(DLT_EN10MB, 262144);
    pcap_dumper_t* dump = pcap_dump_open(dead, file.c_str());
    ASSERT_NE(dump, nullptr) << pcap_geterr(dead);
    test::init_eal();
    EngineConfig cfg = test::ring_config();
    std::vector<uint8_t> small, big;
    {
        const Engine frames_for(cfg);  // the wire port's MAC, for the frames
        small = udp6_frame(test::from_peer(frames_for, "2001:db8:1::1", 9));
        FrameSpec big_spec = test::from_peer(frames_for, "2001:db8:1::1", 9);
        big_spec.payload = 3000;
        big = udp6_frame(big_spec);
    }
    for (const auto* f : {&small, &big, &small}) {
        pcap_pkthdr h{};
        h.caplen = h.len = static_cast<uint32_t>(f->size());
        pcap_dump(reinterpret_cast<u_char*>(dump), &h, f->data());
    }
    pcap_dump_close(dump);
    pcap_close(dead);

    cfg.workload.kind = WorkloadKind::pcap;
    cfg.workload.pcap = {"wire", file, true};
    try {
        capture::prepare_workload(cfg);
        FAIL() << "a looped replay of a " << big.size() << "-byte frame was accepted";
    } catch (const std::runtime_error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(file), std::string::npos) << msg;
        EXPECT_NE(msg.find("packet 2 is " + std::to_string(big.size()) + " bytes"),
                  std::string::npos)
            << msg;
        EXPECT_NE(msg.find("workload.infinite = false"), std::string::npos) << msg;
    }
    // Replayed once through, the same file is taken whole.
    cfg.workload.pcap.infinite = false;
    capture::prepare_workload(cfg);
    Engine eng(cfg);
    eng.run_until_idle(256);
    const Ledger l = eng.snapshot().ledger;
    EXPECT_EQ(l.received, 3u);
    EXPECT_EQ(l.delivered, 3u);
    EXPECT_TRUE(l.balanced());
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
