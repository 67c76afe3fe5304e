// The Linux kernel as a real peer through net_tap: `ping -6` gets replies
// from the engine (after neighbour discovery), and a kernel UDP socket gets
// its datagrams echoed by the engine's echo application.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "engine/engine.h"
#include "tests/engine/eal_env.h"

using namespace pathscope;
using namespace pathscope::engine;

namespace {

const std::string kIface = "pstap" + std::to_string(getpid() % 10000);

int sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

class Tap : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!std::filesystem::exists("/dev/net/tun"))
            GTEST_SKIP() << "/dev/net/tun is missing: no tap devices here";
        if (geteuid() != 0) GTEST_SKIP() << "tap devices need root";
        if (sh("command -v ip") != 0 || sh("command -v ping") != 0)
            GTEST_SKIP() << "ip or ping is not installed";
        test::init_eal();
        EngineConfig cfg;
        cfg.mbufs = 8191;
        cfg.ports = {test::port("tap", "net_tap_ps0,iface=" + kIface, {2, 0, 0, 0, 0, 0x21},
                                {{test::ip("fd00:5::2"), 64}})};
        cfg.apps = {{AppKind::echo, 7}};
        cfg.icmp_errors_per_s = 100;
        eng = std::make_unique<Engine>(cfg);
        // The kernel's side: an address on the tap, without duplicate address detection delays.
        ASSERT_EQ(0, sh("sysctl -w net.ipv6.conf." + kIface + ".accept_dad=0"));
        ASSERT_EQ(0, sh("ip -6 addr add fd00:5::1/64 dev " + kIface + " nodad"));
        ASSERT_EQ(0, sh("ip link set " + kIface + " up"));
        eng->start();
    }
    void TearDown() override {
        if (eng) eng->stop();
        eng.reset();  // removes the tap interface with the port
    }
    std::unique_ptr<Engine> eng;
};

TEST_F(Tap, KernelPingGetsEngineReplies) {
    const int rc = sh("ping -6 -c 3 -i 0.2 -W 2 fd00:5::2");
    EXPECT_EQ(rc, 0) << "ping -6 fd00:5::2 through " << kIface << " got no replies";
    eng->stop();
    const Ledger l = eng->snapshot().ledger;
    EXPECT_GE(l.replied, 4u);  // at least one neighbour advertisement and three echo replies
    EXPECT_TRUE(l.balanced());
}

TEST_F(Tap, KernelUdpSocketIsEchoed) {
    const int s = socket(AF_INET6, SOCK_DGRAM, 0);
    ASSERT_GE(s, 0);
    timeval tv{2, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in6 to{};
    to.sin6_family = AF_INET6;
    to.sin6_port = htons(7);
    inet_pton(AF_INET6, "fd00:5::2", &to.sin6_addr);
    unsigned echoed = 0;
    for (int i = 0; i < 5; ++i) {
        const std::string msg = "pathscope echo " + std::to_string(i);
        ASSERT_EQ(sendto(s, msg.data(), msg.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to),
                  static_cast<ssize_t>(msg.size()));
        char buf[256];
        sockaddr_in6 from{};
        socklen_t flen = sizeof from;
        ssize_t n;
        do  // net_tap's SIGIO handler can interrupt the wait
            n = recvfrom(s, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
        while (n < 0 && errno == EINTR);
        if (n < 0) {  // the first datagram may wait on neighbour discovery
            std::printf("datagram %d: no echo (%s)\n", i, std::strerror(errno));
            continue;
        }
        EXPECT_EQ(std::string(buf, static_cast<size_t>(n)), msg);
        EXPECT_EQ(ntohs(from.sin6_port), 7);
        ++echoed;
    }
    close(s);
    EXPECT_GE(echoed, 4u);
    eng->stop();
    const Ledger l = eng->snapshot().ledger;
    EXPECT_GE(l.delivered, echoed);
    EXPECT_GE(l.sent, echoed);
    EXPECT_TRUE(l.balanced());
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
