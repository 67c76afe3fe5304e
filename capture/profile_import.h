// `pathscope import folded|perf`: external profiles (FlameGraph's folded
// stacks, `perf script` text) stored as runs of sampled stacks, so report and
// compare work on them like on captured runs.
#pragma once

#include <string>

#include "capture/profile_text.h"
#include "db/queries.h"

namespace pathscope::capture {

/// The fact an import stores with its source's event ("cpu-clock:ppp" as
/// perf script names it, or "folded"); its stacks are under
/// db::stack_event_name of it.
inline constexpr const char* kProfileEventFact = "profile.event";

/// `format` is "folded" or "perf". Throws naming the file and line of what
/// cannot be read.
db::RunData import_profile(const std::string& file, const std::string& format,
                           const std::string& db_path, const std::string& label = "",
                           const PerfScriptFilter& filter = {});

}  // namespace pathscope::capture
