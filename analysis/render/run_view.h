// A stored run as text in the spirit of VPP's `show runtime`: trials, the
// stage table, the receive ledger, drops by reason, queues, per-call cycle
// histograms, perf counters and the hottest sampled functions. Used by
// `pathscope run` (on the rows it just stored) and `pathscope show`.
#pragma once

#include <string>

#include "analysis/figures/run_summary.h"

namespace pathscope::analysis {

struct RunViewOptions {
    bool histograms = true;  ///< per-call cycle histograms of the busiest stages
    unsigned top_frames = 10;
    bool header = true;  ///< the run's id, label, host and scenario lines
    /// A run of several workers: under each stage of the stage table, a
    /// row per worker (`show --workers`).
    bool worker_rows = false;
};

std::string render_run(const RunSummary& summary, const RunViewOptions& opt = {});
/// summarize_run, then render.
std::string render_run(const db::RunData& run, const RunViewOptions& opt = {});

/// The unit of a column of packet rates, chosen by its largest value, so
/// that every row of the column reads in one unit.
struct RateUnit {
    const char* name = "pps";
    double per = 1;    ///< packets per second in one unit
    int decimals = 0;
};
RateUnit rate_unit(double largest_pps);
/// "12.345 Mpps" or "0.0388 Mpps": in `unit`, or with the digits the value needs.
std::string format_rate(double pps, const RateUnit& unit);
std::string format_rate(double pps);


}  // namespace pathscope::analysis
