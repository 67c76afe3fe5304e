// Receive-side scaling as the engine sets it up: a port with several receive
// queues on a device that offers RSS gets it, with the hash types masked by
// what the device offers (as examples/l3fwd asks); a device without RSS is
// said to have none; one receive queue needs none. What the driver was told
// is read back from the driver itself (rte_eth_dev_rss_hash_conf_get).
#include <gtest/gtest.h>

#include <rte_ethdev.h>

#include <string>

#include "engine/engine.h"
#include "tests/engine/eal_env.h"

using namespace pathscope;
using namespace pathscope::engine;

namespace {

class Rss : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { test::init_eal(); }
};

const PortRss* rss_of(const Engine& e, const std::string& port) {
    for (const PortRss& p : e.port_rss())
        if (p.port == port) return &p;
    return nullptr;
}

/// The test ports, with "wire" on `device` with two receive queues.
EngineConfig two_queue_config(const std::string& device) {
    EngineConfig c = test::ring_config();
    c.ports[0].device = device;
    c.ports[0].rx_queues = 2;
    c.ports[0].tx_queues = 2;
    return c;
}

}  // namespace

TEST_F(Rss, APortWithTwoQueuesOnADeviceWithRssHashesIpUdpAndTcpAsTheDeviceOffers) {
    // net_null offers every hash type DPDK has (RTE_ETH_RSS_PROTO_MASK);
    // no-rx=1: the port receives nothing, it is only configured here.
    const Engine eng(two_queue_config("net_null_rss0,no-rx=1"));
    const uint16_t id = eng.port_id("wire");
    rte_eth_dev_info info{};
    ASSERT_EQ(rte_eth_dev_info_get(id, &info), 0);
    const uint64_t wanted = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP;
    ASSERT_NE(info.flow_type_rss_offloads & wanted, 0u) << "net_null offers no RSS here";

    rte_eth_rss_conf conf{};
    ASSERT_EQ(rte_eth_dev_rss_hash_conf_get(id, &conf), 0);
    EXPECT_EQ(conf.rss_hf, info.flow_type_rss_offloads & wanted)
        << "the driver was not given IP, UDP and TCP hashing masked by what it offers";

    const PortRss* r = rss_of(eng, "wire");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->setting.rfind("on over 2 receive queues", 0), 0u) << r->setting;
    EXPECT_FALSE(r->unbalanced);
}

TEST_F(Rss, ARingPortWithTwoQueuesIsSaidToHaveNoneButIsNotWarnedAbout) {
    // net_ring offers no RSS: its queues get what the test puts on each, so
    // the run says so, but a virtual device is not a NIC left unbalanced.
    const Engine eng(two_queue_config("ring"));
    const PortRss* r = rss_of(eng, "wire");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->setting.rfind("unavailable: the device offers no RSS", 0), 0u) << r->setting;
    EXPECT_EQ(r->setting.find("NIC"), std::string::npos) << r->setting;
    EXPECT_FALSE(r->unbalanced);
}

TEST_F(Rss, APortWithOneReceiveQueueNeedsNone) {
    const Engine eng(test::ring_config());
    const PortRss* r = rss_of(eng, "out");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->setting, "off: one receive queue");
    EXPECT_FALSE(r->unbalanced);
}

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
