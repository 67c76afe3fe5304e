#include "capture/kernel/kernel_workload.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "db/records.h"
#include "engine/routes.h"

namespace pathscope::capture {

namespace {

constexpr uint16_t kRrClientPortBase = 20000;
constexpr int kWaitMs = 20;  // how often a waiting thread looks at the stop flag

/// A counter one thread writes and the control thread reads: a plain add on x86.
void bump(std::atomic<uint64_t>& c, uint64_t n = 1) {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

[[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error(what + ": " + std::strerror(errno));
}

engine::Ip6Addr address_of(const std::string& with_len) {
    const auto a = engine::parse_ip6(with_len.substr(0, with_len.find('/')));
    return a ? *a : engine::Ip6Addr{};
}

sockaddr_in6 socket_address(const engine::Ip6Addr& a, uint16_t port) {
    sockaddr_in6 sa{};
    sa.sin6_family = AF_INET6;
    sa.sin6_port = htons(port);
    std::memcpy(&sa.sin6_addr, a.data(), 16);
    return sa;
}

engine::Ip6Addr nth(engine::Ip6Addr a, uint32_t i) {
    for (int b = 15; b >= 0 && i; --b) {
        const uint32_t sum = a[b] + (i & 0xff);
        a[b] = static_cast<uint8_t>(sum);
        i = (i >> 8) + (sum >> 8);
    }
    return a;
}

/// A UDP/IPv6 socket, closed when it goes.
struct Socket {
    int fd = -1;
    explicit Socket(const char* who) {
        fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0) fail(std::string(who) + ": socket(AF_INET6, SOCK_DGRAM)");
    }
    Socket(Socket&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
    Socket(const Socket&) = delete;
    ~Socket() {
        if (fd >= 0) close(fd);
    }
    void option(int level, int name, int value, const char* what) const {
        if (setsockopt(fd, level, name, &value, sizeof value) != 0) fail(what);
    }
    void bind_to(const engine::Ip6Addr& a, uint16_t port, const char* who) const {
        const sockaddr_in6 sa = socket_address(a, port);
        if (bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0)
            fail(std::string(who) + ": bind to [" + engine::format_ip6(a) + "]:" + std::to_string(port));
    }
    void connect_to(const engine::Ip6Addr& a, uint16_t port, const char* who) const {
        const sockaddr_in6 sa = socket_address(a, port);
        if (connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0)
            fail(std::string(who) + ": connect to [" + engine::format_ip6(a) + "]:" + std::to_string(port));
    }
    void wait_at_most(int ms) const {
        timeval tv{0, ms * 1000};
        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) fail("SO_RCVTIMEO");
    }
};

}  // namespace

struct KernelWorkload::Shared {
    std::atomic<bool> go{false};
    std::array<std::atomic<bool>, 4> stop{};  ///< each thread's, in launch order
    std::atomic<uint64_t> sends{0}, accepted{0}, received{0}, transactions{0}, timeouts{0};
    std::array<std::atomic<uint64_t>, kErrnoSlots> refused{};
    std::mutex m;
    std::condition_variable cv;
    int ready = 0;
    std::string error;
    std::vector<int> tids;
};

void pin_thread(int cpu) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
        throw std::runtime_error("cannot pin a workload thread to CPU " + std::to_string(cpu) +
                                 " (linux.sender_cpu, linux.receiver_cpu: an online CPU, or -1)");
}

KernelWorkload::KernelWorkload(const KernelConfig& cfg, const engine::EngineConfig& engine,
                               const KernelNetwork& net)
    : cfg_(cfg), engine_(engine), net_(net), shared_(std::make_unique<Shared>()) {
    try {
        // The receiving side first: its sockets are open before anything is sent.
        if (cfg.path == KernelPath::rr) {
            launch(db::kRrServerThread, cfg.receiver_cpu, net.receiver(), &KernelWorkload::rr_server_loop);
            launch(db::kKernelRrClientThread, cfg.sender_cpu, net.sender(), &KernelWorkload::rr_client_loop);
        } else {
            if (cfg.sink) launch(db::kSinkThread, cfg.receiver_cpu, net.receiver(), &KernelWorkload::sink_loop);
            launch(db::kWorkerThread, cfg.sender_cpu, net.sender(), &KernelWorkload::sender_loop);
        }
    } catch (...) {
        stop();
        throw;
    }
}

KernelWorkload::~KernelWorkload() { stop(); }

void KernelWorkload::launch(const char* role, int cpu, const NetSide& side, Loop body) {
    Shared& sh = *shared_;
    const int before = sh.ready;
    const std::atomic<bool>& stop = sh.stop.at(threads_.size());
    threads_.emplace_back([this, &sh, role, cpu, &side, body, &stop] {
        bool said = false;
        auto say_ready = [&](const std::string& error) {
            std::lock_guard<std::mutex> lock(sh.m);
            if (!error.empty() && sh.error.empty()) sh.error = error;
            sh.tids.push_back(static_cast<int>(gettid()));
            ++sh.ready;
            said = true;
            sh.cv.notify_all();
        };
        try {
            pin_thread(cpu);
            enter_namespace(side.fd, side.ns);
            (this->*body)([&] { say_ready(""); }, stop);
        } catch (const std::exception& e) {
            if (!said) say_ready(std::string(role) + " in " + side.ns + ": " + e.what());
        }
        if (!said) say_ready("");
    });
    std::unique_lock<std::mutex> lock(sh.m);
    sh.cv.wait(lock, [&] { return sh.ready > before; });
    if (!sh.error.empty()) throw std::runtime_error(sh.error);
    watched_.push_back({role, 0, sh.tids.back()});
}

bool KernelWorkload::wait_for_go(const std::atomic<bool>& stop) const {
    while (!shared_->go.load(std::memory_order_acquire) && !stop.load())
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    return !stop.load();
}

void KernelWorkload::go() { shared_->go.store(true, std::memory_order_release); }

void KernelWorkload::stop() {
    // The last launched (the sender) first: what it sent is read to the end.
    for (size_t i = threads_.size(); i-- > 0;) {
        shared_->stop[i].store(true);
        if (threads_[i].joinable()) threads_[i].join();
    }
    threads_.clear();
}

std::vector<WatchedThread> KernelWorkload::threads() const { return watched_; }

WorkloadCounts KernelWorkload::counts() const {
    const Shared& sh = *shared_;
    WorkloadCounts c;
    // The sends first: a datagram is counted accepted only after it was offered.
    c.accepted = sh.accepted.load(std::memory_order_relaxed);
    for (int e = 0; e < kErrnoSlots; ++e) c.refused[e] = sh.refused[e].load(std::memory_order_relaxed);
    c.sends = sh.sends.load(std::memory_order_relaxed);
    c.received = sh.received.load(std::memory_order_relaxed);
    c.transactions = sh.transactions.load(std::memory_order_relaxed);
    c.timeouts = sh.timeouts.load(std::memory_order_relaxed);
    return c;
}

void KernelWorkload::sender_loop(const std::function<void()>& ready,
                                   const std::atomic<bool>& stop) {
    const engine::SourceConfig& src = engine_.source;
    const bool any_local = std::all_of(src.bind_address.begin(), src.bind_address.end(),
                                       [](uint8_t b) { return b == 0; });
    const engine::Ip6Addr local = any_local ? address_of(cfg_.sender_address) : src.bind_address;
    std::vector<sockaddr_in6> dests;
    for (uint32_t i = 0; i < src.destinations; ++i)
        dests.push_back(socket_address(nth(src.destination, i), src.dst_port));
    // Connected: a socket a destination (as the engine's source); else one for all.
    std::vector<Socket> sockets;
    for (size_t i = 0; i < (src.connect ? dests.size() : 1); ++i) {
        Socket& s = sockets.emplace_back("sender");
        s.option(IPPROTO_IPV6, IPV6_UNICAST_HOPS, src.hop_limit, "IPV6_UNICAST_HOPS");
        if (src.traffic_class) s.option(IPPROTO_IPV6, IPV6_TCLASS, src.traffic_class, "IPV6_TCLASS");
        if (src.bind) {
            s.option(SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
            s.bind_to(local, static_cast<uint16_t>(src.src_port + (src.connect ? i : 0)), "sender");
        }
        if (src.connect) {
            const sockaddr_in6& d = dests[i];
            if (connect(s.fd, reinterpret_cast<const sockaddr*>(&d), sizeof d) != 0)
                fail("sender: connect");
        }
    }
    const unsigned batch = std::max<unsigned>(1, src.batch);
    std::vector<uint8_t> payload(src.payload, 0x5a);
    std::vector<iovec> iov(batch, iovec{payload.data(), payload.size()});
    std::vector<mmsghdr> msgs(batch);
    for (unsigned j = 0; j < batch; ++j) {
        msgs[j].msg_hdr = msghdr{};
        msgs[j].msg_hdr.msg_iov = &iov[j];
        msgs[j].msg_hdr.msg_iovlen = 1;
    }
    ready();
    if (!wait_for_go(stop)) return;
    Shared& sh = *shared_;
    const double rate = src.rate_pps;
    const auto t0 = std::chrono::steady_clock::now();
    size_t turn = 0, next_dest = 0;
    uint64_t offered = 0;
    while (!stop.load(std::memory_order_relaxed)) {
        if (rate > 0) {  // paced: never ahead of rate x elapsed
            const double due = rate * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (static_cast<double>(offered) >= due) {
                std::this_thread::sleep_for(std::chrono::microseconds(50));
                continue;
            }
        }
        const int fd = sockets[turn++ % sockets.size()].fd;
        if (!src.connect)
            for (unsigned j = 0; j < batch; ++j) {
                msgs[j].msg_hdr.msg_name = &dests[next_dest];
                msgs[j].msg_hdr.msg_namelen = sizeof(sockaddr_in6);
                next_dest = next_dest + 1 == dests.size() ? 0 : next_dest + 1;
            }
        const int n = sendmmsg(fd, msgs.data(), batch, 0);
        if (n >= 0) {
            // Datagrams after a refused one in a batch were not offered: the
            // kernel stops there (and sendmmsg keeps its errno to itself).
            bump(sh.sends, static_cast<uint64_t>(n));
            bump(sh.accepted, static_cast<uint64_t>(n));
            offered += static_cast<uint64_t>(n);
        } else if (errno != EINTR) {
            bump(sh.refused[std::min(errno, kErrnoSlots - 1)]);
            bump(sh.sends);
            ++offered;
        }
    }
}

void KernelWorkload::sink_loop(const std::function<void()>& ready,
                                   const std::atomic<bool>& stop) {
    Socket s("sink");
    // A receive buffer of its own beyond net.core.rmem_max (SO_RCVBUFFORCE:
    // this socket's, the host's setting stays as it is).
    s.option(SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20, "SO_RCVBUFFORCE");
    s.bind_to(engine::Ip6Addr{}, engine_.source.dst_port, "sink");
    s.wait_at_most(kWaitMs);
    constexpr unsigned kBatch = 64;
    std::vector<std::array<uint8_t, 2048>> bufs(kBatch);
    std::vector<iovec> iov(kBatch);
    std::vector<mmsghdr> msgs(kBatch);
    for (unsigned j = 0; j < kBatch; ++j) {
        iov[j] = {bufs[j].data(), bufs[j].size()};
        msgs[j].msg_hdr = msghdr{};
        msgs[j].msg_hdr.msg_iov = &iov[j];
        msgs[j].msg_hdr.msg_iovlen = 1;
    }
    ready();
    Shared& sh = *shared_;
    // The sink reads from the start (no wait for go): nothing queues before the trial.
    while (!stop.load(std::memory_order_relaxed)) {
        const int n = recvmmsg(s.fd, msgs.data(), kBatch, MSG_WAITFORONE, nullptr);
        if (n > 0) bump(sh.received, static_cast<uint64_t>(n));
    }
}

void KernelWorkload::rr_server_loop(const std::function<void()>& ready,
                                   const std::atomic<bool>& stop) {
    const engine::Ip6Addr server = address_of(cfg_.receiver_address);
    const engine::Ip6Addr client = address_of(cfg_.sender_address);
    // One connected socket a client (bound to the server's address and port,
    // SO_REUSEADDR): what UDP's connected lookup, and early demux, find.
    std::vector<Socket> sockets;
    const int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) fail("rr server: epoll_create1");
    struct Closer {
        int fd;
        ~Closer() { close(fd); }
    } closer{ep};
    for (uint32_t i = 0; i < cfg_.rr_streams; ++i) {
        Socket& s = sockets.emplace_back("rr server");
        s.option(SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
        s.bind_to(server, cfg_.rr_port, "rr server");
        s.connect_to(client, static_cast<uint16_t>(kRrClientPortBase + i), "rr server");
        s.wait_at_most(kWaitMs);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u32 = i;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, s.fd, &ev) != 0) fail("rr server: epoll_ctl");
    }
    ready();
    Shared& sh = *shared_;
    std::array<uint8_t, 2048> buf;
    std::vector<epoll_event> events(sockets.size());
    while (!stop.load(std::memory_order_relaxed)) {
        if (sockets.size() == 1) {  // one stream: a blocking read, as netperf's
            const ssize_t n = recv(sockets[0].fd, buf.data(), buf.size(), 0);
            if (n > 0) {
                bump(sh.received);
                send(sockets[0].fd, buf.data(), static_cast<size_t>(n), 0);
            }
            continue;
        }
        const int ready_n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), kWaitMs);
        for (int k = 0; k < ready_n; ++k) {
            const int fd = sockets[events[k].data.u32].fd;
            ssize_t n;
            while ((n = recv(fd, buf.data(), buf.size(), MSG_DONTWAIT)) > 0) {
                bump(sh.received);
                send(fd, buf.data(), static_cast<size_t>(n), 0);
            }
        }
    }
}

void KernelWorkload::rr_client_loop(const std::function<void()>& ready,
                                   const std::atomic<bool>& stop) {
    const engine::Ip6Addr server = address_of(cfg_.receiver_address);
    const engine::Ip6Addr client = address_of(cfg_.sender_address);
    const size_t streams = cfg_.rr_streams;
    std::vector<Socket> sockets;
    for (size_t i = 0; i < streams; ++i) {
        Socket& s = sockets.emplace_back("rr client");
        s.bind_to(client, static_cast<uint16_t>(kRrClientPortBase + i), "rr client");
        s.connect_to(server, cfg_.rr_port, "rr client");
        s.wait_at_most(kWaitMs);
    }
    std::vector<uint64_t> seq(streams, 0), sent_tsc(streams, 0);
    std::vector<std::chrono::steady_clock::time_point> sent_at(streams);
    std::vector<uint8_t> request(std::max<size_t>(cfg_.rr_payload, 8), 0);
    std::array<uint8_t, 2048> reply;
    ready();
    if (!wait_for_go(stop)) return;
    Shared& sh = *shared_;
    const auto timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(cfg_.rr_timeout_s));
    auto send_request = [&](size_t i) {
        std::memcpy(request.data(), &seq[i], 8);
        sent_at[i] = std::chrono::steady_clock::now();
        sent_tsc[i] = __rdtsc();
        send(sockets[i].fd, request.data(), request.size(), 0);
    };
    // A response carries its request's sequence number: one that matches
    // completes the transaction (a late answer to a resent request does not).
    auto on_reply = [&](size_t i, ssize_t n) {
        uint64_t got = ~0ull;
        if (n >= 8) std::memcpy(&got, reply.data(), 8);
        if (got != seq[i]) return;
        const uint64_t now = __rdtsc();
        rr_latency_.add(now - sent_tsc[i]);
        bump(sh.transactions);
        ++seq[i];
        send_request(i);
    };
    for (size_t i = 0; i < streams; ++i) send_request(i);
    std::vector<pollfd> fds(streams);
    for (size_t i = 0; i < streams; ++i) fds[i] = {sockets[i].fd, POLLIN, 0};
    while (!stop.load(std::memory_order_relaxed)) {
        if (streams == 1) {
            const ssize_t n = recv(fds[0].fd, reply.data(), reply.size(), 0);
            if (n > 0) on_reply(0, n);
        } else if (poll(fds.data(), fds.size(), kWaitMs) > 0) {
            for (size_t i = 0; i < streams; ++i) {
                if (!(fds[i].revents & POLLIN)) continue;
                ssize_t n;
                while ((n = recv(fds[i].fd, reply.data(), reply.size(), MSG_DONTWAIT)) > 0) on_reply(i, n);
            }
        }
        const auto now = std::chrono::steady_clock::now();
        for (size_t i = 0; i < streams; ++i)
            if (now - sent_at[i] > timeout) {
                bump(sh.timeouts);
                send_request(i);
            }
    }
}

}  // namespace pathscope::capture
