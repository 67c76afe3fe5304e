// Plain rows of the store, shared by the writer, the read queries and their
// users (capture, analysis, CLI, GUI). No SQLite, no engine types.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/counter_sum.h"

namespace pathscope::db {

/// Names that cross layers through the store (capture writes them, analysis
/// and the GUI read them): one constant each, never a literal repeated.
inline constexpr const char* kCaptureKind = "capture";
inline constexpr const char* kPcapImportKind = "pcap-import";
/// A micro-benchmark run (pathscope bench route-output): trials of timed
/// calls, no packets; its latency histograms and path events are its figures.
inline constexpr const char* kBenchKind = "bench";
/// Whether a run of `kind` ran trials (a capture, a benchmark); an import did not.
inline bool runs_trials(const std::string& kind) { return kind == kCaptureKind || kind == kBenchKind; }
inline constexpr const char* kStageCallCycles = "stage_call_cycles";  ///< histogram kind
inline constexpr const char* kRxBurstSize = "rx_burst_size";          ///< histogram kind
/// Histogram kind of latencies in cycles, one subject each: a packet's time
/// through the engine per outcome ("forwarded", "delivered", "replied",
/// "dropped"), request/response round trips ("rr"), a micro-benchmark's
/// timed calls ("route-output"). Every one becomes p50/p90/p99 metrics.
inline constexpr const char* kLatency = "latency";
/// The fact a capture stores with the engine's variant switches, one
/// "name=value" each ("route_cache=on socket_send=single ...").
inline constexpr const char* kVariantsFact = "variants";
/// The fact an experiment of "auto" trials stores with each of its runs: how
/// it decided, and the confidence its last look tested at ("confidence=98.77
/// blocks=7 max_blocks=20 first_look=3 decided=yes"), which later views of
/// its runs judge at.
inline constexpr const char* kDecisionFact = "decision";
/// The fact that marks a run of the Linux kernel's own path ([target] kind
/// = "linux"): "linux" and the kernel's release. Its stages are estimated
/// from sampled kernel stacks (samples x period: CPU time, not counted
/// calls), and what the kernel does not give (per-call histograms, queues,
/// packet traces, per-stage calls and packets) is absent.
inline constexpr const char* kTargetFact = "target";
inline constexpr const char* kLinuxTarget = "linux";
/// The stage row of a Linux run's kernel samples that no function of the
/// stage map holds, and of its user-space samples when the map names none.
inline constexpr const char* kUnmappedKernelStage = "unmapped";
inline constexpr const char* kUnmappedUserStage = "unmapped user";
/// Whether a run's facts say it ran on the Linux kernel.
inline bool kernel_target(const std::vector<std::pair<std::string, std::string>>& facts) {
    for (const auto& [k, v] : facts)
        if (k == kTargetFact) return v.rfind(kLinuxTarget, 0) == 0;
    return false;
}
/// The stacks' event for sampled CPU time from any source (a capture's
/// perf::cpu-clock, a perf script's cycles, folded stacks), so that an
/// imported profile and a capture share their functions; each run keeps its
/// source's own event as a fact. See stack_event_name().
inline constexpr const char* kCpuTimeEvent = "cpu-time";
/// Where an edge of the stage graph ends when no stage passes its packets
/// on (EdgeRow): delivered to a socket or the stack, taken by a device, held
/// by the neighbour table (which is also where released packets come from).
/// The engine names them alike (engine/snapshot.h; capture checks).
inline constexpr const char* kDeliverSink = "deliver";
inline constexpr const char* kWireSink = "wire";
inline constexpr const char* kNeighbourTable = "neighbours";
/// StageRow/EdgeRow/HistogramRow::worker of a row merged over a run's
/// workers (engine.workers >= 2). A run of one worker has worker 0 rows only.
inline constexpr int kAllWorkers = -1;

/// One capture (or import) run.
struct RunInfo {
    int64_t id = 0;
    std::string uuid;  ///< unique across machines: merge keys on it
    std::string label;
    std::string kind = "capture";    ///< "capture" or "pcap-import"
    std::string status = "running";  ///< running, complete or aborted
    std::string scenario_path;
    std::string scenario_text;
    std::string settings;  ///< the --set overrides, one "key=value" a line
    std::string host;
    std::string cpu_model;
    uint64_t tsc_hz = 0;
    std::string engine_version;
    std::string git_revision;
    int64_t pid = 0;
    std::string started_at;  ///< UTC, ISO 8601
    std::string ended_at;
    int trials = 0;  ///< planned
    double trial_seconds = 0;
    double interval_seconds = 0;
    std::string pmu;   ///< what perf_event offered, one "event: supported|reason" a line
    std::string note;  ///< why a run ended early, import summary, ...
    /// A matrix's runs share an experiment id; each is one cell, whose
    /// settings are "key=value" lines ("" for a run outside any experiment).
    std::string experiment;
    std::string cell;
};

/// Adds the ledger's six counts of `from` (a trial, a worker's trial or an
/// interval row) to `into`: the one place they are summed field by field.
template <typename Into, typename From>
void add_ledger(Into& into, const From& from) {
    into.received += from.received;
    into.delivered += from.delivered;
    into.forwarded += from.forwarded;
    into.replied += from.replied;
    into.dropped += from.dropped;
    into.sent += from.sent;
}

struct TrialRow {
    int trial = 0;
    double seconds = 0;  ///< steady-state window the rates are measured over
    /// The whole trial's ledger.
    uint64_t received = 0, delivered = 0, forwarded = 0, replied = 0, dropped = 0, sent = 0;
    /// Rates over the window: window_received / seconds is rx_pps.
    double rx_pps = 0, forwarded_pps = 0, delivered_pps = 0;
    uint64_t window_received = 0;  ///< packets received within the window
    /// The worker's graph walks, and those that handled no packet (0 and 0:
    /// not measured, engine.call_histograms = false).
    uint64_t walks = 0, idle_walks = 0;
    /// The send ledger: datagrams handed to sockets (sends = sent + send
    /// drops), the transmit rate over the window, and the per-datagram FIB
    /// lookups and source address selections of the whole trial.
    uint64_t sends = 0;
    double sent_pps = 0;
    uint64_t window_sent = 0;
    uint64_t route_lookups = 0, source_selections = 0;
    /// v9: the trial's time block. Trials of an experiment's cells with the
    /// same block ran side by side (one after the other), so their
    /// difference cancels the machine's drift; -1: not known (a run stored
    /// before v9), read as the trial's own number.
    int block = -1;
    /// v9: a disturbed trial that a re-run replaced (capture.retry_disturbed):
    /// kept, counted in the ledger, left out of every per-trial statistic.
    bool replaced = false;
    /// v9: what else the machine did over the steady window: its wall time,
    /// the CPU time the hypervisor stole from this machine's CPUs and the
    /// CPU time other processes took (both summed over every CPU; from
    /// /proc/stat, in its 10 ms ticks); 0 and 0: not measured.
    uint64_t window_ns = 0, steal_ns = 0, others_ns = 0;
    /// v9: capture.max_disturbance of the run: the share of the window a
    /// worker may lose before its trial is disturbed; 0: not measured.
    double max_disturbance = 0;
    /// v9: what one timestamp of the engine's stage timing costs, in TSC
    /// cycles, measured when the trial's engine started; 0: not measured.
    double timer_cycles = 0;
    /// v9: the trial's stage timing: every graph walk timed (1), or one in N
    /// (N: cycles are the timed walks' figures; packets and calls are exact).
    uint32_t timing_period = 1;
};

/// Thread roles of ThreadRow.
inline constexpr const char* kWorkerThread = "worker";
inline constexpr const char* kGeneratorThread = "generator";
inline constexpr const char* kRrClientThread = "rr client";
/// Threads of a run on the Linux kernel that wait by design (their CPU
/// share says nothing of a disturbance): a recvmmsg sink, and the blocking
/// request/response client and server. Its flood sender is its worker.
inline constexpr const char* kSinkThread = "sink";
inline constexpr const char* kRrServerThread = "rr server";
inline constexpr const char* kKernelRrClientThread = "rr client (kernel)";

/// v9: what one thread of the run got of the machine over a trial's steady
/// window (TrialRow::window_ns): its CPU time, its time waiting in a run
/// queue, and its context switches. A polling thread (the workers, the
/// generator, the rr client) is on its CPU all the time unless something
/// else takes it: cpu_ns short of the window is what it lost.
struct ThreadRow {
    int trial = 0;
    std::string role;  ///< kWorkerThread, kGeneratorThread, kRrClientThread
    int index = 0;     ///< which worker; 0 for the others
    int64_t tid = 0;
    int cpu = -1;      ///< the CPU it ran on last
    uint64_t cpu_ns = 0, wait_ns = 0;
    uint64_t involuntary = 0, voluntary = 0;  ///< context switches
    /// v10, workers only: the engine's timed calls longer than
    /// engine.interrupted_call_us over the window (the worker was preempted
    /// in them; their stages estimate their cycles), and their wall time.
    uint64_t interrupted_calls = 0, interrupted_ns = 0;
};

/// Per-interval receive ledger deltas (time series).
struct IntervalRow {
    int trial = 0;
    int seq = 0;
    double t = 0;  ///< seconds since the trial started, at the interval's end
    uint64_t received = 0, delivered = 0, forwarded = 0, replied = 0, dropped = 0;
    uint64_t sent = 0;  ///< datagrams local sockets had transmitted (the send ledger's sent)
};

/// Per-stage counters: trial totals (seq = -1) or one interval's deltas.
struct StageRow {
    int trial = 0;
    int seq = -1;
    std::string stage;
    int ord = 0;  ///< the stage's place in the engine's graph
    uint64_t calls = 0, packets = 0, cycles = 0;
    /// Calls that handled no packet and their cycles (part of calls and cycles).
    uint64_t idle_calls = 0, idle_cycles = 0;
    int worker = 0;  ///< whose counters: a worker, or kAllWorkers (merged)
};

/// Packets that moved from one stage to another (an edge of the stage
/// graph): trial totals (seq = -1) or one interval's deltas. `to` may be a
/// sink where a stage kept them ("deliver", "wire", "neighbours") and `from`
/// the neighbour table ("neighbours").
struct EdgeRow {
    int trial = 0;
    int seq = -1;
    std::string from;
    std::string to;
    uint64_t packets = 0;
    int worker = 0;  ///< whose counters: a worker, or kAllWorkers (merged)
};

/// Per-queue counters: trial totals (seq = -1) or one interval's deltas.
struct QueueRow {
    int trial = 0;
    int seq = -1;
    std::string port;
    int queue = 0;
    std::string dir;  ///< "rx" or "tx"
    uint64_t packets = 0, bytes = 0, bursts = 0, empty_polls = 0, full = 0;
    /// Receive queues: the calls and cycles of the queue's own eth_rx
    /// instance (its share of the eth_rx stage; idle calls apart, as stages'),
    /// and the worker that polls it. Transmit queues: the worker that sends on it.
    uint64_t calls = 0, cycles = 0, idle_calls = 0, idle_cycles = 0;
    int worker = 0;

    /// The counters add_counts sums.
    static constexpr auto kCounters =
        std::tuple{&QueueRow::packets, &QueueRow::bytes,      &QueueRow::bursts,
                   &QueueRow::empty_polls, &QueueRow::full,   &QueueRow::calls,
                   &QueueRow::cycles,  &QueueRow::idle_calls, &QueueRow::idle_cycles};
    /// Adds another row's counters (another interval's or trial's of the same queue).
    void add_counts(const QueueRow& o) { add_counters(*this, o); }
};

struct DropRow {
    int trial = 0;
    std::string reason;
    std::string stage;
    std::string path = "receive";  ///< "receive" or "send"
    uint64_t packets = 0;
};

/// One of the engine's path events (engine/path_events.h) over a whole trial.
struct EventRow {
    int trial = 0;
    std::string name;  ///< "demux_hits", "rules_evaluated", ...
    uint64_t value = 0;         ///< over the whole trial
    uint64_t window_value = 0;  ///< within the trial's steady-state window (rates)
};

/// A log-linear histogram (analysis::Histogram's layout) in sparse form.
struct HistogramRow {
    int trial = 0;
    std::string kind;     ///< "stage_call_cycles", "rx_burst_size", ...
    std::string subject;  ///< stage name, "port/queue", ...
    std::string unit;     ///< "cycles", "packets", ...
    uint64_t count = 0, sum = 0, min = 0, max = 0;
    std::vector<std::pair<uint32_t, uint64_t>> buckets;  ///< (bucket index, count), non-zero only
    /// Whose calls (stage_call_cycles): a worker, or kAllWorkers (merged);
    /// 0 for the other kinds, which are the whole engine's.
    int worker = 0;
};

/// One worker's receive ledger over a whole trial (runs of engine.workers
/// >= 2; a run of one worker has none: its TrialRow is its worker's), and
/// the packets of the trial's steady-state window (TrialRow::seconds).
struct WorkerTrialRow {
    int trial = 0;
    int worker = 0;
    int lcore = 0;  ///< the EAL lcore it ran on
    uint64_t received = 0, delivered = 0, forwarded = 0, replied = 0, dropped = 0, sent = 0;
    uint64_t walks = 0, idle_walks = 0;
    uint64_t sends = 0;  ///< datagrams its sockets were given to send
    uint64_t window_received = 0, window_forwarded = 0, window_delivered = 0, window_sent = 0;
    /// received = delivered + forwarded + replied + dropped
    bool balanced() const { return received == delivered + forwarded + replied + dropped; }
};

struct PerfCounterRow {
    int trial = 0;
    std::string event;
    bool supported = false;
    uint64_t value = 0;
    uint64_t time_enabled = 0, time_running = 0;  ///< ns; running < enabled when multiplexed
    std::string note;                             ///< why unsupported
};

struct Frame {
    std::string symbol;
    std::string module;
    bool operator==(const Frame&) const = default;
};

/// One sampled call stack, root first, with its weight (samples).
struct StackRow {
    int trial = 0;
    std::string event;
    std::vector<Frame> frames;  ///< empty when read interned (LoadOptions::expand_stacks off)
    uint64_t weight = 0;
    int seq = -1;  ///< the interval it was sampled in; -1: the whole trial (imports, v2 stores)
    /// The stack in its run's StackIndex (rows read from a store), or -1.
    int32_t node = -1;
};

/// A run's sampled stacks as the store keeps them, interned: each node is a
/// leaf frame under its parent node, so a tree is built once per distinct
/// stack, not once per sample row and frame.
struct StackIndex {
    std::vector<Frame> frames;
    struct Node {
        int32_t parent = -1;  ///< -1: a root frame
        int32_t frame = 0;    ///< into frames
    };
    std::vector<Node> nodes;  ///< a parent's index is below its children's
    std::vector<int64_t> store_ids;  ///< each node's id in the store (joins later reads)
};

/// The stacks' event for samples of `source` (a capture's "perf::cpu-clock",
/// perf script's "cycles:u"): kCpuTimeEvent for an event that samples CPU
/// time, else `source` as it is. Stores written before kCpuTimeEvent hold
/// "perf::cpu-clock" (captures) and "samples" (imports); the reader maps
/// them through this too.
inline std::string stack_event_name(const std::string& source) {
    std::string name = source.rfind("perf::", 0) == 0 ? source.substr(6) : source;
    name = name.substr(0, name.find(':'));  // perf's modifiers: "cycles:ppp"
    for (const char* cpu : {"cpu-clock", "task-clock", "cycles", "cpu-cycles", "ref-cycles",
                            "samples"})
        if (name == cpu) return kCpuTimeEvent;
    return source;
}

/// One sampled packet with what it cost at each stage it went through.
struct PacketTraceRow {
    int trial = 0;
    int64_t seq = 0;
    double t = 0;  ///< seconds since the trial started
    std::string port;
    uint32_t wire_len = 0;
    std::vector<uint8_t> data;  ///< the frame as received (possibly cut short)
    std::vector<std::pair<std::string, double>> stage_cycles;  ///< path order
    std::string outcome;  ///< forwarded, replied, delivered, or "dropped: REASON"
};

/// Everything one writer transaction stores.
struct Batch {
    std::vector<TrialRow> trials;
    std::vector<IntervalRow> intervals;
    std::vector<StageRow> stages;
    std::vector<EdgeRow> edges;
    std::vector<QueueRow> queues;
    std::vector<DropRow> drops;
    std::vector<HistogramRow> histograms;
    std::vector<PerfCounterRow> perf;
    std::vector<StackRow> stacks;
    std::vector<PacketTraceRow> traces;
    std::vector<EventRow> events;
    /// Key/value facts (pcap import summary: packets, flows, protocols).
    std::vector<std::pair<std::string, std::string>> facts;
    /// A run of several workers (engine.workers >= 2): each worker's own
    /// stage rows, edges and per-call histograms (stage_call_cycles), and
    /// its ledger per trial. `stages`, `edges` and `histograms` above hold
    /// their sums over the workers (worker kAllWorkers), which every view
    /// reads; the store keeps the per-worker rows only and sums them when
    /// it reads (db/worker_rows.h). Empty for a run of one worker.
    std::vector<StageRow> worker_stages;
    std::vector<EdgeRow> worker_edges;
    std::vector<HistogramRow> worker_histograms;
    std::vector<WorkerTrialRow> worker_trials;
    /// v9: each measured thread's share of the machine, per trial.
    std::vector<ThreadRow> threads;

    /// Every part, once: a part added to Batch goes here and in rows().
    template <class Self>
    static auto parts_of(Self& b) {
        return std::tie(b.trials, b.intervals, b.stages, b.edges, b.queues, b.drops, b.histograms,
                        b.perf, b.stacks, b.traces, b.events, b.facts, b.worker_stages,
                        b.worker_edges, b.worker_histograms, b.worker_trials, b.threads);
    }
    auto parts() { return parts_of(*this); }
    auto parts() const { return parts_of(*this); }

    size_t rows() const;
    bool empty() const { return rows() == 0; }
    /// Moves every row of `other` to the end of this batch's.
    void append(Batch&& other);
    /// How many rows each part holds; truncate() drops the rows added since.
    static constexpr size_t kParts = 17;  ///< parts()'s (checked where they are counted)
    using Sizes = std::array<size_t, kParts>;
    Sizes sizes() const;
    void truncate(const Sizes& to);
};

/// A run and all of its rows (histogram buckets, stacks with their frames).
struct RunData {
    RunInfo info;
    Batch rows;
    /// The interned stacks that rows.stacks[i].node points into (read from
    /// a store); empty for rows made in memory, which carry their frames.
    StackIndex stack_index;
};

}  // namespace pathscope::db
