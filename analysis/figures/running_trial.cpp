#include "analysis/figures/running_trial.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace pathscope::analysis {

db::Batch running_trial_rows(const db::RunData& run) {
    db::Batch out;
    std::set<int> done;
    for (const auto& t : run.rows.trials) done.insert(t.trial);
    std::map<int, db::TrialRow> trials;
    for (const auto& i : run.rows.intervals) {
        if (done.count(i.trial)) continue;
        db::TrialRow& t = trials[i.trial];
        t.trial = i.trial;
        t.seconds = std::max(t.seconds, i.t);
        db::add_ledger(t, i);
    }
    if (trials.empty()) return out;
    for (auto& [trial, t] : trials) {
        t.window_received = t.received;
        t.window_sent = t.sends = t.sent;
        if (t.seconds > 0) {
            t.rx_pps = static_cast<double>(t.received) / t.seconds;
            t.forwarded_pps = static_cast<double>(t.forwarded) / t.seconds;
            t.delivered_pps = static_cast<double>(t.delivered) / t.seconds;
            t.sent_pps = static_cast<double>(t.sent) / t.seconds;
        }
        out.trials.push_back(t);
    }
    std::map<std::pair<int, std::string>, db::StageRow> stages;
    for (const auto& s : run.rows.stages) {
        if (s.seq < 0 || !trials.count(s.trial)) continue;
        db::StageRow& t = stages.try_emplace({s.trial, s.stage}, db::StageRow{}).first->second;
        t.trial = s.trial;
        t.seq = -1;
        t.stage = s.stage;
        t.ord = s.ord;
        t.calls += s.calls;
        t.packets += s.packets;
        t.cycles += s.cycles;
        t.idle_calls += s.idle_calls;
        t.idle_cycles += s.idle_cycles;
    }
    for (auto& [key, s] : stages) out.stages.push_back(std::move(s));
    std::map<std::tuple<int, std::string, std::string, int>, db::QueueRow> queues;
    for (const auto& q : run.rows.queues) {
        if (q.seq < 0 || !trials.count(q.trial)) continue;
        db::QueueRow& t =
            queues.try_emplace({q.trial, q.port, q.dir, q.queue}, db::QueueRow{}).first->second;
        t.trial = q.trial;
        t.seq = -1;
        t.port = q.port;
        t.queue = q.queue;
        t.dir = q.dir;
        t.worker = q.worker;
        t.add_counts(q);
    }
    for (auto& [key, q] : queues) out.queues.push_back(std::move(q));
    return out;
}

}  // namespace pathscope::analysis
