// The interface address list: each port's addresses, read by the worker on
// every local delivery and every source address selection, changed by
// control threads while it runs. Two designs behind one switch
// (engine.ifaddr_sync), so that a review can compare them in one binary:
//  - rcu: readers load a pointer and never write shared memory; a writer
//    publishes a new copy, waits with rte_rcu_qsbr until every registered
//    reader passed a quiescent state, then frees the old copy;
//  - rwlock: readers take rte_rwlock's read side around each lookup (an
//    atomic add and subtract on one shared cache line); writers the write side.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/config.h"
#include "engine/dpdk.h"

struct rte_rcu_qsbr;

namespace pathscope::engine {

class InterfaceAddresses {
  public:
    static constexpr unsigned kMaxPerPort = 16;
    /// Reader thread ids for rte_rcu_qsbr: the engine's workers are 0, 1, ...
    /// (engine.workers), a test's reader threads may use any other.
    static constexpr unsigned kMaxReaders = kMaxWorkers + 4;

    InterfaceAddresses(IfaddrSync sync, unsigned ports);
    ~InterfaceAddresses();
    InterfaceAddresses(const InterfaceAddresses&) = delete;
    InterfaceAddresses& operator=(const InterfaceAddresses&) = delete;

    IfaddrSync sync() const { return sync_; }

    // Reader side (the worker, or a test's reader thread).
    /// Whether `addr` is one of port `port`'s addresses.
    bool contains(uint16_t port, const uint8_t* addr) const;
    /// Whether `addr` is an address of any port.
    bool is_local(const uint8_t* addr) const;
    /// RFC 6724 source address selection among `port`'s addresses for
    /// destination `dst`, with the rules that decide between one or two
    /// addresses a port: the destination itself (rule 1), a matching scope
    /// (rule 2), then the longest matching prefix (rule 8). False when the
    /// port has no address of a usable scope.
    bool select_source(uint16_t port, const uint8_t* dst, uint8_t* out) const;
    /// Runs f(const Prefix6* addrs, unsigned n) over `port`'s addresses
    /// under the reader side of the chosen protection (tests use it to hold
    /// a reference across a concurrent removal).
    template <typename F>
    void read(uint16_t port, F&& f) const {
        if (sync_ == IfaddrSync::rwlock) rte_rwlock_read_lock(&lock_);
        const Set* s = sets_[port].load(std::memory_order_acquire);
        f(s->addrs, s->n);
        if (sync_ == IfaddrSync::rwlock) rte_rwlock_read_unlock(&lock_);
    }
    /// Set-up only, before readers start: `port` is in use (is_local looks there).
    void use_port(uint16_t port) { used_.push_back(port); }
    /// rcu: a registered reader says it holds no reference (once per graph walk).
    void quiescent(unsigned reader) const;
    /// rcu: a reader thread joins (online) or leaves (offline); writers wait
    /// only for online readers.
    void online(unsigned reader) const;
    void offline(unsigned reader) const;

    // Writer side (any control thread; writers are serialised among themselves).
    /// Adds an address; false when the port's list is full or has it.
    bool add(uint16_t port, const Prefix6& addr);
    /// Removes an address; returns once no reader can still see the old list,
    /// with its memory freed. False when the port did not have it.
    bool remove(uint16_t port, const Ip6Addr& addr);

  private:
    struct Set {
        unsigned n = 0;
        Prefix6 addrs[kMaxPerPort];
    };
    /// Publishes `next` as port's list and frees the one it replaces once no
    /// reader can hold it.
    void publish(uint16_t port, Set* next);

    IfaddrSync sync_;
    std::unique_ptr<std::atomic<Set*>[]> sets_;
    unsigned ports_;
    std::vector<uint16_t> used_;
    rte_rcu_qsbr* qs_ = nullptr;
    mutable rte_rwlock_t lock_;
    std::atomic<bool> writing_{false};  ///< writers' own mutual exclusion
};

}  // namespace pathscope::engine
