#include "analysis/time_series.h"

#include <map>

#include "analysis/run_summary.h"

namespace pathscope::analysis {

namespace {

// Each interval's place on the run's axis, keyed by (trial, seq).
std::map<std::pair<int, int>, std::pair<double, double>> axis(const db::RunData& run,
                                                             std::vector<double>* starts) {
    std::map<std::pair<int, int>, std::pair<double, double>> at;
    double offset = 0, prev = 0, last_end = 0;
    int trial = -1;
    for (const auto& iv : run.rows.intervals) {  // ordered by trial, seq
        if (iv.trial != trial) {
            offset = last_end;
            prev = 0;
            trial = iv.trial;
            if (starts) starts->push_back(offset);
        }
        at[{iv.trial, iv.seq}] = {offset + prev, offset + iv.t};
        prev = iv.t;
        last_end = offset + iv.t;
    }
    return at;
}

}  // namespace

TimeSeries time_series(const db::RunData& run) {
    TimeSeries ts;
    const auto at = axis(run, &ts.trial_starts);
    const bool transmit = packet_basis(run.rows.trials).transmit;
    std::map<std::pair<int, int>, double> busy;
    for (const auto& s : run.rows.stages)
        if (s.seq >= 0) busy[{s.trial, s.seq}] += static_cast<double>(s.cycles - s.idle_cycles);
    for (const auto& iv : run.rows.intervals) {
        const auto [t0, t1] = at.at({iv.trial, iv.seq});
        const double dt = t1 - t0;
        if (dt <= 0) continue;
        IntervalPoint p;
        p.trial = iv.trial;
        p.seq = iv.seq;
        p.t0 = t0;
        p.t1 = t1;
        p.rx_pps = static_cast<double>(iv.received) / dt;
        p.forwarded_pps = static_cast<double>(iv.forwarded) / dt;
        p.delivered_pps = static_cast<double>(iv.delivered) / dt;
        p.tx_pps = static_cast<double>(iv.sent) / dt;
        const uint64_t packets = transmit ? iv.sent : iv.received;
        p.cycles_per_packet = packets ? busy[{iv.trial, iv.seq}] / static_cast<double>(packets) : 0;
        ts.points.push_back(p);
    }
    return ts;
}

FlameTree stage_tree_in_range(const db::RunData& run, double t0, double t1, int* intervals) {
    const auto at = axis(run, nullptr);
    const bool transmit = packet_basis(run.rows.trials).transmit;
    FlameTree tree(1, "cycles");
    double received = 0;
    int n = 0;
    for (const auto& iv : run.rows.intervals) {
        const auto [a, b] = at.at({iv.trial, iv.seq});
        if (a >= t0 && b <= t1 + 1e-9) {
            received += static_cast<double>(transmit ? iv.sent : iv.received);
            ++n;
        }
    }
    for (const auto& s : run.rows.stages) {
        if (s.seq < 0) continue;
        const auto it = at.find({s.trial, s.seq});
        if (it == at.end() || it->second.first < t0 || it->second.second > t1 + 1e-9) continue;
        if (s.cycles > s.idle_cycles)
            tree.add({s.stage}, static_cast<double>(s.cycles - s.idle_cycles));
    }
    tree.set_trial_scale(0, received > 0 ? received : 1);
    if (intervals) *intervals = n;
    return tree;
}

FlameTree stack_tree_in_range(const db::RunData& run, const std::string& event, double t0,
                              double t1) {
    const auto at = axis(run, nullptr);
    FlameTree tree(1, "samples");
    std::vector<std::string> frames;
    for (const auto& s : run.rows.stacks) {
        if (s.seq < 0 || s.event != event) continue;
        const auto it = at.find({s.trial, s.seq});
        if (it == at.end() || it->second.first < t0 || it->second.second > t1 + 1e-9) continue;
        frames.clear();
        for (const auto& f : s.frames)
            frames.push_back(frame_name(f));
        tree.add(frames, static_cast<double>(s.weight));
    }
    return tree;
}

}  // namespace pathscope::analysis
