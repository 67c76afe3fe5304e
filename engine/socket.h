// A small UDP socket API over rings, used by the built-in applications.
// udp6_input enqueues received datagrams on the receive ring (single
// producer: the worker); the application dequeues them. sendto() enqueues on
// the send ring, which the udp6_output stage drains.
#pragma once

#include <cstdint>
#include <string>

#include "engine/config.h"
#include "engine/context.h"
#include "engine/dpdk.h"

namespace pathscope::engine {

class UdpSocket {
  public:
    /// Opens a socket bound to UDP `port` on every local address.
    UdpSocket(EngineContext& ctx, uint16_t port, unsigned ring_size = 4096);
    /// Opens a socket on local `port` connected to `peer`:`peer_port`: it
    /// receives only that peer's datagrams, ahead of a socket bound to the port.
    UdpSocket(EngineContext& ctx, uint16_t port, const Ip6Addr& peer, uint16_t peer_port,
              unsigned ring_size = 4096);
    ~UdpSocket();
    UdpSocket(const UdpSocket&) = delete;
    UdpSocket& operator=(const UdpSocket&) = delete;

    /// Receives up to n datagrams. Each mbuf's data starts at the UDP payload;
    /// the sender's address and port are in socket_meta(m)->peer / peer_port.
    unsigned recvfrom(rte_mbuf** out, unsigned n);
    /// Queues `m` (data = payload) for `peer`:`peer_port`. Takes the mbuf;
    /// returns false (and frees it, counted as socket_full) when the send ring is full.
    bool sendto(rte_mbuf* m, const uint8_t* peer, uint16_t peer_port);
    /// Queues `m` for the connected peer (a connected socket only).
    bool send(rte_mbuf* m);

    // Stage side.
    bool deliver(rte_mbuf* m) { return rte_ring_sp_enqueue(rx_, m) == 0; }
    unsigned take_outgoing(rte_mbuf** out, unsigned n) {
        return rte_ring_sc_dequeue_burst(tx_, reinterpret_cast<void**>(out), n, nullptr);
    }

  private:
    void make_rings(unsigned ring_size);

    EngineContext& ctx_;
    uint16_t port_;
    bool connected_ = false;
    ConnKey key_{};
    rte_ring* rx_ = nullptr;
    rte_ring* tx_ = nullptr;
};

}  // namespace pathscope::engine
