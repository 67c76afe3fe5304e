// `import pcap` on every capture of ../shared/corpus/pcap (real, often
// malformed, from tcpdump's test suite): each is imported with a balanced
// ledger and its drops named, or refused with a message naming the file
// (and the byte offset of a damaged record). Never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "capture/pcap_import.h"
#include "capture/pcap_reader.h"
#include "common/ip6_ext.h"
#include "db/queries.h"
#include "db/schema.h"
#include "tests/engine/eal_env.h"
#include "tests/support/corpus.h"
#include "tests/support/run_facts.h"
#include "tests/support/setup_skip.h"
#include "tests/support/temp_dir.h"

using namespace pathscope;
namespace fs = std::filesystem;

namespace {

using test::fact;

TEST(Import, EveryCorpusCaptureImportsOrIsRefusedClearly) {
    const std::vector<fs::path> files = test::corpus_files();
    if (files.empty()) PATHSCOPE_SKIP(test::corpus_missing());
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

// One extension-header walk serves the engine and the import summary; it
// must read every IPv6 packet of the corpus as Wireshark's dissectors do:
// the same chain of extension headers, and the same upper layer.
TEST(Import, Ip6HeaderWalkAgreesWithWireshark) {
    const std::vector<fs::path> files = test::corpus_files();
    if (files.empty()) PATHSCOPE_SKIP(test::corpus_missing());
    if (system("command -v tshark >/dev/null 2>&1") != 0)
        PATHSCOPE_SKIP_UNLESS_SETUP("tshark is not installed");
    using analysis::Ip6ExtStop;
    const std::map<std::string, uint8_t> ext = {{"ipv6.hopopts", analysis::kIp6HopByHop},
                                                {"ipv6.routing", analysis::kIp6Routing},
                                                {"ipv6.fraghdr", analysis::kIp6Fragment},
                                                {"ipv6.dstopts", analysis::kIp6DestOptions},
                                                {"ah", analysis::kIp6Ah}};
    const std::map<std::string, uint8_t> upper = {{"udp", 17}, {"tcp", 6},    {"icmpv6", 58},
                                                  {"dccp", 33}, {"ospf", 89}, {"pim", 103}};
    const std::map<Ip6ExtStop, std::string> summary = {{Ip6ExtStop::fragment, "ipv6-fragment"},
                                                       {Ip6ExtStop::truncated, "ipv6-ext-truncated"}};
    unsigned compared = 0, with_ext = 0, uppers = 0;
    for (const auto& file : files) {
        SCOPED_TRACE(file.filename().string());
        std::vector<std::string> dissected;
        {
            FILE* ts = popen(("tshark -r '" + file.string() +
                              "' -T fields -e frame.protocols 2>/dev/null")
                                 .c_str(),
                             "r");
            ASSERT_NE(ts, nullptr);
            char line[4096];
            while (fgets(line, sizeof line, ts)) {
                std::string l(line);
                if (!l.empty() && l.back() == '\n') l.pop_back();
                dissected.push_back(l);
            }
            pclose(ts);
        }
        std::unique_ptr<capture::PcapReader> reader;
        try {
            reader = std::make_unique<capture::PcapReader>(file.string());
        } catch (const std::exception&) {
            continue;  // refused files are the other test's
        }
        capture::PcapReader::Packet p;
        for (size_t i = 0;; ++i) {
            try {
                if (!reader->next(p)) break;
            } catch (const std::exception&) {
                break;  // a damaged record ends the file here
            }
            const std::vector<uint8_t> frame =
                capture::ethernet_frame(reader->link_type(), p.data, p.cap_len);
            if (i >= dissected.size() || frame.size() < 14 + 40 || frame[12] != 0x86 ||
                frame[13] != 0xdd)
                continue;
            // Wireshark's chain: link layer, then "ipv6" first, for this to compare.
            std::vector<std::string> tokens;
            std::stringstream ss(dissected[i]);
            for (std::string t; std::getline(ss, t, ':');) tokens.push_back(t);
            size_t k = 0;
            while (k < tokens.size() && tokens[k] != "ipv6") {
                if (tokens[k] != "eth" && tokens[k] != "ethertype" && tokens[k] != "sll" &&
                    tokens[k] != "null" && tokens[k] != "raw")
                    k = tokens.size();
                else
                    ++k;
            }
            if (k == tokens.size()) continue;
            const uint8_t* ip = frame.data() + 14;
            const uint32_t avail = static_cast<uint32_t>(frame.size() - 14);
            const uint32_t plen = static_cast<uint32_t>(ip[4] << 8 | ip[5]);
            if ((ip[0] >> 4) != 6 || (plen == 0 && ip[6] == 0)) continue;  // not v6; jumbogram
            const analysis::Ip6ExtWalk w = analysis::walk_ip6_ext(ip, std::min(40 + plen, avail), avail);
            std::vector<uint8_t> ws_chain;
            size_t u = k + 1;
            for (; u < tokens.size() && ext.count(tokens[u]); ++u) ws_chain.push_back(ext.at(tokens[u]));
            std::vector<uint8_t> ours(w.chain, w.chain + w.headers);
            if (w.stop == Ip6ExtStop::fragment) ours.push_back(analysis::kIp6Fragment);
            SCOPED_TRACE("packet " + std::to_string(i + 1) + ": " + dissected[i]);
            if (w.stop == Ip6ExtStop::upper || w.stop == Ip6ExtStop::fragment) {
                // Wireshark dissects the inner packet of a fragment only when
                // reassembled; the chain up to the fragment header must match.
                EXPECT_EQ(std::vector<uint8_t>(ws_chain.begin(),
                                               ws_chain.begin() + std::min(ws_chain.size(), ours.size())),
                          ours);
                EXPECT_EQ(ws_chain.size() >= ours.size(), true);
            }
            if (w.stop == Ip6ExtStop::upper && u < tokens.size() && upper.count(tokens[u])) {
                EXPECT_EQ(w.proto, upper.at(tokens[u]));
                // The import summary names the same upper layer (before the
                // shared walk, it counted OSPFv3 behind AH as protocol 51).
                const uint8_t n = upper.at(tokens[u]);
                EXPECT_EQ(capture::frame_protocol(frame.data(), frame.size()),
                          n == 17 ? "udp" : n == 6 ? "tcp" : n == 58 ? "icmpv6"
                                                    : "ipv6-proto-" + std::to_string(n));
                ++uppers;
            }
            if (auto it = summary.find(w.stop); it != summary.end()) {
                EXPECT_EQ(capture::frame_protocol(frame.data(), frame.size()), it->second);
            }
            with_ext += w.headers > 0;
            ++compared;
        }
    }
    std::printf("compared %u IPv6 packets with Wireshark: %u with extension headers, %u upper "
                "layers checked\n",
                compared, with_ext, uppers);
    EXPECT_GT(compared, 150u);
    EXPECT_GT(with_ext, 60u);  // OSPFv3 with AH alone has 61
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
