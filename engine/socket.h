// A small UDP socket API over rings, used by the built-in applications and
// shaped like POSIX: bind, connect, send, sendto, recv, recvfrom, and the
// batched send_burst / recv_burst. Errors are negative errno values
// (-EADDRINUSE, -EDESTADDRREQ, -EAFNOSUPPORT, -ENOBUFS, ...), DPDK style.
// A send call always takes the mbuf: it is queued, or freed with an error.
//
// udp6_input enqueues received datagrams on the receive ring (single
// producer: the worker); the application dequeues them. Sends enqueue on the
// send ring, which the udp6_output stage drains.
#pragma once

#include <cstdint>
#include <string>

#include "engine/config.h"
#include "engine/context.h"
#include "engine/dpdk.h"

namespace pathscope::engine {

struct SockAddr6 {
    Ip6Addr addr{};
    uint16_t port = 0;
};

class UdpSocket {
  public:
    /// An unbound, unconnected socket. A send or connect binds it to an
    /// ephemeral port (49152-65535) on every local address.
    explicit UdpSocket(EngineContext& ctx, unsigned ring_size = 4096);
    ~UdpSocket();
    UdpSocket(const UdpSocket&) = delete;
    UdpSocket& operator=(const UdpSocket&) = delete;

    /// Binds to `addr` (all zero: every local address) and `port` (0: an
    /// ephemeral one). -EINVAL when already bound, -EAFNOSUPPORT for an
    /// IPv4-mapped address, -EADDRNOTAVAIL when `addr` is not ours,
    /// -EADDRINUSE when the port is taken, -EAGAIN when no ephemeral port is free.
    int bind(const Ip6Addr& addr, uint16_t port);
    /// Fixes the peer: the socket then receives only its datagrams, ahead of
    /// a socket bound to the port, and sends to it without naming it. The
    /// route and (unless bound to an address) the source address are chosen
    /// now and kept. -EAFNOSUPPORT for an IPv4-mapped peer, -EINVAL for an
    /// unspecified or multicast peer or port 0, -EISCONN when connected,
    /// -ENETUNREACH without a route, -EADDRNOTAVAIL without a source address.
    int connect(const Ip6Addr& peer, uint16_t port);

    /// SO_REUSEADDR: bind may share a port another socket holds; this one
    /// then receives only through its connection (set it before bind).
    void set_reuse_addr(bool on) { reuse_addr_ = on; }
    /// Socket options for what it sends: hop limit, traffic class, flow label.
    void set_hop_limit(uint8_t h) { hop_limit_ = h; }
    void set_traffic_class(uint8_t tc) { traffic_class_ = tc; }
    void set_flow_label(uint32_t fl) { flow_label_ = fl & 0xfffff; }

    /// Queues `m` (data = payload) for the connected peer. 0, -EDESTADDRREQ
    /// when not connected, -ENOBUFS when the send ring is full (counted as a
    /// socket_full send drop).
    int send(rte_mbuf* m);
    /// Queues `m` for `to`. 0, -EAFNOSUPPORT (IPv4-mapped), -EINVAL
    /// (unspecified address or port 0), -ENOBUFS.
    int sendto(rte_mbuf* m, const Ip6Addr& to, uint16_t port);
    /// Queues `n` datagrams for the connected peer in one ring operation.
    /// Returns how many were queued (the rest counted as socket_full and
    /// freed) or -EDESTADDRREQ.
    int send_burst(rte_mbuf** m, unsigned n);
    /// The same to one destination each (sendmmsg with a name per message).
    int sendto_burst(rte_mbuf** m, const SockAddr6* to, unsigned n);

    /// One datagram: 0 and *m, or -EAGAIN when none is waiting. Data starts
    /// at the UDP payload.
    int recv(rte_mbuf** m);
    /// The same, with the sender's address and port.
    int recvfrom(rte_mbuf** m, SockAddr6* from);
    /// Up to n datagrams; each sender is in socket_meta(m)->peer / peer_port.
    unsigned recv_burst(rte_mbuf** out, unsigned n);

    // What the send path reads.
    bool connected() const { return connected_; }
    uint16_t local_port() const { return port_; }
    /// The source address fixed by bind or connect, or nullptr: select per packet.
    const uint8_t* fixed_source() const { return has_source_ ? source_.data() : nullptr; }
    /// The route chosen at connect, while routes have not changed since.
    bool cached_route(uint32_t generation, uint32_t* nexthop) const {
        *nexthop = nexthop_;
        return connected_ && route_generation_ == generation;
    }
    uint8_t hop_limit() const { return hop_limit_; }
    uint8_t traffic_class() const { return traffic_class_; }
    uint32_t flow_label() const { return flow_label_; }

    // Stage side.
    bool deliver(rte_mbuf* m) const { return rte_ring_sp_enqueue(rx_, m) == 0; }
    unsigned take_outgoing(rte_mbuf** out, unsigned n) {
        return rte_ring_sc_dequeue_burst(tx_, reinterpret_cast<void**>(out), n, nullptr);
    }

  private:
    /// Checks a destination; 0 or the errno a send gets.
    static int check_peer(const Ip6Addr& to, uint16_t port);
    /// Binds to an ephemeral port if not bound yet.
    int autobind();
    /// Stamps `m` for `to` and puts it on the send ring.
    int queue(rte_mbuf* m, const uint8_t* to, uint16_t port);
    unsigned queue_burst(rte_mbuf** m, unsigned n);

    EngineContext& ctx_;
    uint16_t port_ = 0;  ///< 0: not bound
    bool connected_ = false;
    bool has_source_ = false;
    bool reuse_addr_ = false;
    Ip6Addr source_{};
    ConnKey key_{};
    uint32_t nexthop_ = 0;
    uint32_t route_generation_ = 0;
    uint8_t hop_limit_ = 64, traffic_class_ = 0;
    uint32_t flow_label_ = 0;
    rte_ring* rx_ = nullptr;
    rte_ring* tx_ = nullptr;
};

}  // namespace pathscope::engine
