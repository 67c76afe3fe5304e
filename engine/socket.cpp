#include "engine/socket.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "engine/packet_meta.h"

namespace pathscope::engine {

namespace {
rte_ring* make_ring(const std::string& name, unsigned size) {
    rte_ring* r = rte_ring_create(name.c_str(), size, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    if (!r)
        throw std::runtime_error("cannot create socket ring " + name + ": " +
                                 rte_strerror(rte_errno));
    return r;
}
}  // namespace

UdpSocket::UdpSocket(EngineContext& ctx, uint16_t port, unsigned ring_size)
    : ctx_(ctx), port_(port) {
    if (ctx.bound[port])
        throw std::runtime_error("UDP port " + std::to_string(port) + " is already bound");
    static unsigned serial = 0;
    const std::string base = "us" + std::to_string(serial++);
    rx_ = make_ring(base + "rx", ring_size);
    tx_ = make_ring(base + "tx", ring_size);
    ctx.bound[port] = this;
    ctx.sockets.push_back(this);
}

UdpSocket::~UdpSocket() {
    ctx_.bound[port_] = nullptr;
    std::erase(ctx_.sockets, this);
    rte_mbuf* m;
    while (rte_ring_dequeue(rx_, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
    while (rte_ring_dequeue(tx_, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
    rte_ring_free(rx_);
    rte_ring_free(tx_);
}

unsigned UdpSocket::recvfrom(rte_mbuf** out, unsigned n) {
    const unsigned got = rte_ring_sc_dequeue_burst(rx_, reinterpret_cast<void**>(out), n, nullptr);
    for (unsigned i = 0; i < got; ++i) {
        PacketMeta* pm = meta(out[i]);
        rte_pktmbuf_adj(out[i], kL3Offset + pm->l4_off + sizeof(rte_udp_hdr));
    }
    return got;
}

bool UdpSocket::sendto(rte_mbuf* m, const uint8_t* peer, uint16_t peer_port) {
    SocketMeta* sm = socket_meta(m);
    memmove(sm->peer, peer, 16);  // peer may already point here (echo)
    sm->peer_port = peer_port;
    sm->local_port = port_;
    meta(m)->fate = Fate::local;
    if (rte_ring_sp_enqueue(tx_, m) != 0) {
        ctx_.counters.send_drops[static_cast<unsigned>(DropReason::socket_full)].add();
        rte_pktmbuf_free(m);
        return false;
    }
    return true;
}

}  // namespace pathscope::engine
