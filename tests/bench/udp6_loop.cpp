// The bare loop bench_kernel measures pathscope's Linux target against: the
// same traffic with nothing around it. Two network namespaces joined by a
// veth pair (made with ip, as pathscope makes its own, and removed at the
// end), a sendmmsg thread on CPU 0 and a recvmmsg thread on CPU 1, for S
// seconds; rates over the window from 20% in to the end, as pathscope's.
// No perf_event, no tracepoint, no counter but the loops' own.
//
//   udp6_loop [--seconds S] [--connect] [--payload N] [--batch N]
//
// Prints one line: "sent_pps X read_pps Y".
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> go{false}, stop_sender{false}, stop_sink{false};
std::atomic<uint64_t> sent{0}, read_n{0};

void sh(const std::string& cmd) {
    if (std::system((cmd + " >/dev/null 2>&1").c_str()) != 0)
        std::fprintf(stderr, "udp6_loop: failed: %s\n", cmd.c_str());
}

void enter(const std::string& ns, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    const int fd = open(("/run/netns/" + ns).c_str(), O_RDONLY);
    if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) std::perror("udp6_loop: setns");
    close(fd);
}

sockaddr_in6 address(const char* a, uint16_t port) {
    sockaddr_in6 sa{};
    sa.sin6_family = AF_INET6;
    sa.sin6_port = htons(port);
    inet_pton(AF_INET6, a, &sa.sin6_addr);
    return sa;
}

void sender(const std::string& ns, bool connect_it, unsigned payload, unsigned batch) {
    enter(ns, 0);
    const int fd = socket(AF_INET6, SOCK_DGRAM, 0);
    sockaddr_in6 to = address("2001:db8:1::2", 9);
    if (connect_it) connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to);
    std::vector<char> data(payload, 'x');
    std::vector<iovec> iov(batch, iovec{data.data(), data.size()});
    std::vector<mmsghdr> msgs(batch);
    for (unsigned i = 0; i < batch; ++i) {
        msgs[i].msg_hdr = msghdr{};
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        if (!connect_it) {
            msgs[i].msg_hdr.msg_name = &to;
            msgs[i].msg_hdr.msg_namelen = sizeof to;
        }
    }
    while (!go) std::this_thread::sleep_for(std::chrono::microseconds(100));
    uint64_t n = 0;
    while (!stop_sender.load(std::memory_order_relaxed)) {
        const int k = sendmmsg(fd, msgs.data(), batch, 0);
        if (k > 0) sent.store(n += static_cast<uint64_t>(k), std::memory_order_relaxed);
    }
    close(fd);
}

void sink(const std::string& ns) {
    enter(ns, 1);
    const int fd = socket(AF_INET6, SOCK_DGRAM, 0);
    int buf = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof buf);
    timeval tv{0, 20000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in6 any = address("::", 9);
    bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof any);
    std::vector<std::vector<char>> bufs(64, std::vector<char>(2048));
    std::vector<iovec> iov(64);
    std::vector<mmsghdr> msgs(64);
    for (unsigned i = 0; i < 64; ++i) {
        iov[i] = {bufs[i].data(), bufs[i].size()};
        msgs[i].msg_hdr = msghdr{};
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    uint64_t n = 0;
    while (!stop_sink.load(std::memory_order_relaxed)) {
        const int k = recvmmsg(fd, msgs.data(), 64, MSG_WAITFORONE, nullptr);
        if (k > 0) read_n.store(n += static_cast<uint64_t>(k), std::memory_order_relaxed);
    }
    close(fd);
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 5;
    bool connect_it = false;
    unsigned payload = 16, batch = 32;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
        else if (a == "--connect") connect_it = true;
        else if (a == "--payload" && i + 1 < argc) payload = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (a == "--batch" && i + 1 < argc) batch = static_cast<unsigned>(std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: udp6_loop [--seconds S] [--connect] [--payload N] [--batch N]\n");
            return 2;
        }
    }
    const std::string a = "bl" + std::to_string(getpid()) + "a", b = "bl" + std::to_string(getpid()) + "b";
    for (const auto& ns : {a, b}) {
        sh("ip netns add " + ns);
        sh("ip netns exec " + ns + " sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0");
        sh("ip -n " + ns + " link set lo up");
    }
    sh("ip -n " + a + " link add bla address 02:00:00:00:0b:01 type veth peer name blb address 02:00:00:00:0b:02 netns " + b);
    sh("ip -n " + a + " -6 addr add 2001:db8:1::1/64 dev bla nodad");
    sh("ip -n " + b + " -6 addr add 2001:db8:1::2/64 dev blb nodad");
    sh("ip -n " + a + " link set bla up");
    sh("ip -n " + b + " link set blb up");
    sh("ip -n " + a + " -6 neigh replace 2001:db8:1::2 lladdr 02:00:00:00:0b:02 dev bla nud permanent");
    sh("ip -n " + b + " -6 neigh replace 2001:db8:1::1 lladdr 02:00:00:00:0b:01 dev blb nud permanent");
    std::thread rx(sink, b);
    std::thread tx(sender, a, connect_it, payload, batch);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    go = true;
    std::this_thread::sleep_until(t0 + std::chrono::duration<double>(seconds * 0.2));
    const auto w0 = clock::now();
    const uint64_t s0 = sent, r0 = read_n;
    std::this_thread::sleep_until(t0 + std::chrono::duration<double>(seconds));
    const auto w1 = clock::now();
    const uint64_t s1 = sent, r1 = read_n;
    stop_sender = true;
    tx.join();
    stop_sink = true;
    rx.join();
    sh("ip netns delete " + a);
    sh("ip netns delete " + b);
    const double window = std::chrono::duration<double>(w1 - w0).count();
    std::printf("sent_pps %.0f read_pps %.0f\n", static_cast<double>(s1 - s0) / window,
                static_cast<double>(r1 - r0) / window);
    return 0;
}
