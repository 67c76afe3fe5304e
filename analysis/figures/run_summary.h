// What one stored run measured, as plain values computed once: the trial
// table, the stage table with busy and idle work apart, the worker's load,
// the ledger, drops, queues, perf counters, hottest functions and the
// busiest stages' per-call histograms. The text view (`run`, `show`), the
// reports and the GUI's models all read this; none computes its own.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/counter_sum.h"
#include "common/histogram.h"
#include "analysis/figures/metric_names.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/figures/trial_conditions.h"
#include "analysis/figures/workers.h"
#include "db/records.h"

namespace pathscope::analysis {

using db::kPcapImportKind;
using db::kRxBurstSize;
using db::kStageCallCycles;

/// A stored stage row's busy part: its calls or cycles less the idle ones.
/// Stores written before the engine read both as one snapshot hold a few
/// interval rows whose idle part exceeds the whole by a call; those count
/// as 0, never as a wrapped-around 2^64.
inline uint64_t busy_part(uint64_t whole, uint64_t idle) { return whole > idle ? whole - idle : 0; }
inline uint64_t busy_cycles(const db::StageRow& r) { return busy_part(r.cycles, r.idle_cycles); }
inline uint64_t busy_calls(const db::StageRow& r) { return busy_part(r.calls, r.idle_calls); }

/// One stage's totals over every trial. Calls, packets and cycles are the
/// graph library's counters; idle calls handled no packet (a source stage
/// polling empty queues) and their cycles are kept apart, so that every
/// per-call and per-packet figure counts busy calls only.
struct StageLine {
    std::string name;
    int ord = 0;
    uint64_t calls = 0, idle_calls = 0, packets = 0, cycles = 0, idle_cycles = 0, drops = 0;

    /// The counters add_counts sums.
    static constexpr auto kCounters =
        std::tuple{&StageLine::calls, &StageLine::idle_calls, &StageLine::packets,
                   &StageLine::cycles, &StageLine::idle_cycles, &StageLine::drops};
    /// Adds another line's counters (another trial's, or a stage into the total).
    void add_counts(const StageLine& o) { add_counters(*this, o); }
    uint64_t busy_calls() const { return busy_part(calls, idle_calls); }
    uint64_t busy_cycles() const { return busy_part(cycles, idle_cycles); }
    /// The per-call and per-packet figures, each the run's figure of the
    /// trials' own ratios (run_figure), as every figure of a run is formed:
    double packets_per_call = 0;   ///< packets per busy call
    double cycles_per_call = 0;    ///< busy cycles per busy call
    double cycles_per_packet = 0;  ///< busy cycles over this stage's own packets
    double idle_share = 0;         ///< idle cycles over all of the stage's cycles
    /// Busy cycles over the run's path packets (received ones, or for a
    /// transmit-only run the datagrams its sockets sent: see PacketBasis),
    /// the run's figure of the per-trial ratios (run_figure: their mean, the
    /// value `compare` tests): these add up, stage by stage, to the whole
    /// path's cycles per packet.
    double cycles_per_path_packet = 0;
    double cycles_per_path_packet_sd = 0;  ///< the trials' spread of it
    /// A Linux run's (sampled stages): one sampling standard error of
    /// cycles_per_path_packet (stage_sampling_errors); NaN when counted.
    double sampling_error = std::nan("");
};

/// How busy the worker lcore was: a starved worker mostly polls empty
/// queues, and then throughput is the workload's, not the engine's.
struct WorkerLoad {
    bool measured = false;  ///< false: engine.call_histograms = false (DPDK's own walk)
    uint64_t walks = 0, idle_walks = 0;
    uint64_t busy_cycles = 0, idle_cycles = 0;  ///< summed over stages
    /// Idle cycles over all of the stages' cycles: the run's figure of the
    /// trials' shares (the "all stages" row's idle %, the same number).
    double idle_share = 0;
    /// A request/response run: the worker waits for the clients by design.
    bool request_response = false;
    /// The clients' (generator's or rr client's) least share of a window on
    /// their CPU (1: not measured), and the run's disturbance limit.
    double client_on_cpu = 1, max_disturbance = 0;
    /// The CPUs the workers ran on (each worker's last, over the trials),
    /// ascending; empty for a run stored before threads were recorded.
    std::vector<int> cpus;
    double idle_walk_share() const;
    /// Idle in more than half of its graph walks, in a throughput run.
    bool starved() const { return measured && !request_response && idle_walks * 2 > walks; }
    /// A request/response run whose clients lost their CPU: its rate is theirs.
    bool client_starved() const;
};

/// The warning `run`, `show`, `compare` and the reports print for a starved
/// worker ("" when it was not), naming the run.
std::string starved_warning(const std::string& run_name, const WorkerLoad& w);

struct IntervalRates {
    size_t count = 0;
    double interval_s = 0;
    double min = 0, median = 0, max = 0;  ///< receive rate (transmit rate for a run that only sent), packets per second
};

struct DropLine {
    std::string reason, path;
    uint64_t packets = 0;
};

struct QueueLine {
    db::QueueRow totals;  ///< summed over trials
    bool has_burst = false;
    double burst_p50 = 0, burst_p99 = 0;
};

struct PerfLine {
    std::string event;
    bool supported = false;
    uint64_t value = 0;
    std::string unit;         ///< "ns" for the clock events, else "events"
    double per_packet = 0;    ///< over the path's packets (PacketBasis): the run's figure
    std::string note;         ///< why unsupported
};

/// A run figure of a per-trial metric (run_figure of run_metrics' values:
/// the trials' mean, and their standard deviation).
struct FigureLine {
    std::string group, name, unit;
    double mean = 0, sd = 0;
};

/// One latency histogram subject (db::kLatency): its count over every
/// trial and the run figures (means) of the trials' percentiles, in cycles.
struct LatencyLine {
    std::string subject;
    uint64_t count = 0;
    double p50 = 0, p90 = 0, p99 = 0;
};

struct FunctionShare {
    std::string name;
    double share = 0;  ///< 0..1 of the samples: the mean of the trials' shares
};

struct StageHistogram {
    std::string stage;
    Histogram cycles;         ///< cycles per busy call, every trial merged
    uint64_t busy_calls = 0;  ///< the stage's busy calls (StageLine): timed or not
};

/// How many calls a per-call histogram holds, said as every view says it:
/// "1234 busy calls; idle calls are left out", or, when some busy calls
/// were interrupted or not timed (engine.timing = "1/N") and so are not in
/// it, "1200 of the stage's 1234 busy calls: idle calls and 34 untimed or
/// interrupted ones (their cycles estimated) are left out".
std::string histogram_calls_note(uint64_t in_histogram, uint64_t busy_calls);

/// What "per packet" counts in a run: received packets, or, when it
/// received none, the datagrams its sockets were given to send.
struct PacketBasis {
    const char* unit = kCyclesPerRxPacket;  ///< "cyc/rx pkt" or "cyc/tx pkt"
    bool transmit = false;
    uint64_t packets(const db::TrialRow& t) const { return transmit ? t.sends : t.received; }
};
PacketBasis packet_basis(const std::vector<db::TrialRow>& trials);

/// One worker's stage lines (a run of several workers): the summary of its
/// view of the run (worker_view), stage by stage.
struct WorkerStageLines {
    int worker = 0;
    int lcore = -1;  ///< -1: not recorded
    std::vector<StageLine> stages;
};

/// What pathscope's own stage timing costs inside the run's cycles: one
/// timestamp at each stage boundary of a timed walk, so about one per busy
/// stage call is inside "all stages" (not subtracted from any figure).
struct TimingCost {
    bool measured = false;          ///< the trials stored the timestamp's cost
    double timestamp_cycles = 0;    ///< one timestamp, TSC cycles (the trials' mean)
    double per_packet = 0;          ///< timestamps' cycles per path packet (the run's figure)
    double share = 0;               ///< of "all stages" (0..1)
    uint32_t period = 1;            ///< engine.timing: one walk in N timed
};
TimingCost timing_cost(const db::RunData& run, double all_stages_per_packet);
/// "pathscope's own timing: 12.3 of the 130.5 cyc/rx pkt of all stages (9.4%) ...".
std::string timing_cost_line(const TimingCost& t, const char* unit, double all_stages);

struct RunSummary {
    db::RunInfo info;
    /// A run on the Linux kernel: its stages are sampled CPU time (calls
    /// hold their samples), and per-call, queue and trace figures are absent.
    bool sampled = false;
    PacketBasis basis;
    std::vector<db::TrialRow> trials;
    /// The trials every figure rests on: all but those a re-run replaced.
    size_t counted_trials() const {
        size_t n = 0;
        for (const auto& t : trials) n += !t.replaced;
        return n;
    }
    /// Each trial's condition (disturbed, replaced, block), and over the run.
    std::vector<TrialCondition> conditions;
    DisturbanceSummary disturbance;
    TimingCost timing;
    db::TrialRow total;  ///< the trials' ledgers summed
    bool balanced = true;
    bool send_balanced = true;  ///< sends = sent + send-path drops
    std::optional<IntervalRates> rates;
    std::vector<StageLine> stages;  ///< graph order
    StageLine all;                  ///< "all stages": the sum of the rows above
    WorkerLoad worker;
    std::vector<DropLine> drops;    ///< by reason, then path
    std::vector<QueueLine> queues;  ///< by port, direction, queue
    std::vector<PerfLine> perf;     ///< by event name
    /// Path events summed over trials ("demux_hits" -> n), those that happened.
    std::vector<std::pair<std::string, uint64_t>> events;
    /// Their per-trial figures (kPathEventsGroup) and the rr rate, if any.
    std::vector<FigureLine> event_figures;
    std::vector<LatencyLine> latencies;
    std::string stack_event;             ///< the sampled event shown (main_stack_event)
    uint64_t stack_samples = 0;          ///< its samples, every trial
    std::vector<FunctionShare> hottest;  ///< self share, most first
    size_t traces = 0;
    std::vector<std::pair<std::string, std::string>> facts;
    std::vector<StageHistogram> busiest;  ///< the stages with the most busy cycles
    /// With several receive queues: each one's own eth_rx instance (its share
    /// of the eth_rx stage), named "port/queue", its figures formed as the
    /// stages' (cycles per path packet: its busy cycles over the trial's path
    /// packets, so the queues add up to eth_rx's). Empty with one queue.
    std::vector<StageLine> rx_queues;
    /// A run of several workers (engine.workers >= 2): each worker's
    /// ledger, checked, and its stage lines; empty for a run of one.
    WorkerLedgers worker_ledgers;
    std::vector<WorkerStageLines> worker_stages;
};

struct SummaryOptions {
    unsigned top_functions = 10;
    unsigned busiest_stages = 3;
    /// The run's stack_tree of its main event when the caller has built it
    /// already (a viewer of a million samples builds it once), and with it
    /// that event and its samples over every row when the caller knows them
    /// (GrowingStackTree: no pass over every row).
    const FlameTree* stacks = nullptr;
    const std::string* stack_event = nullptr;
    uint64_t stack_samples = 0;
};

/// The worker's load over every trial of a run.
WorkerLoad worker_load(const db::RunData& run);

RunSummary summarize_run(const db::RunData& run, const SummaryOptions& opt = {});

/// Each trial's stage totals (seq -1) in graph order; every trial when
/// `trials` is negative.
std::vector<db::StageRow> trial_stage_totals(const db::RunData& run, int trials = -1);

/// A stored frame's name in a flame tree: its symbol, or "[module]".
inline std::string frame_name(const db::Frame& f) {
    return !f.symbol.empty() ? f.symbol : "[" + f.module + "]";
}

/// A stored histogram back as a Histogram.
Histogram to_histogram(const db::HistogramRow& row);

/// A run's histograms of `kind` for `subject` merged: every trial, or one.
Histogram merged_histogram(const db::RunData& run, const std::string& kind,
                           const std::string& subject, int trial = -1);

}  // namespace pathscope::analysis
