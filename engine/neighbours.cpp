#include "engine/neighbours.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace pathscope::engine {

namespace {

constexpr uint64_t kValid = uint64_t{1} << 48;

rte_hash* make_table(const std::string& name, unsigned capacity, uint8_t extra_flags) {
    rte_hash_parameters hp{};
    hp.name = name.c_str();
    hp.entries = capacity;
    hp.key_len = 16;
    hp.socket_id = static_cast<int>(rte_socket_id());
    hp.extra_flag = extra_flags;
    rte_hash* h = rte_hash_create(&hp);
    if (!h)
        throw std::runtime_error("cannot create the neighbour table " + name + ": " +
                                 rte_strerror(rte_errno));
    return h;
}

}  // namespace

// Readers look keys up while a writer adds one: the lock-free read mode.
// Keys are never deleted while the engine runs (a reachable neighbour stays
// so), so no reader can hold an entry that is being freed: no grace period
// (rte_rcu_qsbr) is needed.
NeighbourCache::NeighbourCache(const std::string& name, unsigned capacity)
    : hash_(make_table(name, capacity, RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF)),
      entries_(std::make_unique<Entry[]>(capacity)),
      capacity_(capacity) {}

NeighbourCache::~NeighbourCache() { rte_hash_free(hash_); }

bool NeighbourCache::find(const uint8_t* addr, rte_ether_addr& mac) const {
    void* data = nullptr;
    if (rte_hash_lookup_data(hash_, addr, &data) < 0) return false;
    // Acquire: the word was stored (release) before or after the key was
    // published; a reader that sees the key before its word sees 0.
    const uint64_t word = static_cast<const Entry*>(data)->word.load(std::memory_order_acquire);
    if (!(word & kValid)) return false;
    for (unsigned i = 0; i < RTE_ETHER_ADDR_LEN; ++i)
        mac.addr_bytes[i] = static_cast<uint8_t>(word >> (8 * i));
    return true;
}

bool NeighbourCache::learn(const uint8_t* addr, const rte_ether_addr& mac) {
    uint64_t word = kValid;
    for (unsigned i = 0; i < RTE_ETHER_ADDR_LEN; ++i)
        word |= uint64_t{mac.addr_bytes[i]} << (8 * i);
    rte_spinlock_lock(&writer_);
    void* data = nullptr;
    bool ok = true;
    if (rte_hash_lookup_data(hash_, addr, &data) >= 0) {
        static_cast<Entry*>(data)->word.store(word, std::memory_order_release);
    } else if (used_ < capacity_) {
        Entry& e = entries_[used_];
        e.word.store(word, std::memory_order_release);
        ok = rte_hash_add_key_data(hash_, addr, &e) == 0;
        if (ok) ++used_;
    } else {
        ok = false;
    }
    rte_spinlock_unlock(&writer_);
    return ok;
}

PendingNeighbours::PendingNeighbours(const std::string& name, unsigned capacity, unsigned hold,
                                     unsigned probes, uint64_t retrans_tsc)
    : hash_(make_table(name, capacity, 0)),
      entries_(capacity),
      hold_(std::min(hold, kMaxHold)),
      probes_(std::max(probes, 1u)),
      retrans_(retrans_tsc) {}

PendingNeighbours::~PendingNeighbours() {
    drain_held([](rte_mbuf* m) { rte_pktmbuf_free(m); });
    rte_hash_free(hash_);
}

PendingNeighbours::Entry* PendingNeighbours::find(const uint8_t* addr) {
    // The hash's own position is the index: rte_hash_lookup returns a slot
    // below `entries`, so no data pointer and no second table is needed.
    const int32_t pos = rte_hash_lookup(hash_, addr);
    return pos >= 0 ? &entries_[static_cast<uint32_t>(pos)] : nullptr;
}

PendingNeighbours::Entry* PendingNeighbours::create(const uint8_t* addr, uint16_t port,
                                                    uint64_t now) {
    const int32_t pos = rte_hash_add_key(hash_, addr);
    if (pos < 0 || static_cast<uint32_t>(pos) >= entries_.size()) {
        if (pos >= 0) rte_hash_del_key(hash_, addr);
        return nullptr;
    }
    Entry& e = entries_[static_cast<uint32_t>(pos)];
    e = Entry{};
    memcpy(e.addr.data(), addr, 16);
    e.port = port;
    e.deadline = now;
    pending_.push_back(static_cast<uint32_t>(pos));
    next_due_ = std::min(next_due_, now);
    return &e;
}

bool PendingNeighbours::hold(Entry& e, rte_mbuf* m) {
    if (e.held >= hold_) return false;
    e.hold[e.held++] = m;
    return true;
}

void PendingNeighbours::probed(Entry& e, uint64_t now) {
    ++e.probes;
    e.deadline = now + retrans_;
}

void PendingNeighbours::erase(uint32_t index) {
    Entry& e = entries_[index];
    rte_hash_del_key(hash_, e.addr.data());
    e = Entry{};
    auto it = std::find(pending_.begin(), pending_.end(), index);
    if (it != pending_.end()) {
        *it = pending_.back();
        pending_.pop_back();
    }
    if (pending_.empty()) next_due_ = UINT64_MAX;
}

}  // namespace pathscope::engine
