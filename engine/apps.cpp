#include "engine/apps.h"

#include "engine/packet_meta.h"

namespace pathscope::engine {

namespace {

constexpr unsigned kBurst = 64;

class SinkApp final : public App {
  public:
    SinkApp(EngineContext& ctx, uint16_t port) : sock_(ctx, port) {}
    void poll() override {
        rte_mbuf* m[kBurst];
        const unsigned n = sock_.recvfrom(m, kBurst);
        if (n) rte_pktmbuf_free_bulk(m, n);
    }

  private:
    UdpSocket sock_;
};

class EchoApp final : public App {
  public:
    EchoApp(EngineContext& ctx, uint16_t port) : sock_(ctx, port) {}
    void poll() override {
        rte_mbuf* m[kBurst];
        const unsigned n = sock_.recvfrom(m, kBurst);
        for (unsigned i = 0; i < n; ++i) {
            const SocketMeta* sm = socket_meta(m[i]);
            sock_.sendto(m[i], sm->peer, sm->peer_port);
        }
    }

  private:
    UdpSocket sock_;
};

}  // namespace

std::unique_ptr<App> make_app(EngineContext& ctx, const AppConfig& cfg) {
    if (cfg.kind == AppKind::echo) return std::make_unique<EchoApp>(ctx, cfg.port);
    return std::make_unique<SinkApp>(ctx, cfg.port);
}

}  // namespace pathscope::engine
