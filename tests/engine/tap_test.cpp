// The Linux kernel as a real peer through net_tap, in a network namespace
// the test creates and removes: `ping -6` from the namespace gets replies
// from the engine (after neighbour discovery), and a kernel UDP socket there
// gets its datagrams echoed by the engine's echo application.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "engine/engine.h"
#include "engine/socket.h"
#include "tests/engine/eal_env.h"
#include "tests/support/setup_skip.h"

using namespace pathscope;
using namespace pathscope::engine;

namespace {

const std::string kIface = "pstap" + std::to_string(getpid() % 10000);
const std::string kNs = "psns" + std::to_string(getpid() % 10000);

int sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

/// In a child process that joins the namespace, sends `count` datagrams to
/// the engine's echo port and counts the echoes that come back intact.
/// Only system calls run after fork(): the parent has DPDK's threads.
int echoes_from_namespace(int count) {
    const std::string ns_path = "/run/netns/" + kNs;
    const pid_t pid = fork();
    if (pid == 0) {
        const int nsfd = open(ns_path.c_str(), O_RDONLY);
        if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) != 0) _exit(100);
        const int s = socket(AF_INET6, SOCK_DGRAM, 0);
        if (s < 0) _exit(101);
        timeval tv{30, 0};  // a generous limit: a loaded machine is slow, not broken
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        sockaddr_in6 to{};
        to.sin6_family = AF_INET6;
        to.sin6_port = htons(7);
        inet_pton(AF_INET6, "fd00:5::2", &to.sin6_addr);
        int echoed = 0;
        for (int i = 0; i < count; ++i) {
            char msg[32] = "pathscope echo #";
            msg[16] = static_cast<char>('0' + i % 10);
            if (sendto(s, msg, 17, 0, reinterpret_cast<sockaddr*>(&to), sizeof to) != 17)
                _exit(102);
            char buf[64];
            sockaddr_in6 from{};
            socklen_t flen = sizeof from;
            ssize_t n;
            do n = recvfrom(s, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
            while (n < 0 && errno == EINTR);
            if (n == 17 && memcmp(buf, msg, 17) == 0 && ntohs(from.sin6_port) == 7) ++echoed;
        }
        _exit(echoed);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

/// In a child process in the namespace: a kernel UDP socket on `port`
/// waits up to 5 s for one datagram; exit status 1 when it came from
/// [fd00:5::2]:`from_port` carrying `text`, 0 when none came.
/// `ready` is a pipe's write end: the child writes a byte once its socket is bound.
pid_t kernel_receiver(uint16_t port, uint16_t from_port, const char* text, int ready) {
    const std::string ns_path = "/run/netns/" + kNs;
    const pid_t pid = fork();
    if (pid != 0) return pid;
    const int nsfd = open(ns_path.c_str(), O_RDONLY);
    if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) != 0) _exit(100);
    const int s = socket(AF_INET6, SOCK_DGRAM, 0);
    sockaddr_in6 me{};
    me.sin6_family = AF_INET6;
    me.sin6_port = htons(port);
    if (s < 0 || bind(s, reinterpret_cast<sockaddr*>(&me), sizeof me) != 0) _exit(101);
    if (write(ready, "r", 1) != 1) _exit(102);
    timeval tv{60, 0};  // a generous limit: a loaded machine is slow, not broken
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[64];
    sockaddr_in6 from{};
    socklen_t flen = sizeof from;
    const ssize_t n = recvfrom(s, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
    in6_addr engine{};
    inet_pton(AF_INET6, "fd00:5::2", &engine);
    _exit(n == static_cast<ssize_t>(strlen(text)) && memcmp(buf, text, n) == 0 &&
                  ntohs(from.sin6_port) == from_port &&
                  memcmp(&from.sin6_addr, &engine, 16) == 0
              ? 1
              : 0);
}

class Tap : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!std::filesystem::exists("/dev/net/tun"))
            PATHSCOPE_SKIP("/dev/net/tun is missing: no tap devices here");
        if (geteuid() != 0) PATHSCOPE_SKIP("tap devices and namespaces need root");
        if (sh("command -v ip") != 0 || sh("command -v ping") != 0)
            PATHSCOPE_SKIP_UNLESS_SETUP("ip (iproute2) or ping (iputils-ping) is not installed");
        test::init_eal();
        EngineConfig cfg;
        cfg.mbufs = 8191;
        cfg.ports = {test::port("tap", "net_tap_ps0,iface=" + kIface, {2, 0, 0, 0, 0, 0x21},
                                {{test::ip("fd00:5::2"), 64}})};
        cfg.apps = {{AppKind::echo, 7}};
        cfg.icmp_errors_per_s = 100;
        eng = std::make_unique<Engine>(cfg);
        // The kernel's side lives in its own namespace: the tap moves there and
        // gets an address without duplicate address detection delays.
        sh("ip netns del " + kNs);
        ASSERT_EQ(0, sh("ip netns add " + kNs));
        ns_made = true;
        ASSERT_EQ(0, sh("ip link set " + kIface + " netns " + kNs));
        ASSERT_EQ(
            0, sh("ip netns exec " + kNs + " sysctl -w net.ipv6.conf." + kIface + ".accept_dad=0"));
        ASSERT_EQ(0, sh("ip -n " + kNs + " -6 addr add fd00:5::1/64 dev " + kIface + " nodad"));
        ASSERT_EQ(0, sh("ip -n " + kNs + " link set " + kIface + " up"));
        eng->start();
    }
    void TearDown() override {
        if (eng) eng->stop();
        eng.reset();  // closes the tap, which removes its interface
        if (ns_made) sh("ip netns del " + kNs);
    }
    std::unique_ptr<Engine> eng;
    bool ns_made = false;
};

TEST_F(Tap, KernelPingGetsEngineReplies) {
    const int rc = sh("ip netns exec " + kNs + " ping -6 -c 3 -i 0.2 -W 30 fd00:5::2");
    EXPECT_EQ(rc, 0) << "ping -6 fd00:5::2 from namespace " << kNs << " got no replies";
    eng->stop();
    const Ledger l = eng->snapshot().ledger;
    EXPECT_GE(l.replied, 4u);  // at least one neighbour advertisement and three echo replies
    EXPECT_TRUE(l.balanced());
}

TEST_F(Tap, KernelUdpSocketIsEchoed) {
    const int echoed = echoes_from_namespace(5);
    EXPECT_GE(echoed, 4) << "exit status " << echoed << " (100+: the child could not set up)";
    eng->stop();
    const Ledger l = eng->snapshot().ledger;
    EXPECT_GE(l.delivered, static_cast<uint64_t>(std::max(echoed, 0)));
    EXPECT_GE(l.sent, static_cast<uint64_t>(std::max(echoed, 0)));
    EXPECT_TRUE(l.balanced());
}

TEST_F(Tap, EngineResolvesTheKernelsAddressAndItsDatagramArrives) {
    // The socket is made while the worker is stopped (the send stage lists sockets).
    eng->stop();
    UdpSocket s(eng->context());
    ASSERT_EQ(s.bind(Ip6Addr{}, 4711), 0);
    eng->start();
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t child = kernel_receiver(9999, 4711, "over nd", ready[1]);
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the child could not bind its socket";
    close(ready[0]);
    // Until the kernel answers the solicitation, datagrams wait in nd_resolve;
    // send one every 50 ms until the kernel socket has one (or 5 s passed).
    int status = 0, sent = 0;
    pid_t done = 0;
    for (int i = 0; i < 100 && done == 0; ++i) {
        rte_mbuf* m = rte_pktmbuf_alloc(eng->pool());
        ASSERT_NE(m, nullptr);
        memcpy(rte_pktmbuf_append(m, 7), "over nd", 7);
        EXPECT_EQ(s.sendto(m, test::ip("fd00:5::1"), 9999), 0);
        ++sent;
        usleep(50 * 1000);
        done = waitpid(child, &status, WNOHANG);
    }
    if (done == 0) done = waitpid(child, &status, 0);
    ASSERT_EQ(done, child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 1) << "exit status " << WEXITSTATUS(status)
                                      << " (0: nothing arrived; 100+: the child could not set up)";
    eng->stop();
    const EngineSnapshot snap = eng->snapshot();
    EXPECT_GE(snap.send_path.solicitations, 1u);
    EXPECT_GE(snap.send_path.control_sent, 1u);
    EXPECT_EQ(snap.ledger.sends, static_cast<uint64_t>(sent));
    EXPECT_GE(snap.ledger.sent, 1u);
    EXPECT_TRUE(snap.ledger.send_balanced());
    rte_ether_addr mac;
    EXPECT_TRUE(eng->context().neighbours->find(test::ip("fd00:5::1").data(), mac))
        << "the kernel's advertisement was learnt";
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
