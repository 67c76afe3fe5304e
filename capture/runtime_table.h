// Renders a run as text in the spirit of VPP's `show runtime`: a stage table,
// the receive ledger, drops by reason, per-queue counters and per-call cycle
// histograms.
#pragma once

#include <string>

#include "capture/run.h"

namespace pathscope::capture {

struct TableOptions {
    bool histograms = true;  ///< append per-call cycle histograms of the busiest stages
};

std::string render_runtime(const RunResult& r, const TableOptions& opt = {});

/// "12.345 Mpps", "12.3 kpps" or "12 pps".
std::string format_rate(double pps);

/// Packets per second of `received` between two snapshots.
double rate_pps(const engine::EngineSnapshot& a, const engine::EngineSnapshot& b,
                uint64_t engine::Ledger::*field);

}  // namespace pathscope::capture
