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

void UdpSocket::make_rings(unsigned ring_size) {
    static unsigned serial = 0;
    const std::string base = "us" + std::to_string(serial++);
    rx_ = make_ring(base + "rx", ring_size);
    tx_ = make_ring(base + "tx", ring_size);
    ctx_.sockets.push_back(this);
}

UdpSocket::UdpSocket(EngineContext& ctx, uint16_t port, unsigned ring_size)
    : ctx_(ctx), port_(port) {
    if (ctx.bound[port])
        throw std::runtime_error("UDP port " + std::to_string(port) + " is already bound");
    make_rings(ring_size);
    ctx.bound[port] = this;
}

UdpSocket::UdpSocket(EngineContext& ctx, uint16_t port, const Ip6Addr& peer, uint16_t peer_port,
                     unsigned ring_size)
    : ctx_(ctx), port_(port), connected_(true) {
    memcpy(key_.remote, peer.data(), 16);
    key_.remote_port = peer_port;
    key_.local_port = port;
    if (rte_hash_lookup(ctx.connected, &key_) >= 0)
        throw std::runtime_error("a socket on UDP port " + std::to_string(port) +
                                 " is already connected to that peer");
    make_rings(ring_size);
    if (rte_hash_add_key_data(ctx.connected, &key_, this) < 0) {
        std::erase(ctx_.sockets, this);
        rte_ring_free(rx_);
        rte_ring_free(tx_);
        throw std::runtime_error("the connected-socket table is full");
    }
    ++ctx.connected_count;
}

UdpSocket::~UdpSocket() {
    if (connected_) {
        rte_hash_del_key(ctx_.connected, &key_);
        --ctx_.connected_count;
    } else {
        ctx_.bound[port_] = nullptr;
    }
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

bool UdpSocket::send(rte_mbuf* m) {
    if (!connected_) throw std::logic_error("send() on a socket that is not connected");
    return sendto(m, key_.remote, key_.remote_port);
}

}  // namespace pathscope::engine
