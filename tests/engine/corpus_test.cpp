// Every capture in ../shared/corpus/pcap (real, often malformed IPv6 traffic
// from tcpdump's test suite) replays through the engine on a net_pcap port
// without a crash, and the receive ledger balances for each. Captures of
// another link type are refused with a message naming the file.
#include <gtest/gtest.h>

#include <filesystem>

#include "capture/pcap_probe.h"
#include "capture/run.h"
#include "engine/engine.h"
#include "tests/engine/eal_env.h"
#include "tests/support/corpus.h"
#include "tests/support/setup_skip.h"

using namespace pathscope;
using namespace pathscope::engine;
namespace fs = std::filesystem;

namespace {

TEST(Corpus, EveryCaptureReplaysOrIsRefusedClearly) {
    const std::vector<fs::path> files = test::corpus_files();
    if (files.empty()) PATHSCOPE_SKIP(test::corpus_missing());
    test::init_eal();
    unsigned replayed = 0, refused = 0;
    uint64_t packets = 0;
    for (const auto& file : files) {
        SCOPED_TRACE(file.filename().string());
        EngineConfig cfg = test::ring_config();
        cfg.workload.kind = WorkloadKind::pcap;
        cfg.workload.pcap = {"wire", file.string(), false};
        cfg.icmp_errors_per_s = 1000;
        capture::PcapInfo info;
        try {
            info = capture::probe_ethernet_capture(file.string());
        } catch (const std::exception& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
            EXPECT_TRUE(msg.find("not Ethernet") != std::string::npos ||
                        msg.find("cannot read") != std::string::npos ||
                        msg.find("damaged") != std::string::npos)
                << msg;
            EXPECT_THROW(capture::prepare_workload(cfg), std::runtime_error);
            std::printf("refused: %s\n", msg.c_str());
            ++refused;
            continue;
        }
        capture::prepare_workload(cfg);
        Engine eng(cfg);
        eng.run_until_idle(256);
        const Ledger l = eng.snapshot().ledger;
        EXPECT_EQ(l.received, info.packets);
        EXPECT_TRUE(l.balanced()) << "received " << l.received << " delivered " << l.delivered
                                  << " forwarded " << l.forwarded << " replied " << l.replied
                                  << " drops " << l.total_drops();
        test::collect(eng, "out");
        ++replayed;
        packets += l.received;
    }
    std::printf("corpus: %u captures replayed (%llu packets), %u refused with a message\n",
                replayed, static_cast<unsigned long long>(packets), refused);
    EXPECT_GT(replayed, 0u);
}

TEST(Corpus, NonEthernetIsRefusedWithItsLinkType) {
    const std::vector<fs::path> files = test::corpus_files();
    if (files.empty()) PATHSCOPE_SKIP(test::corpus_missing());
    bool seen = false;
    for (const auto& file : files) {
        try {
            capture::probe_ethernet_capture(file.string());
        } catch (const std::exception& ex) {
            const std::string msg = ex.what();
            if (msg.find("is not Ethernet") == std::string::npos) continue;
            EXPECT_NE(msg.find("link type"), std::string::npos);
            seen = true;
        }
    }
    EXPECT_TRUE(seen) << "the corpus is said to hold raw IPv6, 802.15.4 and Linux cooked captures";
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
