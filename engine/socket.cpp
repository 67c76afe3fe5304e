#include "engine/socket.h"
#include "engine/tsan.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "engine/packet_meta.h"

namespace pathscope::engine {

namespace {

/// `producers`: threads that enqueue (the workers that deliver to a receive ring).
rte_ring* make_ring(const std::string& name, unsigned size, unsigned producers) {
    const unsigned flags = (producers > 1 ? 0 : RING_F_SP_ENQ) | RING_F_SC_DEQ;
    rte_ring* r = rte_ring_create(name.c_str(), size, SOCKET_ID_ANY, flags);
    if (!r)
        throw std::runtime_error("cannot create socket ring " + name + ": " +
                                 rte_strerror(rte_errno));
    return r;
}

bool all_zero(const uint8_t* a) {
    static const uint8_t zero[16] = {};
    return memcmp(a, zero, 16) == 0;
}

bool v4_mapped(const uint8_t* a) {
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(a, prefix, 12) == 0;
}

}  // namespace

ReadyList::ReadyList(unsigned capacity, unsigned producers) {
    static unsigned serial = 0;
    // A ring holds one less than its size: room for every socket that may join.
    ring_ = make_ring("ready" + std::to_string(serial++), rte_align32pow2(capacity + 1), producers);
}

ReadyList::~ReadyList() { rte_ring_free(ring_); }

UdpSocket::UdpSocket(EngineContext& ctx, unsigned ring_size)
    : ctx_(ctx), accounting_(ctx.send_accounting) {
    static unsigned serial = 0;
    const std::string base = "us" + std::to_string(serial++);
    rx_ = make_ring(base + "rx", ring_size, ctx.worker_count);
    tx_ = make_ring(base + "tx", ring_size, 1);
    ctx_.sockets.push_back(this);
}

UdpSocket::~UdpSocket() {
    if (connected_) {
        // The table's readers are lock-free (RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF),
        // so a deleted key's slot is kept until freed. Sockets close only
        // when the engine has stopped (the applications go after the
        // workers), so no reader can hold it: it is freed at once, with no
        // rte_rcu_qsbr grace period to wait for.
        const int32_t pos = rte_hash_del_key(ctx_.connected, &key_);
        if (pos >= 0) rte_hash_free_key_with_position(ctx_.connected, pos);
        ctx_.connected_count.fetch_sub(1, std::memory_order_relaxed);
    }
    if (port_ && ctx_.bound[port_].load(std::memory_order_relaxed) == this)
        ctx_.bound[port_].store(nullptr, std::memory_order_relaxed);
    std::erase(ctx_.sockets, this);
    rte_mbuf* m;
    while (rte_ring_dequeue(rx_, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
    while (rte_ring_dequeue(tx_, reinterpret_cast<void**>(&m)) == 0) {
        release_if_sent(m);
        rte_pktmbuf_free(m);
    }
    rte_ring_free(rx_);
    rte_ring_free(tx_);
}

int UdpSocket::bind(const Ip6Addr& addr, uint16_t port) {
    if (port_) return -EINVAL;
    if (v4_mapped(addr.data())) return -EAFNOSUPPORT;
    if (!all_zero(addr.data()) && !ctx_.ifaddrs->is_local(addr.data())) return -EADDRNOTAVAIL;
    if (port == 0) {
        // An ephemeral port, searched from where the last one was found.
        for (unsigned tries = 0; tries < 16384 && !port; ++tries) {
            const uint16_t p = ctx_.next_ephemeral;
            ctx_.next_ephemeral = p == 65535 ? 49152 : static_cast<uint16_t>(p + 1);
            if (!ctx_.bound[p].load(std::memory_order_relaxed)) port = p;
        }
        if (!port) return -EAGAIN;
    } else if (ctx_.bound[port].load(std::memory_order_relaxed) && !reuse_addr_) {
        return -EADDRINUSE;
    }
    port_ = port;
    // Published with release: a worker that finds it (acquire) sees the socket made.
    if (!ctx_.bound[port].load(std::memory_order_relaxed))
        ctx_.bound[port].store(this, std::memory_order_release);
    if (!all_zero(addr.data())) {
        source_ = addr;
        has_source_ = true;
    }
    return 0;
}

int UdpSocket::autobind() { return port_ ? 0 : bind(Ip6Addr{}, 0); }

int UdpSocket::check_peer(const Ip6Addr& to, uint16_t port) {
    if (v4_mapped(to.data())) return -EAFNOSUPPORT;
    if (all_zero(to.data()) || port == 0) return -EINVAL;
    return 0;
}

int UdpSocket::connect(const Ip6Addr& peer, uint16_t port) {
    if (connected_) return -EISCONN;
    if (const int rc = check_peer(peer, port)) return rc;
    if (peer[0] == 0xff) return -EINVAL;
    if (const int rc = autobind()) return rc;
    // The route and the source address are chosen once, here; the lookup is
    // not one of the per-packet lookups that send_path.route_lookups counts.
    // Through the policy rules, with the bound source if there is one (Linux:
    // ip6_route_output with the socket's saddr). A rule's drop gives Linux's
    // errno: unreachable -ENETUNREACH, prohibit -EACCES, blackhole -EINVAL.
    RuleTally tally;
    const uint32_t nh = ctx_.route_output(peer.data(), has_source_ ? source_.data() : nullptr, tally);
    tally.flush(ctx_.app_worker().events);
    if (nh == kNexthopProhibit) return -EACCES;
    if (nh == kNexthopBlackhole) return -EINVAL;
    if (nh < kNexthopFirstRoute) return -ENETUNREACH;
    if (!has_source_) {
        if (!ctx_.ifaddrs->select_source(ctx_.nexthops[nh].port, peer.data(), source_.data()))
            return -EADDRNOTAVAIL;
        has_source_ = true;
    }
    ConnKey k{};
    memcpy(k.remote, peer.data(), 16);
    k.remote_port = port;
    k.local_port = port_;
    if (rte_hash_lookup(ctx_.connected, &k) >= 0) return -EADDRINUSE;
    // Everything a worker reads of a connected socket is set before the
    // table publishes it (the lock-free add stores with release, lookups load
    // with acquire): another worker may find it the moment it is added.
    key_ = k;
    nexthop_ = nh;
    route_generation_ = ctx_.route_generation;
    connected_ = true;
    tsan_handed_over(this);  // rte_hash's own release is in its library
    if (rte_hash_add_key_data(ctx_.connected, &k, this) < 0) {
        connected_ = false;
        return -ENOBUFS;
    }
    ctx_.connected_count.fetch_add(1, std::memory_order_release);
    return 0;
}

int UdpSocket::queue(rte_mbuf* m, const uint8_t* to, uint16_t port) {
    SocketMeta* sm = socket_meta(m);
    memmove(sm->peer, to, 16);  // `to` may already point here (echo)
    sm->peer_port = port;
    sm->socket = this;
    meta(m)->fate = Fate::local;
    ctx_.app_worker().send_path.sends.add();
    // Charged before it is queued: the worker may transmit it at once.
    charge(m->buf_len);
    if (rte_ring_sp_enqueue(tx_, m) != 0) {
        ctx_.app_worker().counters.send_drops[static_cast<unsigned>(DropReason::socket_full)].add();
        release_sent(m->buf_len);
        rte_pktmbuf_free(m);
        return -ENOBUFS;
    }
    return 0;
}

unsigned UdpSocket::queue_burst(rte_mbuf** m, unsigned n) {
    for (unsigned i = 0; i < n; ++i) charge(m[i]->buf_len);  // one charge a datagram, as the kernel
    const unsigned done =
        rte_ring_sp_enqueue_burst(tx_, reinterpret_cast<void* const*>(m), n, nullptr);
    ctx_.app_worker().send_path.sends.add(n);
    if (done < n) {
        for (unsigned i = done; i < n; ++i) release_sent(m[i]->buf_len);
        ctx_.app_worker().counters.send_drops[static_cast<unsigned>(DropReason::socket_full)].add(n - done);
        rte_pktmbuf_free_bulk(m + done, n - done);
    }
    return done;
}

int UdpSocket::send(rte_mbuf* m) {
    if (!connected_) {
        rte_pktmbuf_free(m);
        return -EDESTADDRREQ;
    }
    return queue(m, key_.remote, key_.remote_port);
}

int UdpSocket::sendto(rte_mbuf* m, const Ip6Addr& to, uint16_t port) {
    int rc = check_peer(to, port);
    if (!rc) rc = autobind();
    if (rc) {
        rte_pktmbuf_free(m);
        return rc;
    }
    return queue(m, to.data(), port);
}

int UdpSocket::send_burst(rte_mbuf** m, unsigned n) {
    if (!connected_) {
        rte_pktmbuf_free_bulk(m, n);
        return -EDESTADDRREQ;
    }
    for (unsigned i = 0; i < n; ++i) {
        SocketMeta* sm = socket_meta(m[i]);
        memcpy(sm->peer, key_.remote, 16);
        sm->peer_port = key_.remote_port;
        sm->socket = this;
        meta(m[i])->fate = Fate::local;
    }
    return static_cast<int>(queue_burst(m, n));
}

int UdpSocket::sendto_burst(rte_mbuf** m, const SockAddr6* to, unsigned n) {
    int rc = autobind();
    for (unsigned i = 0; i < n && !rc; ++i) rc = check_peer(to[i].addr, to[i].port);
    if (rc) {
        rte_pktmbuf_free_bulk(m, n);
        return rc;
    }
    for (unsigned i = 0; i < n; ++i) {
        SocketMeta* sm = socket_meta(m[i]);
        memcpy(sm->peer, to[i].addr.data(), 16);
        sm->peer_port = to[i].port;
        sm->socket = this;
        meta(m[i])->fate = Fate::local;
    }
    return static_cast<int>(queue_burst(m, n));
}

unsigned UdpSocket::recv_burst(rte_mbuf** out, unsigned n) {
    // udp6_input queued each datagram with its data at the payload.
    return rte_ring_sc_dequeue_burst(rx_, reinterpret_cast<void**>(out), n, nullptr);
}

int UdpSocket::recv(rte_mbuf** m) { return recv_burst(m, 1) ? 0 : -EAGAIN; }

int UdpSocket::recvfrom(rte_mbuf** m, SockAddr6* from) {
    if (!recv_burst(m, 1)) return -EAGAIN;
    const SocketMeta* sm = socket_meta(*m);
    memcpy(from->addr.data(), sm->peer, 16);
    from->port = sm->peer_port;
    return 0;
}

}  // namespace pathscope::engine
