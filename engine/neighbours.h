// The neighbour table (RFC 4861, the parts a sender needs): a link-layer
// address per on-link IPv6 neighbour, learnt from solicitations and
// advertisements. A packet to an unknown neighbour creates an INCOMPLETE
// entry and is held (a bounded number per entry) while solicitations go out,
// one now and more every retransmit interval; an advertisement releases what
// is held, and a neighbour that never answers ends in nd_timeout.
// Only the worker touches it once the engine runs; no locking.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/config.h"
#include "engine/dpdk.h"

namespace pathscope::engine {

class NeighbourTable {
  public:
    static constexpr unsigned kMaxHold = 64;

    struct Entry {
        Ip6Addr addr{};
        rte_ether_addr mac{};
        bool reachable = false;
        uint16_t port = 0;     ///< DPDK port the neighbour is on
        uint16_t probes = 0;   ///< solicitations sent so far (INCOMPLETE)
        uint64_t deadline = 0; ///< TSC of the next retransmit or the give-up
        uint16_t held = 0;
        rte_mbuf* hold[kMaxHold] = {};
    };

    /// `hold`: packets held per entry (at most kMaxHold); `probes`:
    /// solicitations before giving up; `retrans_tsc`: TSC cycles between them.
    NeighbourTable(const std::string& name, unsigned capacity, unsigned hold, unsigned probes,
                   uint64_t retrans_tsc);
    ~NeighbourTable();
    NeighbourTable(const NeighbourTable&) = delete;
    NeighbourTable& operator=(const NeighbourTable&) = delete;

    Entry* find(const uint8_t* addr);
    /// A new INCOMPLETE entry whose first solicitation is due now; nullptr when full.
    Entry* create(const uint8_t* addr, uint16_t port, uint64_t now);
    /// Holds `m` on an INCOMPLETE entry; false when its queue is full.
    bool hold(Entry& e, rte_mbuf* m);
    /// Records `mac` for `addr` (creating a REACHABLE entry when unknown, as
    /// a solicitation from the neighbour does). What was held is appended to
    /// `released`, to continue on its way.
    void learn(const uint8_t* addr, uint16_t port, const rte_ether_addr& mac,
               std::vector<rte_mbuf*>& released);
    /// A solicitation went out for `e`: counts it and sets the next deadline.
    void probed(Entry& e, uint64_t now);

    /// The earliest deadline of any INCOMPLETE entry (UINT64_MAX: none):
    /// the timer stage checks this one number per graph walk.
    uint64_t next_due() const { return next_due_; }
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
    /// Every held packet of every entry, for the engine's stop.
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

    rte_hash* hash_ = nullptr;  ///< address -> index into entries_
    std::vector<Entry> entries_;
    std::vector<uint32_t> pending_;  ///< indexes of INCOMPLETE entries
    unsigned hold_, probes_;
    uint64_t retrans_;
    uint64_t next_due_ = UINT64_MAX;
};

}  // namespace pathscope::engine
