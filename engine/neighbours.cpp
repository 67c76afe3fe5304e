#include "engine/neighbours.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace pathscope::engine {

NeighbourTable::NeighbourTable(const std::string& name, unsigned capacity, unsigned hold,
                               unsigned probes, uint64_t retrans_tsc)
    : entries_(capacity), hold_(std::min(hold, kMaxHold)), probes_(std::max(probes, 1u)),
      retrans_(retrans_tsc) {
    rte_hash_parameters hp{};
    hp.name = name.c_str();
    hp.entries = capacity;
    hp.key_len = 16;
    hp.socket_id = static_cast<int>(rte_socket_id());
    hash_ = rte_hash_create(&hp);
    if (!hash_)
        throw std::runtime_error("cannot create the neighbour table: " +
                                 std::string(rte_strerror(rte_errno)));
}

NeighbourTable::~NeighbourTable() {
    drain_held([](rte_mbuf* m) { rte_pktmbuf_free(m); });
    rte_hash_free(hash_);
}

NeighbourTable::Entry* NeighbourTable::find(const uint8_t* addr) {
    // The hash's own position is the index: rte_hash_lookup returns a slot
    // below `entries`, so no data pointer and no second table is needed.
    const int32_t pos = rte_hash_lookup(hash_, addr);
    return pos >= 0 ? &entries_[static_cast<uint32_t>(pos)] : nullptr;
}

NeighbourTable::Entry* NeighbourTable::create(const uint8_t* addr, uint16_t port, uint64_t now) {
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

bool NeighbourTable::hold(Entry& e, rte_mbuf* m) {
    if (e.held >= hold_) return false;
    e.hold[e.held++] = m;
    return true;
}

void NeighbourTable::probed(Entry& e, uint64_t now) {
    ++e.probes;
    e.deadline = now + retrans_;
}

void NeighbourTable::learn(const uint8_t* addr, uint16_t port, const rte_ether_addr& mac,
                           std::vector<rte_mbuf*>& released) {
    Entry* e = find(addr);
    if (!e) {
        const int32_t pos = rte_hash_add_key(hash_, addr);
        if (pos < 0 || static_cast<uint32_t>(pos) >= entries_.size()) return;  // table full
        e = &entries_[static_cast<uint32_t>(pos)];
        *e = Entry{};
        memcpy(e->addr.data(), addr, 16);
        }
    e->mac = mac;
    e->port = port;
    if (!e->reachable) {
        e->reachable = true;
        released.insert(released.end(), e->hold, e->hold + e->held);
        e->held = 0;
        const uint32_t idx = static_cast<uint32_t>(e - entries_.data());
        pending_.erase(std::remove(pending_.begin(), pending_.end(), idx), pending_.end());
    }
}

void NeighbourTable::erase(uint32_t index) {
    Entry& e = entries_[index];
    rte_hash_del_key(hash_, e.addr.data());
    e = Entry{};
    auto it = std::find(pending_.begin(), pending_.end(), index);
    if (it != pending_.end()) {
        *it = pending_.back();
        pending_.pop_back();
    }
}

}  // namespace pathscope::engine
