#include "analysis/figures/time_series.h"

#include <algorithm>
#include <map>

#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"

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
        if (s.seq >= 0) busy[{s.trial, s.seq}] += static_cast<double>(busy_cycles(s));
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

namespace {

// The trials a time range holds whole intervals of: the others are left out
// of the range's figures (FlameTree::exclude_trial).
struct RangeTrials {
    std::map<std::pair<int, int>, std::pair<double, double>> at;
    double t0, t1;
    std::vector<double> packets;  ///< per trial, in the range
    std::vector<bool> present;
    int intervals = 0;

    RangeTrials(const db::RunData& run, double from, double to) : at(axis(run, nullptr)), t0(from), t1(to) {
        int trials = 0;
        for (const auto& t : run.rows.trials) trials = std::max(trials, t.trial + 1);
        for (const auto& iv : run.rows.intervals) trials = std::max(trials, iv.trial + 1);
        packets.assign(static_cast<size_t>(std::max(trials, 1)), 0.0);
        present.assign(packets.size(), false);
        const bool transmit = packet_basis(run.rows.trials).transmit;
        for (const auto& iv : run.rows.intervals)
            if (holds(iv.trial, iv.seq)) {
                packets[iv.trial] += static_cast<double>(transmit ? iv.sent : iv.received);
                present[iv.trial] = true;
                ++intervals;
            }
    }
    bool holds(int trial, int seq) const {
        const auto it = at.find({trial, seq});
        return it != at.end() && it->second.first >= t0 && it->second.second <= t1 + 1e-9;
    }
    int trials() const { return static_cast<int>(packets.size()); }
    void leave_out_absent(FlameTree& tree) const {
        for (int t = 0; t < trials(); ++t)
            if (!present[t]) tree.exclude_trial(t);
    }
};

}  // namespace

FlameTree stage_tree_in_range(const db::RunData& run, double t0, double t1, int* intervals) {
    const RangeTrials range(run, t0, t1);
    // Per trial, as stage_tree forms the whole run's figures: over the whole
    // run the two trees are the same.
    FlameTree tree(range.trials(), "cycles");
    add_stage_frames(tree, run,
                     [&](int trial, int seq) { return seq >= 0 && range.holds(trial, seq); });
    for (int t = 0; t < range.trials(); ++t) tree.set_trial_scale(t, range.packets[t]);
    range.leave_out_absent(tree);
    if (intervals) *intervals = range.intervals;
    return tree;
}

FlameTree stack_tree_in_range(const db::RunData& run, const std::string& event, double t0,
                              double t1) {
    const RangeTrials range(run, t0, t1);
    FlameTree tree(range.trials(), "samples");
    std::vector<double> samples(static_cast<size_t>(range.trials()), 0.0);
    StackPlacer placer(tree, run.stack_index);
    for (const auto& s : run.rows.stacks) {
        if (s.seq < 0 || s.event != event || !range.holds(s.trial, s.seq)) continue;
        tree.add_weight(placer.node(s), static_cast<double>(s.weight), s.trial);
        samples[s.trial] += static_cast<double>(s.weight);
    }
    for (int t = 0; t < range.trials(); ++t) {
        tree.set_trial_scale(t, samples[t]);
        if (samples[t] == 0) tree.exclude_trial(t);
    }
    return tree;
}

}  // namespace pathscope::analysis
