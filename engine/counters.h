// Counters written by exactly one thread (the worker lcore) and read by the
// control thread as snapshots: a load and a store, never a locked operation.
//
// What a snapshot may rely on, on any CPU (x86's TSO, ARM64's weak order):
// every store of a counter is a release and every read an acquire. So a
// reader that sees a counter's value also sees every count the worker made
// before that store, in program order. The worker counts a packet's arrival
// (`received`) before its outcome (delivered, forwarded, replied, a drop),
// so a snapshot that reads the outcomes first and `received` last never
// shows more outcomes than arrivals, and a delta never runs backwards. On
// x86 a release store and an acquire load are plain moves (no fence); on
// ARM64 they are STLR and LDAR.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "common/histogram.h"
#include "engine/drop_reason.h"
#include "engine/path_events.h"

namespace pathscope::engine {

/// A count that only this thread writes, stored for another thread to read
/// (a field of a library's struct, such as rte_node's totals).
inline void store_count(uint64_t& field, uint64_t value) {
    __atomic_store_n(&field, value, __ATOMIC_RELEASE);
}

class Counter {
  public:
    void add(uint64_t n = 1) {
        // Only this thread writes: its own last value needs no ordering.
        v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_release);
    }
    uint64_t get() const { return v_.load(std::memory_order_acquire); }

  private:
    std::atomic<uint64_t> v_{0};
};

/// Hot-path side of analysis::Histogram: same bucket layout, single writer.
/// record() writes two cache lines: the first (sum, min, max) and the
/// value's bucket. The count is not kept apart: it is the buckets' total,
/// summed when read (so count, sum and buckets stay exact and agree). The
/// bucket index is branch-free (analysis::bucket_index: one lzcnt, a shift
/// and an add) and min/max, exact, are a predicted compare each on the line
/// sum has just dirtied. About 5 TSC cycles a call when nothing else runs
/// (tests/bench/bench_timer).
class alignas(64) HistogramRecorder {
  public:
    void record(uint64_t v) { record(v, 1); }
    /// `n` equal values at once (the packets of one receive burst share a stamp).
    void record(uint64_t v, uint64_t n) {
        buckets_[analysis::bucket_index(v)].add(n);
        sum_.add(v * n);
        // Predicted branches: after the first calls a new extreme is rare,
        // and a skipped store is cheaper than an unconditional one (measured).
        if (v < min_.load(std::memory_order_relaxed)) [[unlikely]]
            min_.store(v, std::memory_order_relaxed);
        if (v > max_.load(std::memory_order_relaxed)) [[unlikely]]
            max_.store(v, std::memory_order_relaxed);
    }
    /// How many values were recorded (the buckets' total), and their sum.
    uint64_t count() const {
        uint64_t n = 0;
        for (const Counter& b : buckets_) n += b.get();
        return n;
    }
    uint64_t sum() const { return sum_.get(); }
    analysis::Histogram snapshot() const {
        std::vector<uint64_t> counts(analysis::kBucketCount);
        for (unsigned i = 0; i < analysis::kBucketCount; ++i) counts[i] = buckets_[i].get();
        analysis::Histogram h;
        h.add_buckets(counts, min_.load(std::memory_order_relaxed),
                      max_.load(std::memory_order_relaxed), sum_.get());
        return h;
    }

  private:
    Counter sum_;
    std::atomic<uint64_t> min_{UINT64_MAX};
    std::atomic<uint64_t> max_{0};
    alignas(64) Counter buckets_[analysis::kBucketCount];
};

/// The receive ledger: every received packet ends in exactly one of
/// delivered, forwarded, replied or drops[reason]. The send ledger counts
/// what local sockets sent (sent) or lost (send_drops[reason]).
struct alignas(64) PathCounters {
    Counter received;
    Counter delivered;
    Counter forwarded;
    Counter replied;
    Counter drops[kDropSlots];
    Counter sent;
    Counter send_drops[kDropSlots];
};

/// What the send path did besides moving packets: FIB lookups and source
/// address selections (so that a review can count them), datagrams handed to
/// send calls, and the engine's own neighbour solicitations.
struct alignas(64) SendPathCounters {
    Counter sends;              ///< datagrams given to send calls (= sent + send drops)
    Counter route_lookups;      ///< FIB lookups for locally sent datagrams
    Counter source_selections;  ///< RFC 6724 selections for locally sent datagrams
    Counter solicitations;      ///< neighbour solicitations built
    Counter control_sent;       ///< engine-made packets (solicitations) transmitted
    Counter control_drops;      ///< ... and refused by the transmit queue
};

/// Calls of a stage that handled no packet (a source stage polling an empty
/// queue), kept apart so that cycles per packet count busy calls only (the
/// busy calls and their cycles are the per-call histogram's count and sum).
struct alignas(64) IdleCounters {
    Counter calls;
    Counter cycles;
};

/// engine.timing = "1/N": what a stage did in the graph walks that were not
/// timed. Their calls and packets are counted exactly; their cycles are
/// estimated from the stage's recent timed calls: a busy call at the ratio
/// of their cycles to their packets (decayed sums over about the last 256
/// timed calls), an idle call at their mean. A ratio of sums, not the last
/// call's cycles per packet: that one is biased where bursts vary (measured
/// 1-3% low on the generator's bursts), and the last call's cycles alone
/// are unbiased but swing by 5% between runs. Estimates only add, so the
/// stage's cycles only grow and a delta never runs backwards. All zero when
/// every walk is timed.
struct alignas(64) UntimedCounters {
    Counter busy_calls;
    Counter idle_calls;
    Counter busy_cycles;  ///< estimated
    Counter idle_cycles;  ///< estimated
    // The stage's recent timed calls (worker-owned, not read by snapshots).
    uint64_t cycles_sum = 0, packets_sum = 0;  ///< decayed by 1/256 a timed call
    uint64_t busy_per_packet_x256 = 0;         ///< their ratio, in 1/256 cycles
    bool ratio_stale = false;                  ///< the sums moved since the ratio was taken
    uint64_t idle_sum = 0;                     ///< idle calls' cycles, x256, decayed
    void timed_busy(uint64_t cycles, uint64_t packets) {
        cycles_sum += (cycles << 8) - (cycles_sum >> 8);
        packets_sum += (packets << 8) - (packets_sum >> 8);
        // The ratio is taken when an untimed call needs it, not here: a
        // 64-bit division on every timed call cost the forward path about
        // 5 cycles a packet (AMD EPYC VM), and with every walk timed (the
        // default) no call ever reads it.
        ratio_stale = true;
    }
    void timed_idle(uint64_t cycles) { idle_sum += (cycles << 8) - (idle_sum >> 8); }
    void untimed_busy(uint64_t packets) {
        if (ratio_stale) {
            busy_per_packet_x256 = packets_sum ? (cycles_sum << 8) / packets_sum : 0;
            ratio_stale = false;
        }
        busy_calls.add();
        busy_cycles.add((busy_per_packet_x256 * packets) >> 8);
    }
    void untimed_idle() {
        idle_calls.add();
        idle_cycles.add(idle_sum >> 16);  // the decayed sum holds about 256 calls, x256
    }
};

/// Path events (path_events.h), each one counter.
struct alignas(64) EventCounters {
    Counter v[kPathEventCount];
    void add(PathEvent e, uint64_t n = 1) { v[static_cast<unsigned>(e)].add(n); }
};

/// Per-packet and per-transaction latencies in TSC cycles: a packet's time
/// from eth_rx's stamp to its outcome, and a request/response round trip.
struct LatencyRecorders {
    HistogramRecorder sojourn[kSojournCount];
    HistogramRecorder rr;  ///< request/response round trips (workload.kind = "rr")
    void record(Sojourn outcome, uint64_t cycles, uint64_t n = 1) {
        sojourn[static_cast<unsigned>(outcome)].record(cycles, n);
    }
};

/// The worker's application polls (all applications after a walk, timed as
/// one call): busy when some application received or sent a datagram.
/// Applications run outside the graph, so the snapshot shows them as one more
/// stage, "apps", counted like the graph's: a busy poll's cycles in the
/// histogram (its count and sum are the busy polls and cycles), idle apart.
struct alignas(64) AppPollCounters {
    HistogramRecorder busy;
    Counter datagrams;  ///< datagrams the applications handled
    IdleCounters idle;
    UntimedCounters untimed;  ///< polls after walks that were not timed
};

/// Packets a stage moved along each of its next edges, one row per stage
/// (by graph node id), one counter per edge, plus one for the packets the
/// stage kept (kConsumed: delivered to a socket, held for a neighbour, sent
/// to the wire). One cache line a stage; written once per enqueue run (a
/// uniform chunk, a stream move, one packet sent alone), not per packet.
struct alignas(64) EdgeCounters {
    static constexpr unsigned kEdges = 7;          ///< next edges a stage may have
    static constexpr unsigned kKept = kEdges;      ///< slot of the packets the stage kept
    Counter to[kEdges + 1];
    void add(unsigned edge, uint64_t n) { to[edge < kEdges ? edge : kKept].add(n); }
};

/// Graph walks of the worker, and those in which no stage handled a packet.
struct alignas(64) WalkCounters {
    Counter walks;
    Counter idle_walks;
    Counter interrupted;         ///< timed calls longer than engine.interrupted_call_us
    Counter interrupted_cycles;  ///< their wall cycles
};

struct alignas(64) RxQueueCounters {
    Counter packets;
    Counter bytes;
    Counter bursts;       ///< polls that returned at least one packet
    Counter empty_polls;  ///< polls that returned nothing
    HistogramRecorder burst_size;
};

struct alignas(64) TxQueueCounters {
    Counter packets;
    Counter bytes;
    Counter bursts;
    Counter full;  ///< packets the queue refused
};

}  // namespace pathscope::engine
