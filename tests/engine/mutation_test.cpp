// Mutation replay, as Wireshark tests its dissectors: every capture of
// ../shared/corpus/pcap, damaged by `editcap -E 0.02` with several seeds
// (written at test time into a temporary folder), goes through the importer
// (`pathscope import pcap`) and through the engine (workload.kind = "pcap":
// a net_pcap port replaying the file). No crash, and for every file the
// receive ledger balances (received = delivered + forwarded + replied + all
// drops), every drop has a named reason, and every stage passes on what it
// took in. One EAL process replays all the files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "analysis/verdicts/path_graph.h"
#include "capture/pcap_import.h"
#include "capture/pcap_probe.h"
#include "capture/pcap_reader.h"
#include "capture/run.h"
#include "capture/snapshot_rows.h"
#include "db/queries.h"
#include "db/schema.h"
#include "engine/engine.h"
#include "tests/engine/eal_env.h"
#include "tests/support/mutated_corpus.h"
#include "tests/support/run_facts.h"
#include "tests/support/setup_skip.h"
#include "tests/support/temp_dir.h"

using namespace pathscope;
using namespace pathscope::engine;
namespace fs = std::filesystem;

namespace {

using test::fact;

/// Every stage's packets in = handled = out, by the function the Path page uses.
void expect_stages_balance(const db::RunData& run) {
    const analysis::PathGraph g = analysis::path_graph(run);
    for (const auto& b : analysis::path_balance(g, run))
        EXPECT_TRUE(b.ok()) << b.node << ": in " << b.in << ", packets " << b.packets << ", out "
                            << b.out;
}

/// The mutated corpus, or a skip (a failure under CI=true) naming what is missing.
#define MUTATED_CORPUS_OR_SKIP(dir, files)                                                       \
    if (test::corpus_files().empty())                                                            \
        PATHSCOPE_SKIP_UNLESS_SETUP("corpus folder " << test::kCorpusDir << " is absent "        \
                                    "(it sits beside the checkout in this layout)");           \
    const std::string editcap = test::find_editcap();                                           \
    if (editcap.empty())                                                                         \
        PATHSCOPE_SKIP_UNLESS_SETUP("editcap is not installed (wireshark-common, which "       \
                                    "scripts/setup.sh's tshark pulls in)");                      \
    const std::vector<test::MutatedFile> files =                                                 \
        test::mutate_corpus(editcap, (dir).path(), test::mutation_seeds())

/// editcap refuses only what libpcap cannot read either.
void expect_refusal_is_the_sources(const test::MutatedFile& m) {
    EXPECT_THROW(capture::PcapReader{m.source.string()}, std::runtime_error)
        << "editcap did not mutate " << m.source << " (seed " << m.seed << "), which libpcap reads";
}

void print_drops(const char* what, const std::map<std::string, uint64_t>& drops) {
    for (const auto& [reason, n] : drops) std::printf("  %s drop %-22s %llu\n", what, reason.c_str(),
                                                      static_cast<unsigned long long>(n));
}

TEST(MutatedCorpus, ThroughTheImporter) {
    const test::TempDir dir("mutated_import");
    MUTATED_CORPUS_OR_SKIP(dir, files);
    test::init_eal();
    const std::string store = dir.file("imports.db");
    unsigned imported = 0, refused = 0;
    uint64_t packets = 0, received = 0;
    std::map<std::string, uint64_t> drops;
    for (const auto& m : files) {
        SCOPED_TRACE(m.source.filename().string() + " seed " + std::to_string(m.seed));
        if (m.path.empty()) {
            expect_refusal_is_the_sources(m);
            continue;
        }
        db::RunData run;
        try {
            run = capture::import_pcap(m.path.string(), store);
        } catch (const std::runtime_error& e) {
            // Only a link type pathscope does not parse (the header is not mutated).
            const std::string msg = e.what();
            EXPECT_NE(msg.find(m.path.string()), std::string::npos) << msg;
            EXPECT_NE(msg.find("link type"), std::string::npos) << msg;
            EXPECT_THROW(capture::import_pcap(m.source.string(), store), std::runtime_error)
                << "the source imports, its mutation does not: " << msg;
            ++refused;
            continue;
        }
        ASSERT_EQ(run.rows.trials.size(), 1u);
        const auto& t = run.rows.trials[0];
        EXPECT_EQ(t.received, t.delivered + t.forwarded + t.replied + t.dropped)
            << "received " << t.received << " delivered " << t.delivered << " forwarded "
            << t.forwarded << " replied " << t.replied << " dropped " << t.dropped;
        uint64_t named = 0;
        for (const auto& d : run.rows.drops) {
            if (d.path != "receive") continue;
            EXPECT_FALSE(d.reason.empty());
            named += d.packets;
            drops[d.reason] += d.packets;
        }
        EXPECT_EQ(named, t.dropped) << "every drop under a named reason";
        // Every packet of the file is accounted for: parsed by the engine,
        // too big for an mbuf, or shorter than its link-layer header.
        const uint64_t in_file = std::stoull(fact(run, "pcap.packets"));
        const std::string big = fact(run, "pcap.too_big_to_parse");
        EXPECT_EQ(t.received + (big.empty() ? 0 : std::stoull(big)) +
                      std::stoull(fact(run, "pcap.not_parsed_short")),
                  in_file);
        expect_stages_balance(run);
        ++imported;
        packets += in_file;
        received += t.received;
    }
    std::printf("mutated import: %zu files (%zu corpus captures x %zu seeds, editcap -E 0.02): "
                "%u imported, %u refused by link type; %llu packets, %llu through the engine\n",
                files.size(), test::corpus_files().size(), test::mutation_seeds().size(), imported,
                refused, static_cast<unsigned long long>(packets),
                static_cast<unsigned long long>(received));
    print_drops("import", drops);
    EXPECT_GT(imported, files.size() / 2);
    auto db = db::open_store(store, db::Database::Mode::read_only);
    EXPECT_EQ(db::list_runs(*db).size(), imported);
}

TEST(MutatedCorpus, ThroughTheEngine) {
    const test::TempDir dir("mutated_engine");
    MUTATED_CORPUS_OR_SKIP(dir, files);
    test::init_eal();
    unsigned replayed = 0, refused = 0;
    uint64_t packets = 0;
    Ledger all;
    for (const auto& m : files) {
        SCOPED_TRACE(m.source.filename().string() + " seed " + std::to_string(m.seed));
        if (m.path.empty()) {
            expect_refusal_is_the_sources(m);
            continue;
        }
        EngineConfig cfg = test::ring_config();
        cfg.workload.kind = WorkloadKind::pcap;
        cfg.workload.pcap = {"wire", m.path.string(), false};
        cfg.icmp_errors_per_s = 1000;  // errors answered too: more of the path under fire
        cfg.routes.push_back({Prefix6{{}, 0}, 1});  // a default route: what parses is forwarded
        capture::PcapInfo info;
        try {
            info = capture::probe_ethernet_capture(m.path.string());
        } catch (const std::runtime_error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(m.path.string()), std::string::npos) << msg;
            EXPECT_NE(msg.find("not Ethernet"), std::string::npos) << msg;
            EXPECT_THROW(capture::prepare_workload(cfg), std::runtime_error);
            ++refused;
            continue;
        }
        capture::prepare_workload(cfg);
        Engine eng(cfg);
        eng.run_until_idle(256);
        eng.stop();  // what waits for a neighbour is dropped by name
        capture::RunResult r;
        r.snapshot = eng.snapshot();
        const Ledger& l = r.snapshot.ledger;
        EXPECT_EQ(l.received, info.packets);
        EXPECT_TRUE(l.balanced()) << "received " << l.received << " delivered " << l.delivered
                                  << " forwarded " << l.forwarded << " replied " << l.replied
                                  << " drops " << l.total_drops();
        EXPECT_TRUE(l.send_balanced()) << "sends " << l.sends << " sent " << l.sent;
        db::RunData run;
        run.rows = capture::trial_rows(0, r);
        expect_stages_balance(run);
        test::collect(eng, "out");
        test::collect(eng, "stuck");
        all.add(l);
        packets += l.received;
        ++replayed;
    }
    std::printf("mutated replay: %zu files (%zu corpus captures x %zu seeds): %u replayed on a "
                "net_pcap port, %u refused (not Ethernet); %llu frames: delivered %llu, "
                "forwarded %llu, replied %llu, dropped %llu\n",
                files.size(), test::corpus_files().size(), test::mutation_seeds().size(), replayed,
                refused, static_cast<unsigned long long>(packets),
                static_cast<unsigned long long>(all.delivered),
                static_cast<unsigned long long>(all.forwarded),
                static_cast<unsigned long long>(all.replied),
                static_cast<unsigned long long>(all.total_drops()));
    std::map<std::string, uint64_t> drops;
    for (unsigned r = 0; r < kDropReasonCount; ++r)
        if (all.drops[r]) drops[std::string(kDropReasonNames[r])] = all.drops[r];
    print_drops("engine", drops);
    EXPECT_GT(replayed, files.size() / 2);
    EXPECT_GT(all.total_drops(), 0u);
    EXPECT_GT(all.forwarded + all.replied, 0u);
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
