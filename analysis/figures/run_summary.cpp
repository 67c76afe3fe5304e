#include "analysis/figures/run_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "analysis/trees/flame_diff.h"
#include "analysis/figures/sampled_stages.h"
#include "analysis/text/text_builder.h"
#include "analysis/figures/time_series.h"
#include "analysis/figures/workers.h"

namespace pathscope::analysis {

namespace {

double ratio(uint64_t a, uint64_t b) {
    return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

/// A per-trial ratio: missing (left out of the run's figure) when there is
/// nothing to divide by.
double trial_ratio(uint64_t a, uint64_t b) {
    return b ? static_cast<double>(a) / static_cast<double>(b) : std::nan("");
}

template <typename Row, typename Same, typename Add>
void sum_into(std::vector<Row>& into, const Row& r, Same same, Add add) {
    auto it = std::find_if(into.begin(), into.end(), [&](const Row& x) { return same(x, r); });
    if (it == into.end())
        into.push_back(r);
    else
        add(*it, r);
}

std::optional<IntervalRates> interval_rates(const db::RunData& run) {
    if (run.rows.intervals.empty() || run.info.interval_seconds <= 0) return std::nullopt;
    std::vector<double> rates;
    const bool transmit = packet_basis(run.rows.trials).transmit;
    std::set<int> replaced;  // a trial a re-run replaced counts in no figure
    for (const auto& t : run.rows.trials)
        if (t.replaced) replaced.insert(t.trial);
    for (const auto& p : time_series(run).points)
        if (!replaced.count(p.trial)) rates.push_back(transmit ? p.tx_pps : p.rx_pps);
    if (rates.empty()) return std::nullopt;
    std::sort(rates.begin(), rates.end());
    return IntervalRates{rates.size(), run.info.interval_seconds, rates.front(),
                         rates[rates.size() / 2], rates.back()};
}

}  // namespace

TimingCost timing_cost(const db::RunData& run, double all_stages_per_packet) {
    TimingCost t;
    const PacketBasis basis = packet_basis(run.rows.trials);
    std::map<int, uint64_t> busy_calls;
    for (const auto& st : trial_stage_totals(run)) busy_calls[st.trial] += analysis::busy_calls(st);
    std::vector<double> cost, per_packet;
    for (const auto& tr : run.rows.trials) {
        if (tr.replaced || tr.timer_cycles <= 0) continue;
        cost.push_back(tr.timer_cycles);
        per_packet.push_back(trial_ratio(busy_calls[tr.trial], basis.packets(tr)) * tr.timer_cycles);
        t.period = std::max(t.period, tr.timing_period);
    }
    if (cost.empty()) return t;
    t.measured = true;
    t.timestamp_cycles = run_figure(cost).mean;
    t.per_packet = run_figure(per_packet).mean;
    t.share = all_stages_per_packet > 0 ? t.per_packet / all_stages_per_packet : 0;
    return t;
}

std::string timing_cost_line(const TimingCost& t, const char* unit, double all_stages) {
    if (!t.measured) return "";
    std::string line = fmt::format(
        "pathscope's own timing: {:.1f} of the {:.1f} {} of all stages ({:.1f}%): a timestamp "
        "at each stage boundary costs {:.1f} TSC cycles here, and its cost is not subtracted",
        t.per_packet, all_stages, unit, 100 * t.share, t.timestamp_cycles);
    if (t.period > 1)
        line += fmt::format("; one walk in {} was timed (engine.timing = \"1/{}\"), so the worker "
                            "paid about {:.1f} {} of it",
                            t.period, t.period, t.per_packet / t.period, unit);
    return line;
}

double WorkerLoad::idle_walk_share() const { return ratio(idle_walks, walks); }

bool WorkerLoad::client_starved() const {
    return request_response && client_on_cpu < 1 && max_disturbance > 0 &&
           1 - client_on_cpu > max_disturbance;
}

std::string starved_warning(const std::string& run_name, const WorkerLoad& w) {
    if (w.client_starved())
        return fmt::format(
            "{}: the request/response clients were on their CPU only {:.1f}% of a window: they "
            "could not keep their requests outstanding, so the transaction rate is theirs, not "
            "the engine's. (Give the clients a core of their own, or run on a quieter machine.)",
            run_name, 100 * w.client_on_cpu);
    if (!w.starved()) return "";
    return fmt::format(
        "{}: the worker was starved: {:.1f}% of its {} graph walks handled no packet, and idle "
        "polling took {:.1f}% of its stage cycles. Its throughput is the workload's, not the "
        "engine's; cycles per packet count busy calls only. (Give the workload a core of its "
        "own, or run on a quieter machine.)",
        run_name, 100 * w.idle_walk_share(), w.walks, 100 * w.idle_share);
}

std::string fold_lines(const std::string& text, size_t columns) {
    std::string out;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        while (line.size() > columns) {
            size_t cut = line.rfind(' ', columns);
            if (cut == std::string::npos || cut < 20) cut = columns;
            out += line.substr(0, cut) + "\n";
            line = "    " + line.substr(cut + (line[cut] == ' ' ? 1 : 0));
        }
        out += line + "\n";
        start = end + 1;
    }
    return out;
}

Histogram to_histogram(const db::HistogramRow& row) {
    std::vector<uint64_t> counts(kBucketCount, 0);
    for (const auto& [i, n] : row.buckets)
        if (i < kBucketCount) counts[i] = n;
    Histogram h;
    h.add_buckets(counts, row.min, row.max, row.sum);
    return h;
}

Histogram merged_histogram(const db::RunData& run, const std::string& kind,
                           const std::string& subject, int trial) {
    Histogram h;
    for (const auto& row : run.rows.histograms)
        if (row.kind == kind && row.subject == subject && (trial < 0 || row.trial == trial))
            h.merge(to_histogram(row));
    return h;
}

std::vector<db::StageRow> trial_stage_totals(const db::RunData& run, int trials) {
    std::vector<db::StageRow> stages;
    for (const auto& s : run.rows.stages)
        if (s.seq == -1 && (trials < 0 || s.trial < trials)) stages.push_back(s);
    std::stable_sort(stages.begin(), stages.end(),
                     [](const auto& a, const auto& b) { return a.ord < b.ord; });
    return stages;
}

WorkerLoad worker_load(const db::RunData& run) {
    WorkerLoad w;
    for (const auto& tr : run.rows.trials) {
        w.walks += tr.walks;
        w.idle_walks += tr.idle_walks;
    }
    w.measured = w.walks > 0;
    std::set<int> cpus;
    for (const auto& th : run.rows.threads)
        if (th.role == db::kWorkerThread && th.cpu >= 0) cpus.insert(th.cpu);
    w.cpus.assign(cpus.begin(), cpus.end());
    std::map<int, std::pair<uint64_t, uint64_t>> per_trial;  ///< idle, all cycles
    for (const auto& st : trial_stage_totals(run)) {
        w.busy_cycles += busy_cycles(st);
        w.idle_cycles += st.idle_cycles;
        per_trial[st.trial].first += st.idle_cycles;
        per_trial[st.trial].second += st.cycles;
    }
    // The idle share is the run's figure of the trials' shares, as every
    // stage's idle % (and "all stages") is: one definition in every view.
    std::vector<double> shares;
    for (const auto& tr : run.rows.trials)
        if (!tr.replaced)
            shares.push_back(trial_ratio(per_trial[tr.trial].first, per_trial[tr.trial].second));
    w.idle_share = run_figure(shares).mean;
    // Request/response: the worker waits for the clients by design, so idle
    // walks say nothing; what matters is whether the clients had their CPU.
    for (const auto& e : run.rows.events)
        if (e.name == "rr_transactions" && e.value > 0) w.request_response = true;
    const DisturbanceSummary d = summarize_disturbance(trial_conditions(run));
    if (d.measured && d.least_client_on_cpu < 1) {
        w.client_on_cpu = d.least_client_on_cpu;
        w.max_disturbance = d.max_disturbance;
    }
    return w;
}

PacketBasis packet_basis(const std::vector<db::TrialRow>& trials) {
    uint64_t received = 0, sends = 0;
    for (const auto& t : trials) received += t.received, sends += t.sends;
    PacketBasis b;
    if (received == 0 && sends > 0) b.unit = kCyclesPerTxPacket, b.transmit = true;
    return b;
}

namespace {

/// What the summary's sections share: the run, its metrics (the figures
/// `compare` tests), the number of trial slots and which trials count (a
/// trial replaced by a re-run does not).
struct SummaryInput {
    const db::RunData& run;
    std::vector<Metric> metrics;
    size_t trials = 0;
    std::vector<bool> counted_trial;
};

/// The run's totals over its trials, and whether its two ledgers balance.
void summarize_totals(RunSummary& s, const db::RunData& run) {
    const db::Batch& rows = run.rows;
    s.trials = rows.trials;
    for (const auto& tr : rows.trials) {
        db::add_ledger(s.total, tr);
        s.total.window_received += tr.window_received;
        s.total.sends += tr.sends;
        s.total.window_sent += tr.window_sent;
        s.total.route_lookups += tr.route_lookups;
        s.total.source_selections += tr.source_selections;
    }
    s.balanced = s.total.received ==
                 s.total.delivered + s.total.forwarded + s.total.replied + s.total.dropped;
    uint64_t send_drops = 0;
    for (const auto& d : rows.drops)
        if (d.path == "send") send_drops += d.packets;
    // Stores from before schema v4 did not count sends: nothing to check there.
    s.send_balanced = s.total.sends == 0 || s.total.sends == s.total.sent + send_drops;
}

/// A stage line's per-call and per-packet figures: the mean of the counted
/// trials' (trial_lines[k]: trial k's counts), and its cycles per path packet
/// as `compare` tests it (one definition, run_metrics).
void trial_figures(StageLine& line, const std::vector<StageLine>& trial_lines,
                   const SummaryInput& in) {
    if (const Metric* m = find_metric(in.metrics, kStageCycles, line.name)) {
        const RunFigure f = run_figure(m->values);
        line.cycles_per_path_packet = f.mean;
        line.cycles_per_path_packet_sd = f.stddev;
    }
    std::vector<double> ppc, cpc, cpp, idle;
    for (size_t k = 0; k < trial_lines.size(); ++k) {
        if (in.counted_trial.size() > k && !in.counted_trial[k]) continue;  // replaced by a re-run
        const StageLine& t = trial_lines[k];
        ppc.push_back(trial_ratio(t.packets, t.busy_calls()));
        cpc.push_back(trial_ratio(t.busy_cycles(), t.busy_calls()));
        cpp.push_back(trial_ratio(t.busy_cycles(), t.packets));
        idle.push_back(trial_ratio(t.idle_cycles, t.cycles));
    }
    line.packets_per_call = run_figure(ppc).mean;
    line.cycles_per_call = run_figure(cpc).mean;
    line.cycles_per_packet = run_figure(cpp).mean;
    line.idle_share = run_figure(idle).mean;
}

/// Each stage's counters per trial (and "all stages" per trial): the run's
/// per-call and per-packet figures are the mean of the trials'.
void summarize_stages(RunSummary& s, const SummaryInput& in) {
    const db::RunData& run = in.run;
    std::map<std::string, uint64_t> stage_drops;
    for (const auto& d : run.rows.drops) stage_drops[d.stage] += d.packets;
    std::map<std::string, std::vector<StageLine>> per_trial;
    std::vector<StageLine> all_per_trial(in.trials);
    for (const auto& r : trial_stage_totals(run)) {
        StageLine line{r.stage, r.ord, r.calls, r.idle_calls, r.packets, r.cycles, r.idle_cycles,
                       0};
        sum_into(
            s.stages, line, [](const StageLine& a, const StageLine& b) { return a.name == b.name; },
            [](StageLine& a, const StageLine& b) { a.add_counts(b); });
        auto& lines = per_trial[r.stage];
        lines.resize(in.trials);
        if (static_cast<size_t>(r.trial) < in.trials) {
            lines[r.trial].add_counts(line);
            all_per_trial[r.trial].add_counts(line);
        }
    }
    s.all.name = kAllStages;
    for (auto& st : s.stages) {
        st.drops = stage_drops[st.name];
        trial_figures(st, per_trial[st.name], in);
        s.all.add_counts(st);
    }
    trial_figures(s.all, all_per_trial, in);
    s.sampled = sampled_stages(run);
    if (s.sampled) {
        const auto errors = stage_sampling_errors(run);
        for (auto& st : s.stages)
            if (const auto it = errors.find(st.name); it != errors.end()) st.sampling_error = it->second;
        if (const auto it = errors.find(kAllStages); it != errors.end()) s.all.sampling_error = it->second;
    }
    s.all.idle_share = s.worker.idle_share;  // the same figure, defined once (worker_load)
    s.all.packets = s.basis.packets(s.total);  // the path's packets
    s.timing = timing_cost(run, s.all.cycles_per_path_packet);
}

/// Each receive queue's eth_rx instance, per trial as the stages (when
/// there are several queues).
void summarize_rx_queues(RunSummary& s, const SummaryInput& in) {
    const db::Batch& rows = in.run.rows;
    std::map<std::string, std::vector<StageLine>> queue_trials;
    for (const auto& q : rows.queues) {
        if (q.seq != -1 || q.dir != "rx" || !q.calls || static_cast<size_t>(q.trial) >= in.trials)
            continue;
        auto& lines = queue_trials[q.port + "/" + std::to_string(q.queue)];
        lines.resize(in.trials);
        lines[q.trial].add_counts({"", 0, q.calls, q.idle_calls, q.packets, q.cycles, q.idle_cycles, 0});
    }
    if (queue_trials.size() <= 1) return;
    for (auto& [name, lines] : queue_trials) {
        StageLine& line = s.rx_queues.emplace_back();
        line.name = name;
        for (const StageLine& t : lines) line.add_counts(t);
        trial_figures(line, lines, in);
        std::vector<double> per_path;
        for (const auto& tr : rows.trials)
            if (static_cast<size_t>(tr.trial) < in.trials && !tr.replaced)
                per_path.push_back(trial_ratio(lines[tr.trial].busy_cycles(), s.basis.packets(tr)));
        const RunFigure f = run_figure(per_path);
        line.cycles_per_path_packet = f.mean;
        line.cycles_per_path_packet_sd = f.stddev;
    }
}

/// Drops by reason and path, over the whole run.
void summarize_drops(RunSummary& s, const db::Batch& rows) {
    std::map<std::pair<std::string, std::string>, uint64_t> by_reason;
    for (const auto& d : rows.drops) by_reason[{d.reason, d.path}] += d.packets;
    for (const auto& [k, n] : by_reason) s.drops.push_back({k.first, k.second, n});
}

/// Every queue's totals, by port, direction and queue, with a receive
/// queue's burst sizes (p50, p99).
void summarize_queues(RunSummary& s, const db::Batch& rows) {
    std::map<std::string, Histogram> burst_sizes;
    for (const auto& h : rows.histograms)
        if (h.kind == kRxBurstSize) burst_sizes[h.subject].merge(to_histogram(h));
    for (const auto& q : rows.queues) {
        if (q.seq != -1) continue;
        sum_into(
            s.queues, QueueLine{q, false, 0, 0},
            [](const QueueLine& a, const QueueLine& b) {
                return a.totals.port == b.totals.port && a.totals.queue == b.totals.queue &&
                       a.totals.dir == b.totals.dir;
            },
            [](QueueLine& a, const QueueLine& b) { a.totals.add_counts(b.totals); });
    }
    std::sort(s.queues.begin(), s.queues.end(), [](const QueueLine& a, const QueueLine& b) {
        return std::tie(a.totals.port, a.totals.dir, a.totals.queue) <
               std::tie(b.totals.port, b.totals.dir, b.totals.queue);
    });
    for (auto& q : s.queues) {
        auto it = burst_sizes.find(q.totals.port + "/" + std::to_string(q.totals.queue));
        if (q.totals.dir == "rx" && it != burst_sizes.end() && it->second.count()) {
            q.has_burst = true;
            q.burst_p50 = it->second.percentile(50);
            q.burst_p99 = it->second.percentile(99);
        }
    }
}

/// Each perf event's count over the run and its figure per packet.
void summarize_perf(RunSummary& s, const SummaryInput& in) {
    std::map<std::string, PerfLine> perf;
    for (const auto& p : in.run.rows.perf) {
        auto [it, fresh] = perf.try_emplace(p.event);
        PerfLine& l = it->second;
        if (fresh) {
            l.event = p.event;
            l.supported = p.supported;
            l.note = p.note;
            // The clock events count nanoseconds; everything else counts events.
            l.unit = p.event.find("clock") != std::string::npos ? "ns" : "events";
        }
        l.value += p.value;
    }
    for (auto& [name, l] : perf) {
        if (const Metric* m = find_metric(in.metrics, kPerfGroup, perf_metric_name(name)))
            l.per_packet = run_figure(m->values).mean;
        s.perf.push_back(l);
    }
}

/// Path events: their counts, and the figures made of them.
void summarize_events(RunSummary& s, const SummaryInput& in) {
    std::map<std::string, uint64_t> totals;
    for (const auto& e : in.run.rows.events)
        if (e.value) totals[e.name] += e.value;
    s.events.assign(totals.begin(), totals.end());
    for (const auto& m : in.metrics)
        if (m.group == kPathEventsGroup || (m.group == kThroughput && m.name == kRrRate))
            if (const RunFigure f = run_figure(m.values); f.trials)
                s.event_figures.push_back({m.group, m.name, m.unit, f.mean, f.stddev});
}

/// Latencies in the ledger's order (forwarded, delivered, replied,
/// dropped), then round trips and timed calls, as they first appear.
void summarize_latencies(RunSummary& s, const SummaryInput& in) {
    std::vector<std::pair<std::string, uint64_t>> counts;
    for (const char* o : {"forwarded", "delivered", "replied", "dropped"}) counts.push_back({o, 0});
    for (const auto& h : in.run.rows.histograms) {
        if (h.kind != db::kLatency) continue;
        auto it = std::find_if(counts.begin(), counts.end(),
                               [&](const auto& c) { return c.first == h.subject; });
        if (it == counts.end()) it = counts.insert(counts.end(), {h.subject, 0});
        it->second += h.count;
    }
    for (const auto& sc : counts) {
        // Named, not a structured binding: clang 14 (the fuzz preset)
        // cannot capture those in a lambda.
        const std::string& subject = sc.first;
        const uint64_t count = sc.second;
        if (!count) continue;
        LatencyLine l{subject, count, 0, 0, 0};
        auto fig = [&](const char* p) {
            const Metric* m = find_metric(in.metrics, kLatencyGroup, subject + p);
            return m ? run_figure(m->values).mean : 0.0;
        };
        l.p50 = fig(" p50"), l.p90 = fig(" p90"), l.p99 = fig(" p99");
        s.latencies.push_back(l);
    }
}

/// The hottest functions: each one's self share, as the reports and the
/// flame graphs form it (the mean of the trials' shares of one event).
void summarize_hottest(RunSummary& s, const db::RunData& run, const SummaryOptions& opt) {
    if (opt.stacks && opt.stack_event) {
        s.stack_event = *opt.stack_event;
        s.stack_samples = opt.stack_samples;
    } else {
        s.stack_event = main_stack_event(run);
        for (const auto& st : run.rows.stacks)
            if (st.event == s.stack_event) s.stack_samples += st.weight;
    }
    if (s.stack_event.empty()) return;
    std::optional<FlameTree> own;
    if (!opt.stacks) own.emplace(stack_tree(run, s.stack_event));
    const FlameTree& tree = opt.stacks ? *opt.stacks : *own;
    for (const SelfShare& f : hottest_functions(tree, tree, opt.top_functions))
        s.hottest.push_back({f.name, f.base});
}

/// The stages with the most busy cycles, with their per-call histograms.
void summarize_busiest(RunSummary& s, const db::Batch& rows, size_t how_many) {
    std::map<std::string, Histogram> call_cycles;
    for (const auto& h : rows.histograms)
        if (h.kind == kStageCallCycles) call_cycles[h.subject].merge(to_histogram(h));
    std::vector<const StageLine*> by_cycles;
    for (const auto& st : s.stages)
        if (call_cycles.count(st.name)) by_cycles.push_back(&st);
    std::stable_sort(by_cycles.begin(), by_cycles.end(), [](auto* a, auto* b) {
        return a->busy_cycles() > b->busy_cycles();
    });
    for (const StageLine* st : by_cycles) {
        if (s.busiest.size() >= how_many) break;
        s.busiest.push_back({st->name, call_cycles[st->name], st->busy_calls()});
    }
}

/// A run of several workers: each one's ledger, and its own stage lines
/// (the same summary of its view of the run).
void summarize_workers(RunSummary& s, const db::RunData& run) {
    if (run.rows.worker_trials.empty() && run.rows.worker_stages.empty()) return;
    s.worker_ledgers = worker_ledgers(run);
    for (int w : run_workers(run)) {
        WorkerStageLines lines{w, -1, {}};
        for (const auto& l : s.worker_ledgers.lines)
            if (l.worker == w) lines.lcore = l.lcore;
        SummaryOptions one;
        one.top_functions = 0;
        one.busiest_stages = 0;
        // Over the run's packets, as the queue rows under eth_rx: a
        // stage's worker rows add up to it (show --worker N gives the
        // worker over its own packets).
        db::RunData view = worker_view(run, w, false);
        for (auto& t : view.rows.trials)
            for (const auto& whole : run.rows.trials)
                if (whole.trial == t.trial) t.received = whole.received, t.sends = whole.sends;
        lines.stages = summarize_run(view, one).stages;
        s.worker_stages.push_back(std::move(lines));
    }
}

}  // namespace

RunSummary summarize_run(const db::RunData& run, const SummaryOptions& opt) {
    RunSummary s;
    s.info = run.info;
    s.basis = packet_basis(run.rows.trials);
    summarize_totals(s, run);
    s.worker = worker_load(run);
    s.rates = interval_rates(run);
    SummaryInput in{run, run_metrics(run), 0, {}};
    for (const auto& tr : run.rows.trials)
        in.trials = std::max(in.trials, static_cast<size_t>(tr.trial) + 1);
    s.conditions = trial_conditions(run);
    s.disturbance = summarize_disturbance(s.conditions);
    in.counted_trial.assign(in.trials, true);
    for (const auto& c : s.conditions)
        if (c.replaced && static_cast<size_t>(c.trial) < in.trials) in.counted_trial[c.trial] = false;
    summarize_stages(s, in);
    summarize_rx_queues(s, in);
    summarize_drops(s, run.rows);
    summarize_queues(s, run.rows);
    summarize_perf(s, in);
    summarize_events(s, in);
    summarize_latencies(s, in);
    summarize_hottest(s, run, opt);
    s.traces = run.rows.traces.size();
    s.facts = run.rows.facts;
    summarize_busiest(s, run.rows, opt.busiest_stages);
    summarize_workers(s, run);
    return s;
}

std::string histogram_calls_note(uint64_t in_histogram, uint64_t busy_calls) {
    if (in_histogram >= busy_calls)
        return fmt::format("{} busy calls; idle calls are left out", in_histogram);
    return fmt::format(
        "{} of the stage's {} busy calls: idle calls and {} untimed or interrupted ones (their "
        "cycles estimated) are left out",
        in_histogram, busy_calls, busy_calls - in_histogram);
}

}  // namespace pathscope::analysis
