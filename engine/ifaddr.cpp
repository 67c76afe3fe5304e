#include "engine/ifaddr.h"

#include <chrono>

#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include <cstring>
#include <stdexcept>
#include <thread>

namespace pathscope::engine {

namespace {

/// How long an rcu writer checks for the end of a grace period before it
/// sleeps between checks: a few graph walks.
constexpr std::chrono::microseconds kGraceSpin{50};

enum class Scope { link_local, global };

Scope scope_of(const uint8_t* a) {
    if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return Scope::link_local;
    if (a[0] == 0xff && (a[1] & 0x0f) <= 2) return Scope::link_local;  // ff01::/ff02:: groups
    return Scope::global;
}

unsigned common_prefix(const uint8_t* a, const uint8_t* b) {
    for (unsigned i = 0; i < 16; ++i)
        if (const uint8_t x = a[i] ^ b[i]) return i * 8 + static_cast<unsigned>(__builtin_clz(x) - 24);
    return 128;
}

}  // namespace

InterfaceAddresses::InterfaceAddresses(IfaddrSync sync, unsigned ports)
    : sync_(sync), sets_(std::make_unique<std::atomic<Set*>[]>(ports)), ports_(ports) {
    for (unsigned p = 0; p < ports; ++p) sets_[p] = new Set();
    rte_rwlock_init(&lock_);
    if (sync_ == IfaddrSync::rcu) {
        const size_t sz = rte_rcu_qsbr_get_memsize(kMaxReaders);
        qs_ = static_cast<rte_rcu_qsbr*>(rte_zmalloc("ifaddr_qsbr", sz, RTE_CACHE_LINE_SIZE));
        if (!qs_ || rte_rcu_qsbr_init(qs_, kMaxReaders) != 0)
            throw std::runtime_error("cannot set up the address list's RCU state: " +
                                     std::string(rte_strerror(rte_errno)));
        for (unsigned r = 0; r < kMaxReaders; ++r) rte_rcu_qsbr_thread_register(qs_, r);
    }
}

InterfaceAddresses::~InterfaceAddresses() {
    for (unsigned p = 0; p < ports_; ++p) delete sets_[p].load();
    rte_free(qs_);
}

bool InterfaceAddresses::contains(uint16_t port, const uint8_t* addr) const {
    bool found = false;
    read(port, [&](const Prefix6* a, unsigned n) {
        for (unsigned i = 0; i < n && !found; ++i) found = memcmp(a[i].addr.data(), addr, 16) == 0;
    });
    return found;
}

bool InterfaceAddresses::is_local(const uint8_t* addr) const {
    // One read-side section over every port in use.
    if (sync_ == IfaddrSync::rwlock) rte_rwlock_read_lock(&lock_);
    bool found = false;
    for (size_t k = 0; k < used_.size() && !found; ++k) {
        const Set* s = sets_[used_[k]].load(std::memory_order_acquire);
        for (unsigned i = 0; i < s->n && !found; ++i)
            found = memcmp(s->addrs[i].addr.data(), addr, 16) == 0;
    }
    if (sync_ == IfaddrSync::rwlock) rte_rwlock_read_unlock(&lock_);
    return found;
}

bool InterfaceAddresses::select_source(uint16_t port, const uint8_t* dst, uint8_t* out) const {
    bool found = false;
    read(port, [&](const Prefix6* a, unsigned n) {
        const Scope want = scope_of(dst);
        int best = -1;
        unsigned best_len = 0;
        for (unsigned i = 0; i < n; ++i) {
            const uint8_t* cand = a[i].addr.data();
            if (memcmp(cand, dst, 16) == 0) {  // rule 1: the destination itself
                best = static_cast<int>(i);
                break;
            }
            if (scope_of(cand) != want) continue;  // rule 2 (one scope a kind suffices here)
            const unsigned len = common_prefix(cand, dst);
            if (best < 0 || len > best_len) best = static_cast<int>(i), best_len = len;  // rule 8
        }
        if (best >= 0) {
            memcpy(out, a[best].addr.data(), 16);
            found = true;
        }
    });
    return found;
}

void InterfaceAddresses::quiescent(unsigned reader) const {
    if (qs_) rte_rcu_qsbr_quiescent(qs_, reader);
}
void InterfaceAddresses::online(unsigned reader) const {
    if (qs_) rte_rcu_qsbr_thread_online(qs_, reader);
}
void InterfaceAddresses::offline(unsigned reader) const {
    if (qs_) rte_rcu_qsbr_thread_offline(qs_, reader);
}

void InterfaceAddresses::publish(uint16_t port, Set* next) {
    if (sync_ == IfaddrSync::rwlock) {
        rte_rwlock_write_lock(&lock_);
        Set* old = sets_[port].exchange(next, std::memory_order_acq_rel);
        rte_rwlock_write_unlock(&lock_);
        delete old;  // no reader holds it: they all read under the lock
    } else {
        Set* old = sets_[port].exchange(next, std::memory_order_acq_rel);
        // Every online reader must pass a quiescent state before `old` goes.
        // The grace period is one graph walk (a few microseconds): the writer
        // checks for it for at most kGraceSpin, then sleeps between checks,
        // where rte_rcu_qsbr_synchronize would spin for as long as it takes
        // (a whole time slice when the worker is preempted), on a CPU the
        // worker or its traffic source may share. Sleeping from the start
        // would make each change wait for a wake-up, which on a loaded
        // machine takes milliseconds and slows the churn far below its rate.
        const uint64_t token = rte_rcu_qsbr_start(qs_);
        const auto spin_until = std::chrono::steady_clock::now() + kGraceSpin;
        while (!rte_rcu_qsbr_check(qs_, token, false)) {
            if (std::chrono::steady_clock::now() < spin_until)
                rte_pause();
            else
                std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
        delete old;
    }
}

bool InterfaceAddresses::add(uint16_t port, const Prefix6& addr) {
    while (writing_.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
    const Set* cur = sets_[port].load(std::memory_order_acquire);
    bool ok = cur->n < kMaxPerPort;
    for (unsigned i = 0; ok && i < cur->n; ++i) ok = cur->addrs[i].addr != addr.addr;
    if (ok) {
        auto* next = new Set(*cur);
        next->addrs[next->n++] = addr;
        publish(port, next);
    }
    writing_.store(false, std::memory_order_release);
    return ok;
}

bool InterfaceAddresses::remove(uint16_t port, const Ip6Addr& addr) {
    while (writing_.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
    const Set* cur = sets_[port].load(std::memory_order_acquire);
    auto* next = new Set();
    for (unsigned i = 0; i < cur->n; ++i)
        if (cur->addrs[i].addr != addr) next->addrs[next->n++] = cur->addrs[i];
    const bool found = next->n != cur->n;
    if (found)
        publish(port, next);
    else
        delete next;
    writing_.store(false, std::memory_order_release);
    return found;
}

}  // namespace pathscope::engine
