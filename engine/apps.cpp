#include "engine/apps.h"

#include <cstring>
#include <stdexcept>

#include "engine/packet_meta.h"
#include "engine/routes.h"

namespace pathscope::engine {

namespace {

constexpr unsigned kBurst = 64;

std::unique_ptr<UdpSocket> bound_socket(EngineContext& ctx, uint16_t port) {
    auto s = std::make_unique<UdpSocket>(ctx);
    if (const int rc = s->bind(Ip6Addr{}, port))
        throw std::runtime_error("[[app]] on UDP port " + std::to_string(port) +
                                 ": bind: " + strerror(-rc));
    return s;
}

class SinkApp final : public App {
  public:
    SinkApp(EngineContext& ctx, uint16_t port) : sock_(bound_socket(ctx, port)) {}
    unsigned poll() override {
        rte_mbuf* m[kBurst];
        const unsigned n = sock_->recv_burst(m, kBurst);
        if (n) rte_pktmbuf_free_bulk(m, n);
        return n;
    }

  private:
    std::unique_ptr<UdpSocket> sock_;
};

class EchoApp final : public App {
  public:
    EchoApp(EngineContext& ctx, uint16_t port) : sock_(bound_socket(ctx, port)) {}
    unsigned poll() override {
        rte_mbuf* m[kBurst];
        SockAddr6 to[kBurst];
        const unsigned n = sock_->recv_burst(m, kBurst);
        for (unsigned i = 0; i < n; ++i) {
            const SocketMeta* sm = socket_meta(m[i]);
            memcpy(to[i].addr.data(), sm->peer, 16);
            to[i].port = sm->peer_port;
        }
        if (n) sock_->sendto_burst(m, to, n);
        return n;
    }

  private:
    std::unique_ptr<UdpSocket> sock_;
};

/// memset(p, 0x5a, len), with the small payloads of a packet-rate test
/// (8 to 32 bytes) written inline as overlapping 8-byte stores rather than
/// through a library call for every datagram.
inline void fill_payload(char* p, uint32_t len) {
    constexpr uint64_t kPattern = 0x5a5a5a5a5a5a5a5aull;
    if (len < 8 || len > 32) {
        memset(p, 0x5a, len);
        return;
    }
    memcpy(p, &kPattern, 8);
    memcpy(p + len - 8, &kPattern, 8);
    if (len > 16) {
        memcpy(p + 8, &kPattern, 8);
        memcpy(p + len - 16, &kPattern, 8);
    }
}

/// Sends `batch` datagrams a poll (fewer when a rate is set), with one
/// send_burst call or one send call per datagram (engine.socket_send), over
/// one socket (unconnected) or one connected socket per destination.
class SourceApp final : public App {
  public:
    SourceApp(EngineContext& ctx, const EngineConfig& cfg)
        : ctx_(ctx), cfg_(cfg.source), burst_(cfg.socket_send == SocketSend::burst) {
        const SourceConfig& s = cfg_;
        for (uint32_t i = 0; i < s.destinations; ++i) {
            SockAddr6 d{s.destination, s.dst_port};
            // destination + i, carried across the low bytes
            uint32_t carry = i;
            for (int b = 15; b >= 0 && carry; --b) {
                carry += d.addr[b];
                d.addr[b] = static_cast<uint8_t>(carry);
                carry >>= 8;
            }
            dests_.push_back(d);
        }
        const unsigned nsockets = s.connect ? s.destinations : 1;
        for (unsigned i = 0; i < nsockets; ++i) {
            auto sock = std::make_unique<UdpSocket>(ctx);
            sock->set_hop_limit(s.hop_limit);
            sock->set_traffic_class(s.traffic_class);
            sock->set_flow_label(s.flow_label);
            if (s.bind) {
                Ip6Addr addr = s.bind_address;
                if (addr == Ip6Addr{}) addr = source_for(dests_[0].addr);
                // One socket per destination: each its own port from src_port up.
                if (const int rc = sock->bind(addr, static_cast<uint16_t>(s.src_port + i)))
                    fail("bind to [" + format_ip6(addr) + "]:" + std::to_string(s.src_port + i),
                         rc);
            }
            if (s.connect)
                if (const int rc = sock->connect(dests_[i].addr, dests_[i].port))
                    fail("connect to [" + format_ip6(dests_[i].addr) + "]", rc);
            sockets_.push_back(std::move(sock));
        }
        if (s.rate_pps > 0) per_packet_ = static_cast<double>(ctx.tsc_hz) / s.rate_pps;
    }

    unsigned poll() override {
        unsigned n = cfg_.batch;
        if (per_packet_ > 0) {  // a token bucket on the TSC, at most one batch ahead
            const uint64_t now = rte_rdtsc();
            if (next_ == 0) next_ = static_cast<double>(now);
            const double due = (static_cast<double>(now) - next_) / per_packet_;
            if (due < 1) return 0;
            n = static_cast<unsigned>(std::min<double>(due, cfg_.batch));
            next_ += n * per_packet_;
            if (static_cast<double>(now) - next_ > cfg_.batch * per_packet_)
                next_ = static_cast<double>(now) - cfg_.batch * per_packet_;
        }
        rte_mbuf* m[256];
        n = std::min(n, 256u);
        // rte_pktmbuf_alloc_bulk, with both header lines of every mbuf
        // prefetched for writing before the first is reset, and each reset
        // where its payload is written: the first write to each pooled mbuf
        // waited for its line, one mbuf after another (57-63 -> 47-48
        // cycles a datagram for this application on an AMD EPYC VM,
        // bench_forward's transmit path; the resets in a loop of their own,
        // after the prefetches, kept most of the wait).
        if (rte_mempool_get_bulk(ctx_.pool, reinterpret_cast<void**>(m), n) != 0)
            return 0;  // pool empty: try next poll
        for (unsigned i = 0; i < n; ++i) {
            rte_prefetch0_write(m[i]);
            rte_prefetch0_write(&m[i]->next);  // the second line
        }
        for (unsigned i = 0; i < n; ++i) {
            rte_pktmbuf_reset(m[i]);  // a pooled mbuf's reference count is already 1
            char* p = rte_pktmbuf_append(m[i], cfg_.payload);
            if (p) fill_payload(p, cfg_.payload);
        }
        if (cfg_.connect) {
            UdpSocket& s = *sockets_[next_socket_];
            next_socket_ = (next_socket_ + 1) % sockets_.size();
            if (burst_) {
                s.send_burst(m, n);
            } else {
                for (unsigned i = 0; i < n; ++i) s.send(m[i]);
            }
            return n;
        }
        UdpSocket& s = *sockets_[0];
        if (burst_) {
            SockAddr6 to[256];
            for (unsigned i = 0; i < n; ++i) to[i] = next_destination();
            s.sendto_burst(m, to, n);
        } else {
            for (unsigned i = 0; i < n; ++i) {
                const SockAddr6& d = next_destination();
                s.sendto(m[i], d.addr, d.port);
            }
        }
        return n;
    }

  private:
    const SockAddr6& next_destination() {
        const SockAddr6& d = dests_[next_dest_];
        if (++next_dest_ == dests_.size()) next_dest_ = 0;
        return d;
    }
    Ip6Addr source_for(const Ip6Addr& dst) {
        RuleTally tally;
        const uint32_t nh = ctx_.route_output(dst.data(), nullptr, tally);
        tally.flush(ctx_.app_worker().events);
        Ip6Addr src{};
        if (nh < kNexthopFirstRoute ||
            !ctx_.ifaddrs->select_source(ctx_.nexthops[nh].port, dst.data(), src.data()))
            throw std::runtime_error("[source] destination " + format_ip6(dst) +
                                     ": no route or no source address to bind to (set "
                                     "socket.address)");
        return src;
    }
    [[noreturn]] static void fail(const std::string& what, int rc) {
        throw std::runtime_error("[socket] " + what + ": " + strerror(-rc));
    }

    EngineContext& ctx_;
    SourceConfig cfg_;
    bool burst_;
    std::vector<SockAddr6> dests_;
    std::vector<std::unique_ptr<UdpSocket>> sockets_;
    size_t next_dest_ = 0, next_socket_ = 0;
    double per_packet_ = 0;  ///< TSC cycles per datagram at the set rate
    double next_ = 0;        ///< TSC at which the next datagram is due
};

}  // namespace

std::unique_ptr<App> make_app(EngineContext& ctx, const AppConfig& cfg) {
    if (cfg.kind == AppKind::echo && cfg.connected) return make_connected_echo(ctx, cfg);
    if (cfg.kind == AppKind::echo) return std::make_unique<EchoApp>(ctx, cfg.port);
    return std::make_unique<SinkApp>(ctx, cfg.port);
}

std::unique_ptr<App> make_source(EngineContext& ctx, const EngineConfig& cfg) {
    return std::make_unique<SourceApp>(ctx, cfg);
}

}  // namespace pathscope::engine
