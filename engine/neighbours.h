// Neighbour discovery (RFC 4861, the parts a sender needs), in two parts so
// that several workers never share a lock on the forwarding path:
// - NeighbourCache, shared: the link-layer address of every neighbour known
//   to be reachable. Any worker reads it without a lock (rte_hash with
//   lock-free readers); a worker that learns a neighbour from a solicitation
//   or an advertisement writes it under the cache's own writer lock.
// - PendingNeighbours, one per worker: the INCOMPLETE entries of that
//   worker, each with the packets it holds (a bounded number per entry)
//   while solicitations go out, one now and more every retransmit interval.
//   The worker that held a packet releases it (once the cache knows the
//   neighbour) or drops it (nd_timeout), so each worker's ledger balances.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/dpdk.h"

namespace pathscope::engine {

class NeighbourCache {
  public:
    explicit NeighbourCache(const std::string& name, unsigned capacity);
    ~NeighbourCache();
    NeighbourCache(const NeighbourCache&) = delete;
    NeighbourCache& operator=(const NeighbourCache&) = delete;

    /// The link-layer address of `addr` when it is reachable: lock-free,
    /// from any worker.
    bool find(const uint8_t* addr, rte_ether_addr& mac) const;
    /// Records `mac` for `addr` (new, or a changed address): from any
    /// worker, writers one at a time. False when the cache is full.
    bool learn(const uint8_t* addr, const rte_ether_addr& mac);

  private:
    /// A neighbour's address, published whole: the 48-bit MAC and a set
    /// valid bit (bit 48) in one word, so a reader never sees half of one.
    struct Entry {
        std::atomic<uint64_t> word{0};
    };
    rte_hash* hash_ = nullptr;  ///< address -> Entry*, never deleted while the engine lives
    std::unique_ptr<Entry[]> entries_;
    unsigned capacity_;
    unsigned used_ = 0;  ///< entries handed out (writers only)
    rte_spinlock_t writer_ = RTE_SPINLOCK_INITIALIZER;
};

class PendingNeighbours {
  public:
    static constexpr unsigned kMaxHold = 64;

    struct Entry {
        Ip6Addr addr{};
        uint16_t port = 0;      ///< DPDK port the neighbour is on
        uint16_t probes = 0;    ///< solicitations sent so far
        uint64_t deadline = 0;  ///< TSC of the next retransmit or the give-up
        uint16_t held = 0;
        rte_mbuf* hold[kMaxHold] = {};
    };

    /// `hold`: packets held per entry (at most kMaxHold); `probes`:
    /// solicitations before giving up; `retrans_tsc`: TSC cycles between them.
    PendingNeighbours(const std::string& name, unsigned capacity, unsigned hold, unsigned probes,
                      uint64_t retrans_tsc);
    ~PendingNeighbours();
    PendingNeighbours(const PendingNeighbours&) = delete;
    PendingNeighbours& operator=(const PendingNeighbours&) = delete;

    bool empty() const { return pending_.empty(); }
    Entry* find(const uint8_t* addr);
    /// A new entry whose first solicitation is due now; nullptr when full.
    Entry* create(const uint8_t* addr, uint16_t port, uint64_t now);
    /// Holds `m` on `e`; false when its queue is full.
    bool hold(Entry& e, rte_mbuf* m);
    /// A solicitation went out for `e`: counts it and sets the next deadline.
    void probed(Entry& e, uint64_t now);
    /// The earliest deadline of any entry (UINT64_MAX: none).
    uint64_t next_due() const { return next_due_; }

    /// Entries the cache now knows: on_known(Entry&) takes their held
    /// packets, then they are removed.
    template <typename Known>
    void release_known(const NeighbourCache& cache, Known&& on_known) {
        rte_ether_addr mac;
        for (size_t i = 0; i < pending_.size();) {
            Entry& e = entries_[pending_[i]];
            if (!cache.find(e.addr.data(), mac)) {
                ++i;
                continue;
            }
            on_known(e);
            erase(pending_[i]);  // moves another index into slot i
        }
    }
    /// Entries whose deadline passed: on_probe(Entry&) for those with probes
    /// left (it sends one and calls probed()), on_give_up(Entry&) for the
    /// others, which are then removed (their held packets are the caller's).
    template <typename Probe, typename GiveUp>
    void expire(uint64_t now, Probe&& on_probe, GiveUp&& on_give_up) {
        uint64_t next = UINT64_MAX;
        for (size_t i = 0; i < pending_.size();) {
            Entry& e = entries_[pending_[i]];
            if (e.deadline <= now) {
                if (e.probes < probes_) {
                    on_probe(e);
                } else {
                    on_give_up(e);
                    erase(pending_[i]);
                    continue;  // erase() moved another index into slot i
                }
            }
            next = std::min(next, e.deadline);
            ++i;
        }
        next_due_ = next;
    }
    /// Every held packet, for the engine's stop.
    template <typename F>
    void drain_held(F&& f) {
        for (uint32_t i : pending_) {
            Entry& e = entries_[i];
            for (unsigned k = 0; k < e.held; ++k) f(e.hold[k]);
            e.held = 0;
        }
    }

  private:
    void erase(uint32_t index);

    rte_hash* hash_ = nullptr;  ///< address -> index into entries_ (this worker's only)
    std::vector<Entry> entries_;
    std::vector<uint32_t> pending_;  ///< indexes of live entries
    unsigned hold_, probes_;
    uint64_t retrans_;
    uint64_t next_due_ = UINT64_MAX;
};

}  // namespace pathscope::engine
