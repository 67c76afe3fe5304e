// A run's per-interval figures on one time axis (trials one after another),
// and the stage tree of a time range: the "flame scope" of the time-series
// page. Interval rows are deltas, so any range sums exactly.
#pragma once

#include <vector>

#include "analysis/trees/flame_tree.h"
#include "db/records.h"

namespace pathscope::analysis {

struct IntervalPoint {
    int trial = 0;
    int seq = 0;
    double t0 = 0, t1 = 0;  ///< the interval on the run's axis, seconds
    double rx_pps = 0, forwarded_pps = 0, delivered_pps = 0;
    double tx_pps = 0;             ///< datagrams local sockets had transmitted
    /// Busy cycles of every stage over the path's packets (received ones,
    /// or for a run that only sent, the datagrams sent: PacketBasis).
    double cycles_per_packet = 0;
};

struct TimeSeries {
    std::vector<IntervalPoint> points;
    std::vector<double> trial_starts;  ///< where each trial begins on the axis
};

TimeSeries time_series(const db::RunData& run);

/// The stage tree of the intervals that lie within [t0, t1) on the run's
/// axis: busy cycles per trial, each trial scaled by the path's packets it
/// has in the range (so values are cycles per received packet, or sent
/// datagram); trials with no interval in the range are left out, and the
/// range's figures are the mean of its trials', as a whole run's are.
/// `intervals`, when given, receives how many intervals the range holds.
FlameTree stage_tree_in_range(const db::RunData& run, double t0, double t1,
                              int* intervals = nullptr);

/// The sampled stacks of `event` taken in the intervals within [t0, t1),
/// per trial, each scaled by its samples in the range (total(0) is the
/// range's sample count). Stacks stored for a whole trial (imports, older
/// stores) are in no range.
FlameTree stack_tree_in_range(const db::RunData& run, const std::string& event, double t0,
                              double t1);

}  // namespace pathscope::analysis
