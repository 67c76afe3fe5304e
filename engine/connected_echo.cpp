// The echo server of the request/response workload, written the way UDP
// servers that want the kernel's 4-tuple lookup are: a socket bound to the
// port takes each new client's first datagram; the server then opens a
// socket for that client (SO_REUSEADDR, bound to the address the client sent
// to and the same port, connected to the client), so the client's later
// datagrams are found by udp6_input's connected lookup (and by early demux,
// when it is on) and answered with send() on that socket.
//
// Opening a client socket creates its rings (memzones), which is setup work
// on the worker thread, once per client, like accept(); the per-datagram path
// does not allocate. Client sockets stay open until the engine goes.
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "engine/apps.h"
#include "engine/packet_meta.h"

namespace pathscope::engine {

namespace {

constexpr unsigned kBurst = 64;
/// A client socket's receive and send rings: a stream has one request in
/// flight, a few more when its timeouts resend; what does not fit is counted
/// as socket_full.
constexpr unsigned kClientRing = 256;

class ConnectedEchoApp final : public App {
  public:
    ConnectedEchoApp(EngineContext& ctx, const AppConfig& cfg)
        : ctx_(ctx), port_(cfg.port), max_clients_(cfg.max_clients), ready_(cfg.max_clients, ctx.worker_count) {
        listen_ = std::make_unique<UdpSocket>(ctx);
        if (const int rc = listen_->bind(Ip6Addr{}, port_))
            throw std::runtime_error("[[app]] on UDP port " + std::to_string(port_) +
                                     ": bind: " + strerror(-rc));
        clients_.reserve(max_clients_);
    }

    unsigned poll() override {
        rte_mbuf* m[kBurst];
        unsigned handled = 0;
        // First datagrams of new clients, and those of clients past the limit.
        const unsigned n = listen_->recv_burst(m, kBurst);
        for (unsigned i = 0; i < n; ++i) {
            const SocketMeta* sm = socket_meta(m[i]);
            Ip6Addr peer;
            memcpy(peer.data(), sm->peer, 16);
            const uint16_t peer_port = sm->peer_port;
            if (UdpSocket* s = client(m[i], peer, peer_port)) {
                s->send(m[i]);
            } else {
                ctx_.app_worker().events.add(PathEvent::rr_server_unconnected);
                listen_->sendto(m[i], peer, peer_port);
            }
        }
        handled += n;
        // Clients whose connected socket received something since the last
        // poll (on any worker); one burst of them a poll.
        UdpSocket* ready[kBurst];
        const unsigned listed = ready_.take(ready, kBurst);
        for (unsigned r = 0; r < listed; ++r) {
            UdpSocket* s = ready[r];
            s->unlist();
            unsigned got;
            do {
                got = s->recv_burst(m, kBurst);
                if (got == 1)
                    s->send(m[0]);
                else if (got)
                    s->send_burst(m, got);
                handled += got;
            } while (got == kBurst);
        }
        return handled;
    }

  private:
    /// The connected socket of this client: the one it already has (a
    /// datagram that reached the bound socket before its socket existed), a
    /// new one, or nullptr past the client limit or when opening one fails.
    UdpSocket* client(rte_mbuf* m, const Ip6Addr& peer, uint16_t peer_port) {
        ConnKey k{};
        memcpy(k.remote, peer.data(), 16);
        k.remote_port = peer_port;
        k.local_port = port_;
        void* found;
        if (rte_hash_lookup_data(ctx_.connected, &k, &found) >= 0)
            return static_cast<UdpSocket*>(found);
        if (clients_.size() >= max_clients_) return nullptr;
        auto s = std::make_unique<UdpSocket>(ctx_, kClientRing);
        s->set_reuse_addr(true);
        // The address the client sent to (after any translation the engine
        // made, it is ours); the IPv6 header sits before the UDP header.
        const auto* ip = rte_pktmbuf_mtod_offset(
            m, const rte_ipv6_hdr*, -static_cast<int>(sizeof(rte_udp_hdr) + meta(m)->l4_off));
        Ip6Addr local;
        memcpy(local.data(), ip->dst_addr, 16);
        if (s->bind(local, port_) != 0) return nullptr;
        // Before connect(), which publishes the socket to every worker: one
        // that delivers to it at once must find the ready list to join
        // (ThreadSanitizer found it set after, so a first datagram from
        // another worker could be queued unlisted and wait for the next).
        s->set_ready_list(&ready_);
        if (s->connect(peer, peer_port) != 0) return nullptr;
        clients_.push_back(std::move(s));
        return clients_.back().get();
    }

    EngineContext& ctx_;
    uint16_t port_;
    uint32_t max_clients_;
    std::unique_ptr<UdpSocket> listen_;
    std::vector<std::unique_ptr<UdpSocket>> clients_;
    ReadyList ready_;
};

}  // namespace

std::unique_ptr<App> make_connected_echo(EngineContext& ctx, const AppConfig& cfg) {
    return std::make_unique<ConnectedEchoApp>(ctx, cfg);
}

}  // namespace pathscope::engine
