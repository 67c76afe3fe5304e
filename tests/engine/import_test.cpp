// `import pcap` on every capture of ../shared/corpus/pcap (real, often
// malformed, from tcpdump's test suite): each is imported with a balanced
// ledger and its drops named, or refused with a message naming the file
// (and the byte offset of a damaged record). Never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "capture/pcap_import.h"
#include "db/queries.h"
#include "db/schema.h"
#include "tests/engine/eal_env.h"
#include "tests/support/corpus.h"
#include "tests/support/setup_skip.h"
#include "tests/support/temp_dir.h"

using namespace pathscope;
namespace fs = std::filesystem;

namespace {

std::string fact(const db::RunData& run, const std::string& key) {
    for (const auto& [k, v] : run.rows.facts)
        if (k == key) return v;
    return "";
}

TEST(Import, EveryCorpusCaptureImportsOrIsRefusedClearly) {
    const std::vector<fs::path> files = test::corpus_files();
    if (files.empty()) PATHSCOPE_SKIP_UNLESS_SETUP("corpus folder " << test::kCorpusDir << " is absent");
    test::init_eal();
    const test::TempDir dir("import");
    const std::string db = dir.file("corpus.db");
    unsigned imported = 0, refused = 0;
    uint64_t dropped = 0;
    for (const auto& file : files) {
        SCOPED_TRACE(file.filename().string());
        try {
            const db::RunData run = capture::import_pcap(file.string(), db);
            ASSERT_EQ(run.rows.trials.size(), 1u);
            const auto& t = run.rows.trials[0];
            EXPECT_EQ(t.received, t.delivered + t.forwarded + t.replied + t.dropped);
            EXPECT_GT(std::stoull(fact(run, "pcap.packets")), 0u);
            EXPECT_FALSE(fact(run, "pcap.flows").empty());
            uint64_t named = 0;
            for (const auto& d : run.rows.drops) named += d.packets;
            EXPECT_EQ(named, t.dropped);  // every drop under a named reason
            // What the engine did not see (frames larger than an mbuf) is counted too.
            const std::string big = fact(run, "pcap.too_big_to_parse");
            EXPECT_EQ(t.received + (big.empty() ? 0 : std::stoull(big)),
                      std::stoull(fact(run, "pcap.packets")) -
                          std::stoull(fact(run, "pcap.not_parsed_short")));
            dropped += t.dropped;
            ++imported;
        } catch (const std::runtime_error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
            EXPECT_TRUE(msg.find("byte offset") != std::string::npos ||
                        msg.find("link type") != std::string::npos)
                << msg;
            std::printf("refused: %s\n", msg.c_str());
            ++refused;
        }
    }
    std::printf(
        "import: %u captures imported (%llu packets dropped under named reasons), %u refused\n",
        imported, static_cast<unsigned long long>(dropped), refused);
    EXPECT_GT(imported, files.size() / 2);
    auto store = db::open_store(db, db::Database::Mode::read_only);
    EXPECT_EQ(db::list_runs(*store).size(), imported);
}

TEST(Import, SummaryCountsPacketsFlowsAndProtocols) {
    test::init_eal();
    const test::TempDir tmp("import");
    const fs::path& dir = tmp.path();
    // Three UDP packets of two flows and one with a bad IP version, written by libpcap's format.
    std::vector<std::vector<uint8_t>> frames;
    engine::FrameSpec s;
    s.dst_mac = {2, 0, 0, 0, 0, 1};
    s.src = test::ip("2001:db8:100::5");
    s.dst = test::ip("2001:db8:aaaa::1");
    s.src_port = 1000;
    s.dst_port = 9;
    frames.push_back(engine::udp6_frame(s));
    frames.push_back(engine::udp6_frame(s));
    s.src_port = 1001;
    frames.push_back(engine::udp6_frame(s));
    auto bad = engine::udp6_frame(s);
    bad[14] = 0x40;  // IPv4 version nibble inside an IPv6 EtherType
    frames.push_back(bad);
    const std::string pcap = (dir / "small.pcap").string();
    {
        std::ofstream out(pcap, std::ios::binary);
        const uint32_t hdr[] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
        out.write(reinterpret_cast<const char*>(hdr), 4);
        out.write(reinterpret_cast<const char*>(&hdr[1]), 20);
        for (const auto& f : frames) {
            const uint32_t rec[] = {1, 0, static_cast<uint32_t>(f.size()),
                                    static_cast<uint32_t>(f.size())};
            out.write(reinterpret_cast<const char*>(rec), sizeof rec);
            out.write(reinterpret_cast<const char*>(f.data()),
                      static_cast<std::streamsize>(f.size()));
        }
    }
    const db::RunData run = capture::import_pcap(pcap, (dir / "s.db").string(), "small");
    EXPECT_EQ(run.info.kind, "pcap-import");
    EXPECT_EQ(fact(run, "pcap.packets"), "4");
    EXPECT_EQ(fact(run, "pcap.flows"), "2");
    EXPECT_EQ(fact(run, "pcap.protocol.udp"), "3");
    const auto& t = run.rows.trials.at(0);
    EXPECT_EQ(t.received, 4u);
    EXPECT_EQ(t.forwarded, 3u);
    ASSERT_EQ(run.rows.drops.size(), 1u);
    EXPECT_EQ(run.rows.drops[0].reason, "ip6_bad_version");

    // A record cut off half way is refused with the offset where it starts.
    const auto size = fs::file_size(pcap);
    fs::resize_file(pcap, size - 10);
    try {
        capture::import_pcap(pcap, (dir / "s.db").string());
        FAIL() << "a damaged capture was imported";
    } catch (const std::runtime_error& e) {
        const std::string msg = e.what();
        const auto last_record = size - (16 + frames.back().size());
        EXPECT_NE(msg.find("byte offset " + std::to_string(last_record)), std::string::npos) << msg;
        EXPECT_NE(msg.find("packet 4"), std::string::npos) << msg;
    }
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
