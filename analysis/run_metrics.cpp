#include "analysis/run_metrics.h"

#include <algorithm>
#include <map>

#include "analysis/run_summary.h"
#include "analysis/stats.h"

namespace pathscope::analysis {

namespace {

int trial_count(const db::RunData& run) {
    int n = 0;
    for (const auto& t : run.rows.trials) n = std::max(n, t.trial + 1);
    return n;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

// Adds `v` for `trial` to the metric keyed (group, name), creating it with
// room for every trial.
struct MetricSet {
    int trials;
    std::vector<Metric> list;
    std::map<std::pair<std::string, std::string>, size_t> index;

    Metric& get(const std::string& group, const std::string& name, const std::string& unit,
                bool higher_is_better, bool skewed) {
        auto [it, fresh] = index.try_emplace({group, name}, list.size());
        if (fresh)
            list.push_back({group, name, unit, higher_is_better, skewed,
                            std::vector<double>(static_cast<size_t>(trials), 0.0), {}});
        return list[it->second];
    }
};

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
        if (run.info.kind == kPcapImportKind) continue;
        if (basis.transmit) {
            m.get(kThroughput, kTxRate, "Mpps", true, false).values[t.trial] = t.sent_pps / 1e6;
            continue;
        }
        m.get(kThroughput, kRxRate, "Mpps", true, false).values[t.trial] = t.rx_pps / 1e6;
        m.get(kThroughput, "forwarded", "Mpps", true, false).values[t.trial] =
            t.forwarded_pps / 1e6;
        m.get(kThroughput, "delivered", "Mpps", true, false).values[t.trial] =
            t.delivered_pps / 1e6;
        if (t.sends) m.get(kThroughput, kTxRate, "Mpps", true, false).values[t.trial] = t.sent_pps / 1e6;
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
    for (const auto& s : stages) {
        ord.emplace(s.stage, s.ord);
        packets_per_call[{s.stage, s.trial}] =
            ratio(static_cast<double>(s.packets), static_cast<double>(busy_calls(s)));
        if (s.packets > 0)
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
    for (const auto& p : run.rows.perf) {
        if (!p.supported || p.trial >= trials) continue;
        const std::string name = perf_metric_name(p.event);
        const bool ns = name == "task-clock" || name == "cpu-clock";
        m.get(kPerfGroup, name, ns ? "ns/pkt" : "per pkt", false, false).values[p.trial] =
            ratio(static_cast<double>(p.value), received[p.trial]);
    }
    return m.list;
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

FlameTree stage_tree(const db::RunData& run) {
    const int trials = std::max(1, trial_count(run));
    FlameTree tree(trials, "cycles");
    const PacketBasis basis = packet_basis(run.rows.trials);
    for (const auto& t : run.rows.trials)
        tree.set_trial_scale(t.trial, static_cast<double>(basis.packets(t)));
    for (const auto& s : trial_stage_totals(run, trials))
        if (busy_cycles(s)) tree.add({s.stage}, static_cast<double>(busy_cycles(s)), s.trial);
    return tree;
}

std::string main_stack_event(const db::RunData& run) {
    std::map<std::string, uint64_t> weight;
    for (const auto& s : run.rows.stacks) weight[s.event] += s.weight;
    std::string best;
    uint64_t most = 0;
    for (const auto& [event, w] : weight)
        if (w > most) most = w, best = event;
    return best;
}

FlameTree stack_tree(const db::RunData& run, const std::string& event) {
    const std::string wanted = event.empty() ? main_stack_event(run) : event;
    const int trials = std::max(1, trial_count(run));
    FlameTree tree(trials, "samples");
    std::vector<double> per_trial(static_cast<size_t>(trials), 0.0);
    std::vector<std::string> frames;
    for (const auto& s : run.rows.stacks) {
        if (s.event != wanted || s.trial >= trials) continue;
        frames.clear();
        for (const auto& f : s.frames)
            frames.push_back(frame_name(f));
        tree.add(frames, static_cast<double>(s.weight), s.trial);
        per_trial[s.trial] += static_cast<double>(s.weight);
    }
    for (int t = 0; t < trials; ++t) {
        tree.set_trial_scale(t, per_trial[t]);
        if (per_trial[t] == 0) tree.exclude_trial(t);  // sampling was off, or failed
    }
    return tree;
}

}  // namespace pathscope::analysis
