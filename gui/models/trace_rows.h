// The Packet traces page's rows, computed off the GUI thread with the other
// pages (compute_pages): each trace's cycles over its stages, and the
// distinct outcomes the page's outcome box offers. The model only reads them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "db/records.h"

namespace pathscope::gui {

struct TraceRows {
    std::shared_ptr<const db::RunData> run;  ///< holds the traces, in stored order
    std::vector<double> cycles;              ///< per trace: the sum of its stage cycles
    std::vector<std::string> outcomes;       ///< distinct outcomes and drop reasons, sorted

    size_t size() const { return cycles.size(); }
    const db::PacketTraceRow& trace(size_t i) const { return run->rows.traces[i]; }
    /// Whether these rows are `older`'s, of the same run, with more after
    /// them: what a live update of a running run brings.
    bool extends(const TraceRows& older) const;
};

/// The rows of `run`'s traces (none when `run` is null).
std::shared_ptr<const TraceRows> trace_rows(std::shared_ptr<const db::RunData> run);

}  // namespace pathscope::gui
