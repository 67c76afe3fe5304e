// The text formats of other profilers that `pathscope import` reads:
// FlameGraph's folded stacks and `perf script` output. Frames are named as
// the capture's symbolizer names them, so that an imported profile and a
// capture of the same code list a function once.
#pragma once

#include <istream>
#include <string>

#include "analysis/trees/flame_tree.h"

namespace pathscope::capture {

/// Folded stacks, one "frame;frame;frame WEIGHT" a line (FlameGraph's
/// format). Throws naming `source` and the line for a line without a weight.
analysis::FlameTree parse_folded(std::istream& in, const std::string& source);

/// Which samples of a `perf script` text to keep ("": all).
struct PerfScriptFilter {
    std::string comm;  ///< the command name, as perf script prints it
    std::string tid;   ///< the thread id
};

/// `perf script` output (samples with call chains): each sample weighs 1,
/// its stack runs from the command name down to the sampled function.
/// Symbols are compacted (compact_symbol); a frame without one is named by
/// its module (module_frame). `event`, when given, receives the samples'
/// event as the headers name it ("cpu-clock:ppp"; "" when they do not).
/// Throws naming `source` when nothing usable is in it, or when the kept
/// samples are of more than one event.
analysis::FlameTree parse_perf_script(std::istream& in, const std::string& source,
                                      const PerfScriptFilter& filter = {},
                                      std::string* event = nullptr);

}  // namespace pathscope::capture
