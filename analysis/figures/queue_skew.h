// How evenly traffic spreads over a port's queues: each queue's share,
// max/mean, Jain's fairness index, and a flag when one queue carries most of
// the traffic while others sit idle (the missing-flow-id pattern).
#pragma once

#include <string>
#include <vector>

#include "db/records.h"

namespace pathscope::analysis {

struct QueueShare {
    int queue = 0;
    unsigned long long packets = 0;
    double share = 0;  ///< of the port direction's packets, 0..1
    /// Polls that returned packets (rx), or transmit calls that sent some (tx).
    unsigned long long bursts = 0;
};

struct QueueSkew {
    std::string port, dir;
    std::vector<QueueShare> queues;
    double max_over_mean = 1;
    double jain = 1;  ///< (sum x)^2 / (n sum x^2): 1 is even, 1/n is one queue
    bool skewed = false;
    std::string flag;  ///< why it is flagged, in words
};

/// Idle: under this fraction of an even share.
inline constexpr double kIdleShare = 0.05;

/// One entry per port and direction, from the trial totals (seq -1), summed
/// over trials.
std::vector<QueueSkew> queue_skew(const std::vector<db::QueueRow>& rows);

/// "wire rx: 1 queue, max/mean 1.00, Jain's index 1.000" (then "  SKEWED"
/// when flagged): the heading of a port direction in the text report and
/// the desktop program's Queues page.
std::string queue_heading(const QueueSkew& s);

}  // namespace pathscope::analysis
