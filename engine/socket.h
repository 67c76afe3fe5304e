// A small UDP socket API over rings, used by the built-in applications and
// shaped like POSIX: bind, connect, send, sendto, recv, recvfrom, and the
// batched send_burst / recv_burst. Errors are negative errno values
// (-EADDRINUSE, -EDESTADDRREQ, -EAFNOSUPPORT, -ENOBUFS, ...), DPDK style.
// A send call always takes the mbuf: it is queued, or freed with an error.
//
// udp6_input enqueues received datagrams, their data at the UDP payload, on
// the receive ring (one producer per worker that delivers: single with one
// worker); the application dequeues them. Sends enqueue on the send ring,
// which the udp6_output stage (on worker 0, as the applications) drains.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/context.h"
#include "engine/dpdk.h"
#include "engine/packet_meta.h"

namespace pathscope::engine {

struct SockAddr6 {
    Ip6Addr addr{};
    uint16_t port = 0;
};

class UdpSocket;

/// Sockets with datagrams waiting, for an application that owns many (what
/// epoll's ready list is to a server): a socket joins when udp6_input
/// delivers to it while it is not listed, so the application visits only
/// those instead of polling every socket's ring. Every worker that delivers
/// (`producers`, engine.workers) may add; only the application's worker
/// takes. Room for `capacity` sockets: a socket is listed at most once at a
/// time, so a list as large as the sockets that may join never fills.
class ReadyList {
  public:
    ReadyList(unsigned capacity, unsigned producers);
    ~ReadyList();
    ReadyList(const ReadyList&) = delete;
    ReadyList& operator=(const ReadyList&) = delete;

    void add(UdpSocket* s) { rte_ring_enqueue(ring_, s); }
    unsigned take(UdpSocket** out, unsigned n) {
        return rte_ring_sc_dequeue_burst(ring_, reinterpret_cast<void**>(out), n, nullptr);
    }

  private:
    rte_ring* ring_ = nullptr;
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
    /// Joins `list` whenever a datagram arrives while not listed (nullptr: never).
    void set_ready_list(ReadyList* list) { ready_ = list; }
    /// The application took this socket off its ready list: the next delivery
    /// lists it again. Call it before draining the receive ring: a datagram
    /// queued before this is drained then, one queued after lists the socket
    /// again (both sides exchange `listed_`, so one of them sees the other).
    void unlist() { listed_.exchange(false, std::memory_order_acq_rel); }

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

    /// Send-buffer accounting (engine.send_accounting), Linux's sk_wmem_alloc:
    /// every queued datagram charges its buffer's size (m->buf_len, as the
    /// kernel charges skb->truesize) until the engine transmits or drops it.
    /// Bytes in flight now; 0 once everything sent has left or been dropped.
    uint64_t inflight_bytes() const {
        return std::atomic_ref<const uint64_t>(wmem_).load(std::memory_order_relaxed);
    }
    /// Write-space wake-ups: times a release found the buffer under half its
    /// size with a sender waiting (atomic accounting only).
    uint64_t write_wakeups() const { return write_wakeups_; }
    /// The send buffer size the wake-up check compares with (Linux's
    /// wmem_default); a sender that finds more in flight sets the waiter flag.
    static constexpr uint64_t kSendBuffer = 212992;

    /// What the transmit and free paths call for a datagram this socket
    /// sent, once, when its mbuf leaves the engine (transmitted or dropped).
    /// atomic: sock_wfree before the review, an atomic subtract, then (the
    /// buffer being writable) a full barrier and the waiter check of
    /// sock_def_write_space / skwq_has_sleeper. local: a plain subtract on
    /// a count only the worker lcore touches.
    void release_sent(uint64_t bytes) {
        if (accounting_ == SendAccounting::atomic) {
            std::atomic_ref<uint64_t> wmem(wmem_);
            const uint64_t left = wmem.fetch_sub(bytes, std::memory_order_release) - bytes;
            if (left * 2 <= kSendBuffer) {
                std::atomic_thread_fence(std::memory_order_seq_cst);  // smp_mb()
                std::atomic_ref<uint8_t> waiter(write_waiter_);
                if (waiter.load(std::memory_order_relaxed)) {
                    waiter.store(0, std::memory_order_relaxed);
                    ++write_wakeups_;
                }
            }
        } else {
            wmem_ -= bytes;
        }
    }

    /// Whether several datagrams may be released as one sum (local
    /// accounting: the same count); atomic accounting releases each, as
    /// Linux's sock_wfree does per skb, since that cost is what it models.
    bool releases_in_sum() const { return accounting_ == SendAccounting::local; }

    // Stage side.
    bool deliver(rte_mbuf* m) {
        if (rte_ring_enqueue(rx_, m) != 0) return false;  // multi-producer with several workers
        if (ready_ && !listed_.exchange(true, std::memory_order_acq_rel)) ready_->add(this);
        return true;
    }
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
    /// Charges a queued datagram's buffer to the socket (see release_sent).
    void charge(uint32_t bytes) {
        if (accounting_ == SendAccounting::atomic) {
            std::atomic_ref<uint64_t> wmem(wmem_);
            if (wmem.fetch_add(bytes, std::memory_order_relaxed) + bytes > kSendBuffer)
                std::atomic_ref<uint8_t>(write_waiter_).store(1, std::memory_order_relaxed);
        } else {
            wmem_ += bytes;
        }
    }

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
    ReadyList* ready_ = nullptr;
    std::atomic<bool> listed_{false};  ///< on ready_ now
    SendAccounting accounting_;
    /// Bytes in flight; accessed through atomic_ref in atomic accounting,
    /// plainly in local accounting (then only the worker lcore touches it).
    alignas(8) uint64_t wmem_ = 0;
    uint8_t write_waiter_ = 0;  ///< SOCK_NOSPACE: a send found the buffer full
    uint64_t write_wakeups_ = 0;
};

/// Releases a locally sent datagram's in-flight bytes (the free path of
/// eth_tx, drop and the engine's stop); other packets are left alone.
inline void release_if_sent(rte_mbuf* m) {
    if (meta(m)->fate != Fate::local) return;
    if (UdpSocket* s = socket_meta(m)->socket) s->release_sent(m->buf_len);
}

}  // namespace pathscope::engine
