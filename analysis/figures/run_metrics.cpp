#include "analysis/figures/run_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "analysis/figures/run_summary.h"
#include "analysis/figures/sampled_stages.h"
#include "analysis/stats/stats.h"
#include "analysis/figures/trial_conditions.h"

#include <fmt/format.h>

namespace pathscope::analysis {

namespace {

int trial_count(const db::RunData& run) {
    int n = 0;
    for (const auto& t : run.rows.trials) n = std::max(n, t.trial + 1);
    return n;
}

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

/// a over b; missing when there is nothing to divide by.
double ratio(double a, double b) { return b > 0 ? a / b : kMissing; }

// Adds `v` for `trial` to the metric keyed (group, name), creating it with
// room for every trial.
struct MetricSet {
    int trials;
    std::vector<Metric> list;
    std::map<std::pair<std::string, std::string>, size_t> index;

    Metric& get(const std::string& group, const std::string& name, const std::string& unit,
                bool higher_is_better, bool skewed) {
        auto [it, fresh] = index.try_emplace({group, name}, list.size());
        if (fresh) {
            Metric m;
            m.group = group;
            m.name = name;
            m.unit = unit;
            m.higher_is_better = higher_is_better;
            m.skewed = skewed;
            m.values.assign(static_cast<size_t>(trials), kMissing);
            list.push_back(std::move(m));
        }
        return list[it->second];
    }
};

// The path events as per-trial ratios; each group of figures appears only
// when the run did that kind of work (a run that looked nothing up through
// the rules layer has no rule figures, not zeros).
void path_event_metrics(const db::RunData& run, const std::vector<db::StageRow>& stages,
                        const std::vector<double>& all_cycles, const std::vector<double>& received,
                        MetricSet& m) {
    const size_t trials = received.size();
    std::map<std::string, std::vector<double>> whole, window;
    for (const auto& e : run.rows.events) {
        if (e.trial < 0 || static_cast<size_t>(e.trial) >= trials) continue;
        whole.try_emplace(e.name, trials, 0.0).first->second[e.trial] =
            static_cast<double>(e.value);
        window.try_emplace(e.name, trials, 0.0).first->second[e.trial] =
            static_cast<double>(e.window_value);
    }
    if (whole.empty()) return;
    auto event = [&](const char* name) {
        auto it = whole.find(name);
        return it == whole.end() ? std::vector<double>(trials, 0.0) : it->second;
    };
    auto any = [](const std::vector<double>& v) {
        return std::any_of(v.begin(), v.end(), [](double x) { return x > 0; });
    };
    // Route lookups: the forwarding path's (ip6_lookup's packets) and the send
    // path's per-datagram ones; a micro-benchmark stores its timed calls as
    // the trial's route_lookups.
    std::vector<double> lookups(trials, 0.0);
    for (const auto& s : stages)
        if (s.stage == "ip6_lookup") lookups[s.trial] += static_cast<double>(s.packets);
    std::vector<double> seconds(trials, 0.0), busy(trials, 0.0), cycles(trials, 0.0);
    for (const auto& t : run.rows.trials) {
        lookups[t.trial] += static_cast<double>(t.route_lookups);
        seconds[t.trial] = t.seconds;
    }
    // The engine counts the routes it resolved (connects and ILA's second
    // lookups included); a bench run stores its timed calls as route_lookups.
    if (const auto resolved = event("routes_resolved"); any(resolved)) lookups = resolved;
    for (const auto& s : stages) {
        busy[s.trial] += static_cast<double>(busy_cycles(s));
        cycles[s.trial] += static_cast<double>(s.cycles);
    }
    auto per_trial = [&](const char* group, const char* name, const char* unit, bool higher,
                         auto&& value) {
        Metric& mm = m.get(group, name, unit, higher, false);
        for (size_t t = 0; t < trials; ++t) mm.values[t] = value(t);
    };
    const auto rr = event("rr_transactions");
    if (any(rr)) {
        const auto& in_window = window["rr_transactions"];
        per_trial(kThroughput, kRrRate, "kT/s", true,
                  [&](size_t t) { return ratio(in_window[t], seconds[t]) / 1e3; });
        per_trial(kPathEventsGroup, kCyclesPerTransaction, "cycles", false,
                  [&](size_t t) { return ratio(all_cycles[t], rr[t]); });
        // Sampled kernel stages have no idle part: the worker's busy share is the engine's figure.
        if (!sampled_stages(run))
            per_trial(kPathEventsGroup, kBusyShare, "%", false,
                      [&](size_t t) { return 100 * ratio(busy[t], cycles[t]); });
    }
    const auto tables = event("fib_lookups"), entries = event("rule_layer_entries"),
               rules = event("rules_evaluated");
    // A figure only from events the run counted (a Linux run counts tables
    // and lookups, not rules): one it did not count is absent, not 0.
    const auto counted = [&](const char* name) { return whole.count(name) > 0; };
    if (any(tables) || any(entries)) {
        if (counted("rule_layer_entries"))
            per_trial(kPathEventsGroup, kRuleEntriesPerLookup, "per lookup", false,
                      [&](size_t t) { return ratio(entries[t], lookups[t]); });
        if (counted("rules_evaluated"))
            per_trial(kPathEventsGroup, kRulesPerLookup, "per lookup", false,
                      [&](size_t t) { return ratio(rules[t], lookups[t]); });
        per_trial(kPathEventsGroup, kTablesPerLookup, "per lookup", false,
                  [&](size_t t) { return ratio(tables[t], lookups[t]); });
    }
    const auto hits = event("demux_hits"), misses = event("demux_misses");
    if (any(hits) || any(misses))
        per_trial(kPathEventsGroup, kDemuxHitShare, "%", true,
                  [&](size_t t) { return 100 * ratio(hits[t], hits[t] + misses[t]); });
    const auto ila = event("ila_translations"), npt = event("nptv6_translations");
    if (any(ila) || any(npt))
        per_trial(kPathEventsGroup, kTranslationsPerPacket, "per pkt", false,
                  [&](size_t t) { return ratio(ila[t] + npt[t], received[t]); });
}

/// Every metric's trials: blocks and disturbance from the trials' conditions;
/// a trial a re-run replaced, and a dead trial (no path packet while the
/// run's other trials moved some), have no values.
void mark_trials(const db::RunData& run, const std::vector<double>& packets,
                 std::vector<Metric>& metrics) {
    const size_t trials = packets.size();
    std::vector<int> blocks(trials);
    for (size_t t = 0; t < trials; ++t) blocks[t] = static_cast<int>(t);
    std::vector<std::string> disturbed(trials), cycles_disturbed(trials);
    std::vector<bool> left_out(trials, false);
    size_t counted = 0;
    for (const auto& c : trial_conditions(run)) {
        if (c.trial < 0 || static_cast<size_t>(c.trial) >= trials) continue;
        blocks[static_cast<size_t>(c.trial)] = c.block;
        disturbed[static_cast<size_t>(c.trial)] = c.why();
        cycles_disturbed[static_cast<size_t>(c.trial)] = c.why_cycles();
        left_out[static_cast<size_t>(c.trial)] = c.replaced;
        counted += !c.replaced;
    }
    const bool any_packets =
        std::any_of(packets.begin(), packets.end(), [](double p) { return p > 0; });
    const bool packet_run = run.info.kind != db::kBenchKind && run.info.kind != kPcapImportKind;
    for (size_t t = 0; t < trials; ++t)
        if (packet_run && any_packets && !(packets[t] > 0)) left_out[t] = true;
    for (Metric& m : metrics) {
        m.blocks = blocks;
        // Stage cycles leave the interrupted calls out: only what the
        // worker lost beyond them disturbs them.
        const bool cycles =
            m.group == kStageCycles || m.group == kCallLatency || m.name == kCyclesPerTransaction;
        m.disturbed = cycles ? cycles_disturbed : disturbed;
        m.experiment = run.info.experiment;
        m.counted = counted;
        for (size_t t = 0; t < trials && t < m.values.size(); ++t)
            if (left_out[t]) m.values[t] = kMissing;
    }
}

}  // namespace

std::vector<Metric> run_metrics(const db::RunData& run) {
    const int trials = trial_count(run);
    MetricSet m{trials, {}, {}};
    // Per-packet figures count the path's packets: received ones, or for a
    // transmit-only run the datagrams its sockets sent.
    const PacketBasis basis = packet_basis(run.rows.trials);
    std::vector<double> received(static_cast<size_t>(trials), 0.0);
    for (const auto& t : run.rows.trials) {
        received[t.trial] = static_cast<double>(basis.packets(t));
        if (run.info.kind == kPcapImportKind || run.info.kind == db::kBenchKind) continue;
        if (basis.transmit) {
            m.get(kThroughput, kTxRate, "Mpps", true, false).values[t.trial] = t.sent_pps / 1e6;
            continue;
        }
        m.get(kThroughput, kRxRate, "Mpps", true, false).values[t.trial] = t.rx_pps / 1e6;
        m.get(kThroughput, "forwarded", "Mpps", true, false).values[t.trial] =
            t.forwarded_pps / 1e6;
        m.get(kThroughput, "delivered", "Mpps", true, false).values[t.trial] =
            t.delivered_pps / 1e6;
        if (t.sends)
            m.get(kThroughput, kTxRate, "Mpps", true, false).values[t.trial] = t.sent_pps / 1e6;
    }
    // Stages in graph order; the whole path first. Busy cycles (calls that
    // handled a packet) over the trial's received packets: the stage rows add
    // up to "all stages", and idle polling is never charged to packets.
    const std::vector<db::StageRow> stages = trial_stage_totals(run, trials);
    std::vector<double> all_cycles(static_cast<size_t>(trials), 0.0);
    for (const auto& s : stages) all_cycles[s.trial] += static_cast<double>(busy_cycles(s));
    if (!stages.empty())
        for (int t = 0; t < trials; ++t)
            m.get(kStageCycles, kAllStages, basis.unit, false, false).values[t] =
                ratio(all_cycles[t], received[t]);
    std::map<std::string, int> ord;
    std::map<std::pair<std::string, int>, double> packets_per_call;
    // Sampled stages count no packets; a stage without samples in a trial
    // is an estimate of 0 there, not a figure missing.
    const bool sampled = sampled_stages(run);
    for (const auto& s : stages) {
        ord.emplace(s.stage, s.ord);
        packets_per_call[{s.stage, s.trial}] =
            ratio(static_cast<double>(s.packets), static_cast<double>(busy_calls(s)));
        if (s.packets > 0 || sampled)
            m.get(kStageCycles, s.stage, basis.unit, false, false).values[s.trial] =
                ratio(static_cast<double>(busy_cycles(s)), received[s.trial]);
    }
    // Per-call cycle distributions (busy calls): their median and tail per
    // trial, in graph order, each with the trial's packets per call so that
    // a comparison across burst sizes can judge per packet.
    std::vector<const db::HistogramRow*> hists;
    for (const auto& h : run.rows.histograms)
        if (h.kind == kStageCallCycles && h.count > 0 && h.trial < trials) hists.push_back(&h);
    std::stable_sort(hists.begin(), hists.end(), [&](auto* a, auto* b) {
        return ord.count(a->subject) && ord.count(b->subject) && ord[a->subject] < ord[b->subject];
    });
    for (const db::HistogramRow* h : hists) {
        const Histogram hist = to_histogram(*h);
        const double ppc = packets_per_call[{h->subject, h->trial}];
        for (const double pct : {50.0, 99.0}) {
            Metric& mm = m.get(kCallLatency, h->subject + (pct == 50 ? " p50" : " p99"),
                               "cycles/call", false, true);
            mm.values[h->trial] = hist.percentile(pct);
            mm.packets_per_call.resize(mm.values.size(), 0.0);
            mm.packets_per_call[h->trial] = ppc;
        }
    }
    path_event_metrics(run, stages, all_cycles, received, m);
    // Latency percentiles per trial. Unlike the per-call percentiles these
    // are judged with Student's t, as the reviews judged their runs' p50 and
    // p99 (one value a run, several runs): a trial's percentile over
    // thousands of packets varies little and symmetrically between trials.
    for (const auto& h : run.rows.histograms) {
        if (h.kind != db::kLatency || h.count == 0 || h.trial >= trials) continue;
        const Histogram hist = to_histogram(h);
        for (const double pct : {50.0, 90.0, 99.0})
            m.get(kLatencyGroup, h.subject + fmt::format(" p{:.0f}", pct), h.unit, false, false)
                .values[h.trial] = hist.percentile(pct);
    }
    // perf counts worker 0's thread: per packet of worker 0 where the run
    // had several workers.
    std::vector<double> counted = received;
    for (const auto& w : run.rows.worker_trials)
        if (w.worker == 0 && w.trial >= 0 && w.trial < trials)
            counted[static_cast<size_t>(w.trial)] =
                static_cast<double>(basis.transmit ? w.sends : w.received);
    for (const auto& p : run.rows.perf) {
        if (!p.supported || p.trial >= trials) continue;
        const std::string name = perf_metric_name(p.event);
        const bool ns = name == "task-clock" || name == "cpu-clock";
        m.get(kPerfGroup, name, ns ? "ns/pkt" : "per pkt", false, false).values[p.trial] =
            ratio(static_cast<double>(p.value), counted[p.trial]);
    }
    mark_trials(run, received, m.list);
    // A starved worker's rate is its workload's: no view may judge it as the engine's.
    if (const WorkerLoad load = worker_load(run); load.starved() || load.client_starved())
        for (auto& x : m.list)
            if (x.group == kThroughput)
                x.workload_bound = load.starved()
                                       ? fmt::format(
                                             "the worker was starved ({:.1f}% of its graph "
                                             "walks handled no packet): the rate is the "
                                             "workload's, not the engine's",
                                             100 * load.idle_walk_share())
                                       : "the clients lost their CPU: the rate is theirs, not the "
                                         "engine's";
    return m.list;
}

size_t Metric::present() const {
    return static_cast<size_t>(
        std::count_if(values.begin(), values.end(), [](double v) { return !std::isnan(v); }));
}

std::vector<double> present_values(const std::vector<double>& values) {
    std::vector<double> out;
    out.reserve(values.size());
    for (double v : values)
        if (!std::isnan(v)) out.push_back(v);
    return out;
}

std::string perf_metric_name(const std::string& event) {
    return event.rfind("perf::", 0) == 0 ? event.substr(6) : event;
}

RunFigure run_figure(const std::vector<double>& per_trial) {
    const Summary s = summarize(per_trial);
    return {s.mean, s.stddev, s.n};
}

const Metric* find_metric(const std::vector<Metric>& metrics, const std::string& group,
                          const std::string& name) {
    for (const auto& m : metrics)
        if (m.group == group && m.name == name) return &m;
    return nullptr;
}

const Metric* find_metric(const std::vector<Metric>& metrics, const std::string& name) {
    for (const auto& m : metrics)
        if (m.name == name) return &m;
    return nullptr;
}

void add_stage_frames(FlameTree& tree, const db::RunData& run,
                      const std::function<bool(int trial, int seq)>& wanted) {
    // With several receive queues, eth_rx's cycles are its instances', one
    // per queue: a child frame each, so that a review sees which queue's
    // polling the receive cycles went to.
    std::map<std::pair<int, int>, std::vector<const db::QueueRow*>> rx;  ///< by (trial, seq)
    for (const auto& q : run.rows.queues)
        if (q.dir == "rx" && q.calls && wanted(q.trial, q.seq)) rx[{q.trial, q.seq}].push_back(&q);
    std::vector<const db::StageRow*> rows;  ///< in path order, as the stage table
    for (const auto& s : run.rows.stages)
        if (wanted(s.trial, s.seq)) rows.push_back(&s);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const db::StageRow* a, const db::StageRow* b) { return a->ord < b->ord; });
    for (const db::StageRow* row : rows) {
        const db::StageRow& s = *row;
        const auto queues = rx.find({s.trial, s.seq});
        if (s.stage == "eth_rx" && queues != rx.end() && queues->second.size() > 1) {
            for (const db::QueueRow* q : queues->second)
                if (const uint64_t busy = busy_part(q->cycles, q->idle_cycles))
                    tree.add({s.stage, q->port + "/" + std::to_string(q->queue)},
                             static_cast<double>(busy), s.trial);
        } else if (busy_cycles(s)) {
            tree.add({s.stage}, static_cast<double>(busy_cycles(s)), s.trial);
        }
    }
}

void leave_out_replaced(FlameTree& tree, const db::RunData& run) {
    for (const auto& t : run.rows.trials)
        if (t.replaced) tree.exclude_trial(t.trial);
}

FlameTree stage_tree(const db::RunData& run) {
    const int trials = std::max(1, trial_count(run));
    FlameTree tree(trials, "cycles");
    const PacketBasis basis = packet_basis(run.rows.trials);
    for (const auto& t : run.rows.trials)
        tree.set_trial_scale(t.trial, static_cast<double>(basis.packets(t)));
    add_stage_frames(tree, run,
                     [trials](int trial, int seq) { return seq == -1 && trial < trials; });
    leave_out_replaced(tree, run);
    return tree;
}

namespace {

/// Adds each stack row's weight to its event's, from row `from` on.
void add_event_weights(std::map<std::string, uint64_t>& weight, const db::RunData& run,
                       size_t from = 0) {
    const auto& rows = run.rows.stacks;
    for (size_t i = from; i < rows.size(); ++i) weight[rows[i].event] += rows[i].weight;
}

std::string heaviest_event(const std::map<std::string, uint64_t>& weight) {
    std::string best;
    uint64_t most = 0;
    for (const auto& [event, w] : weight)
        if (w > most) most = w, best = event;
    return best;
}

/// Places the stack rows of `event` from row `from` on in `tree`, adding each
/// trial's weight to per_trial.
void place_stack_rows(FlameTree& tree, StackPlacer& placer, const db::RunData& run,
                      const std::string& event, size_t from, std::vector<double>& per_trial) {
    const auto& rows = run.rows.stacks;
    const int trials = tree.trials();
    for (size_t i = from; i < rows.size(); ++i) {
        const db::StackRow& s = rows[i];
        if (s.event != event || s.trial >= trials) continue;
        tree.add_weight(placer.node(s), static_cast<double>(s.weight), s.trial);
        per_trial[s.trial] += static_cast<double>(s.weight);
    }
}

/// Scales each trial by its samples; trials without any, and trials a
/// re-run replaced, are not counted.
void count_stack_trials(FlameTree& tree, const std::vector<double>& per_trial,
                        const db::RunData& run) {
    tree.count_every_trial();
    for (int t = 0; t < tree.trials(); ++t) {
        tree.set_trial_scale(t, per_trial[t]);
        if (per_trial[t] == 0) tree.exclude_trial(t);  // sampling was off, or failed
    }
    leave_out_replaced(tree, run);
}

}  // namespace

std::string main_stack_event(const db::RunData& run) {
    std::map<std::string, uint64_t> weight;
    add_event_weights(weight, run);
    return heaviest_event(weight);
}

FlameTree stack_tree(const db::RunData& run, const std::string& event) {
    const std::string wanted = event.empty() ? main_stack_event(run) : event;
    const int trials = std::max(1, trial_count(run));
    FlameTree tree(trials, "samples");
    std::vector<double> per_trial(static_cast<size_t>(trials), 0.0);
    StackPlacer placer(tree, run.stack_index);
    place_stack_rows(tree, placer, run, wanted, 0, per_trial);
    count_stack_trials(tree, per_trial, run);
    return tree;
}

GrowingStackTree::GrowingStackTree() = default;
GrowingStackTree::~GrowingStackTree() = default;

void GrowingStackTree::reset() {
    event_weight_.clear();
    rows_ = 0;
    event_.clear();
    placer_.reset();
    tree_.reset();
    diff_.reset();
    per_trial_.clear();
}

std::shared_ptr<const FlameDiff> GrowingStackTree::own_diff() {
    return tree_ ? diff_.update(*tree_) : nullptr;
}

uint64_t GrowingStackTree::samples() const {
    const auto it = event_weight_.find(event_);
    return it == event_weight_.end() ? 0 : it->second;
}

const FlameTree* GrowingStackTree::update(const db::RunData& run) {
    if (run.rows.stacks.size() < rows_) reset();  // not the rows before, grown
    add_event_weights(event_weight_, run, rows_);
    const std::string event = heaviest_event(event_weight_);
    const int trials = std::max(1, trial_count(run));
    size_t from = rows_;
    rows_ = run.rows.stacks.size();
    if (event.empty()) return nullptr;
    if (!tree_ || event != event_ || trials != tree_->trials()) {  // a tree of other rows: anew
        event_ = event;
        placer_.reset();
        tree_ = std::make_unique<FlameTree>(trials, "samples");
        diff_.reset();
        placer_ = std::make_unique<StackPlacer>(*tree_, run.stack_index);
        per_trial_.assign(static_cast<size_t>(trials), 0.0);
        from = 0;
    }
    placer_->follow(run.stack_index);
    place_stack_rows(*tree_, *placer_, run, event_, from, per_trial_);
    count_stack_trials(*tree_, per_trial_, run);
    return tree_.get();
}

StackPlacer::StackPlacer(FlameTree& tree, const db::StackIndex& index) : tree_(tree), index_(nullptr) {
    follow(index);
}

void StackPlacer::follow(const db::StackIndex& index) {
    index_ = &index;
    if (index.nodes.size() > placed_.size()) {
        // Room made once, for the first index: a reserve at each poll could
        // rehash the tree's child table, whose growth is amortised anyway.
        if (placed_.empty()) tree_.reserve(tree_.size() + index.nodes.size());
        placed_.resize(index.nodes.size(), -1);
    }
    names_.reserve(index.frames.size());
    for (size_t f = names_.size(); f < index.frames.size(); ++f) names_.push_back(frame_name(index.frames[f]));
}

size_t StackPlacer::node(const db::StackRow& row) {
    // A row read from a store points into its run's index (its frames, when
    // expanded too, are the same stack): each distinct stack is walked once.
    if (row.node >= 0 && static_cast<size_t>(row.node) < placed_.size()) return place(row.node);
    size_t at = 0;
    for (const auto& f : row.frames) at = static_cast<size_t>(tree_.add_child(at, frame_name(f)));
    return at;
}

size_t StackPlacer::place(int32_t n) {
    // Up to the nearest placed ancestor, then down again making the nodes.
    std::vector<int32_t> path;
    while (n >= 0 && placed_[static_cast<size_t>(n)] < 0) {
        path.push_back(n);
        n = index_->nodes[static_cast<size_t>(n)].parent;
    }
    size_t at = n >= 0 ? static_cast<size_t>(placed_[static_cast<size_t>(n)]) : 0;
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
        const auto& node = index_->nodes[static_cast<size_t>(*it)];
        at = static_cast<size_t>(tree_.add_child(at, names_[static_cast<size_t>(node.frame)]));
        placed_[static_cast<size_t>(*it)] = static_cast<int32_t>(at);
    }
    return at;
}

}  // namespace pathscope::analysis
