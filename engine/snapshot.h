// What the control thread reads from a running engine: plain values.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "common/counter_sum.h"
#include "common/histogram.h"
#include "engine/drop_reason.h"
#include "engine/path_events.h"

namespace pathscope::engine {

struct StageSnapshot {
    std::string name;
    uint64_t calls = 0;                   ///< graph library: process() calls
    uint64_t packets = 0;                 ///< graph library: objects processed
    uint64_t cycles = 0;                  ///< graph library: TSC cycles in process()
    uint64_t idle_calls = 0;              ///< calls that handled no packet
    uint64_t idle_cycles = 0;             ///< their cycles (part of `cycles`)
    analysis::Histogram cycles_per_call;  ///< calls that handled at least one packet
};

/// Packets that moved from one stage to another. `to` may also name where a
/// stage kept them (kDeliverSink, kWireSink, kNeighbourTable); `from` may be
/// the neighbour table.
struct EdgeSnapshot {
    std::string from;
    std::string to;
    uint64_t packets = 0;
};

/// Where packets end that no stage passes on: delivered to a socket or the
/// stack, taken by a device, or held by the neighbour table.
inline constexpr const char* kDeliverSink = "deliver";
inline constexpr const char* kWireSink = "wire";
inline constexpr const char* kNeighbourTable = "neighbours";

struct QueueSnapshot {
    std::string port;
    uint16_t queue = 0;
    bool rx = true;
    unsigned worker = 0;  ///< the worker that polls (rx) or sends on (tx) the queue
    uint64_t packets = 0;
    uint64_t bytes = 0;
    uint64_t bursts = 0;
    uint64_t empty_polls = 0;        ///< receive queues only
    uint64_t full = 0;               ///< transmit queues only: packets refused
    analysis::Histogram burst_size;  ///< receive queues only
    /// Receive queues only: the calls of the queue's own eth_rx instance
    /// (its share of the eth_rx stage), counted as the stage's are.
    uint64_t calls = 0;
    uint64_t cycles = 0;
    uint64_t idle_calls = 0;
    uint64_t idle_cycles = 0;
};

struct Ledger {
    uint64_t received = 0;
    uint64_t delivered = 0;
    uint64_t forwarded = 0;
    uint64_t replied = 0;
    std::array<uint64_t, kDropSlots> drops{};  ///< by DropReason (plugins' after the built-in)
    uint64_t sends = 0;  ///< datagrams local sockets were given to send
    uint64_t sent = 0;   ///< ... of which transmitted
    std::array<uint64_t, kDropSlots> send_drops{};

    uint64_t total_drops() const {
        uint64_t t = 0;
        for (auto d : drops) t += d;
        return t;
    }
    uint64_t total_send_drops() const {
        uint64_t t = 0;
        for (auto d : send_drops) t += d;
        return t;
    }
    /// The counters add sums.
    static constexpr auto kCounters =
        std::tuple{&Ledger::received, &Ledger::delivered, &Ledger::forwarded, &Ledger::replied,
                   &Ledger::drops,    &Ledger::sends,     &Ledger::sent,      &Ledger::send_drops};
    /// Adds another ledger's counts (another worker's).
    void add(const Ledger& o) { add_counters(*this, o); }
    /// received = delivered + forwarded + replied + all drops
    bool balanced() const { return received == delivered + forwarded + replied + total_drops(); }
    /// sends = sent + all send-path drops
    bool send_balanced() const { return sends == sent + total_send_drops(); }
};

/// Work of the send path that is not a packet outcome.
struct SendPathSnapshot {
    uint64_t route_lookups = 0;      ///< per-datagram FIB lookups
    uint64_t source_selections = 0;  ///< per-datagram RFC 6724 selections
    uint64_t solicitations = 0;      ///< neighbour solicitations built
    uint64_t control_sent = 0;       ///< ... transmitted
    uint64_t control_drops = 0;      ///< ... refused by the transmit queue
    uint64_t ifaddr_changes = 0;     ///< interface address list changes (churn)
};

/// The stage row of the worker's application polls (after the graph's
/// stages; only with engine.call_histograms and at least one application):
/// calls are polls, packets the datagrams the applications handled.
inline constexpr const char* kAppsStage = "apps";

/// One worker's share of the counters (engine.workers): its graph's stages
/// (the eth_rx instances of its receive queues, then the shared stages),
/// edges and receive ledger. The EngineSnapshot's own fields are the sum
/// over its workers, stage by stage (same name).
struct WorkerSnapshot {
    unsigned worker = 0;
    unsigned lcore = 0;  ///< the EAL lcore it ran on
    uint64_t walks = 0;
    uint64_t idle_walks = 0;
    /// Timed calls that took longer than engine.interrupted_call_us (the
    /// worker was interrupted in them), and their wall cycles: their stages
    /// count them as untimed calls.
    uint64_t interrupted_calls = 0;
    uint64_t interrupted_cycles = 0;
    std::vector<StageSnapshot> stages;
    std::vector<EdgeSnapshot> edges;
    Ledger ledger;
};

struct EngineSnapshot {
    uint64_t tsc_hz = 0;
    uint64_t tsc = 0;  ///< when the snapshot was taken
    /// Graph walks, and walks in which no stage handled a packet. Both 0 when
    /// the idle split is not measured (engine.call_histograms = false runs
    /// DPDK's own rte_graph_walk).
    uint64_t walks = 0;
    uint64_t idle_walks = 0;
    std::vector<StageSnapshot> stages;
    std::vector<EdgeSnapshot> edges;  ///< each stage's edges that carried a packet
    std::vector<QueueSnapshot> queues;
    Ledger ledger;
    SendPathSnapshot send_path;
    std::array<uint64_t, kPathEventCount> events{};  ///< indexed by PathEvent
    /// Receive TSC to outcome, per Sojourn outcome (cycles); empty histograms
    /// when nothing ended that way.
    std::array<analysis::Histogram, kSojournCount> sojourn;
    analysis::Histogram rr_latency;  ///< request/response round trips (cycles)
    /// Per worker, in worker order: one entry per worker (one with a single
    /// worker, equal to the fields above).
    std::vector<WorkerSnapshot> workers;
};

}  // namespace pathscope::engine
