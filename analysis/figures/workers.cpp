#include "analysis/figures/workers.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace pathscope::analysis {

std::vector<int> run_workers(const db::RunData& run) {
    std::set<int> ids;
    for (const auto& w : run.rows.worker_trials) ids.insert(w.worker);
    for (const auto& s : run.rows.worker_stages) ids.insert(s.worker);
    if (ids.empty()) return {0};
    return {ids.begin(), ids.end()};
}

std::string workers_text(const db::RunData& run) {
    const std::vector<int> ids = run_workers(run);
    const std::string name = "run " + std::to_string(run.info.id);
    if (ids.size() == 1) return name + " has one worker, " + std::to_string(ids.front());
    const bool dense = ids.back() - ids.front() + 1 == static_cast<int>(ids.size());
    if (dense)
        return name + " has workers " + std::to_string(ids.front()) + "-" +
               std::to_string(ids.back());
    std::string list;
    for (int id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
    return name + " has workers " + list;
}

db::RunData worker_view(const db::RunData& run, int worker, bool with_stacks) {
    const std::vector<int> ids = run_workers(run);
    if (!std::binary_search(ids.begin(), ids.end(), worker))
        throw std::out_of_range("no worker " + std::to_string(worker) + ": " + workers_text(run));
    if (ids.size() == 1) {  // one worker: the run is its view
        db::RunData same;
        same.info = run.info;
        same.rows = run.rows;
        if (!with_stacks) same.rows.stacks.clear();
        else same.stack_index = run.stack_index;
        return same;
    }
    db::RunData v;
    v.info = run.info;
    v.info.label += " [worker " + std::to_string(worker) + "]";
    const db::Batch& r = run.rows;
    db::Batch& b = v.rows;
    for (const auto& q : r.queues)  // its own queues: those it polls and sends on
        if (q.worker == worker) b.queues.push_back(q);
    b.perf = r.perf;
    b.traces = r.traces;
    b.facts = r.facts;
    b.events = r.events;
    if (with_stacks) {
        b.stacks = r.stacks;
        v.stack_index = run.stack_index;
    }
    for (const auto& s : r.worker_stages)
        if (s.worker == worker) b.stages.push_back(s);
    for (const auto& e : r.worker_edges)
        if (e.worker == worker) b.edges.push_back(e);
    for (const auto& h : r.histograms)
        if (h.kind != db::kStageCallCycles) b.histograms.push_back(h);
    for (const auto& h : r.worker_histograms)
        if (h.worker == worker) b.histograms.push_back(h);
    std::map<int, const db::WorkerTrialRow*> ledger;
    for (const auto& w : r.worker_trials)
        if (w.worker == worker) ledger[w.trial] = &w;
    const auto rate = [](uint64_t packets, double seconds) {
        return seconds > 0 ? static_cast<double>(packets) / seconds : 0.0;
    };
    for (db::TrialRow t : r.trials) {
        if (const auto it = ledger.find(t.trial); it != ledger.end()) {
            const db::WorkerTrialRow& w = *it->second;
            t.received = w.received, t.delivered = w.delivered, t.forwarded = w.forwarded;
            t.replied = w.replied, t.dropped = w.dropped, t.sent = w.sent, t.sends = w.sends;
            t.walks = w.walks, t.idle_walks = w.idle_walks;
            t.window_received = w.window_received, t.window_sent = w.window_sent;
            t.rx_pps = rate(w.window_received, t.seconds);
            t.forwarded_pps = rate(w.window_forwarded, t.seconds);
            t.delivered_pps = rate(w.window_delivered, t.seconds);
            t.sent_pps = rate(w.window_sent, t.seconds);
        }
        b.trials.push_back(t);
    }
    return v;
}

bool WorkerLedgers::all_balanced() const {
    return std::all_of(lines.begin(), lines.end(), [](const auto& l) { return l.balanced(); });
}

WorkerLedgers worker_ledgers(const db::RunData& run) {
    WorkerLedgers out;
    std::map<int, WorkerLedgerLine> lines;
    std::map<int, db::TrialRow> sums;  // per trial, the workers' sum
    for (const auto& w : run.rows.worker_trials) {
        WorkerLedgerLine& l = lines[w.worker];
        l.worker = w.worker;
        l.lcore = w.lcore;
        db::add_ledger(l, w);
        db::add_ledger(sums[w.trial], w);
    }
    for (auto& [id, l] : lines) out.lines.push_back(l);
    if (lines.empty()) return out;
    for (const auto& t : run.rows.trials) {
        const auto it = sums.find(t.trial);
        const db::TrialRow s = it == sums.end() ? db::TrialRow{} : it->second;
        const std::pair<const char*, std::pair<uint64_t, uint64_t>> fields[] = {
            {"received", {s.received, t.received}},   {"delivered", {s.delivered, t.delivered}},
            {"forwarded", {s.forwarded, t.forwarded}}, {"replied", {s.replied, t.replied}},
            {"dropped", {s.dropped, t.dropped}},       {"sent", {s.sent, t.sent}}};
        for (const auto& [name, v] : fields)
            if (v.first != v.second && out.sum_matches) {
                out.sum_matches = false;
                out.mismatch = "trial " + std::to_string(t.trial) + ": the workers' " + name +
                               " add up to " + std::to_string(v.first) + ", the run's is " +
                               std::to_string(v.second);
            }
    }
    return out;
}

}  // namespace pathscope::analysis
