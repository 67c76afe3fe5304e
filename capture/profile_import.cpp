#include "capture/profile_import.h"

#include <fstream>
#include <stdexcept>

#include "capture/profile_text.h"
#include "capture/recorder.h"

namespace pathscope::capture {

db::RunData import_profile(const std::string& file, const std::string& format,
                           const std::string& db_path, const std::string& label,
                           const PerfScriptFilter& filter) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot open '" + file + "'");
    // The source's own event is kept as a fact; the stacks go under the
    // name every source of sampled CPU time shares, so that a report lists
    // an imported function and a captured one as one. Folded stacks say
    // nothing of their event: they are taken as CPU time, as FlameGraph's are.
    std::string event = "folded";
    const analysis::FlameTree tree = format == "perf"
                                         ? parse_perf_script(in, file, filter, &event)
                                         : parse_folded(in, file);
    const std::string stack_event =
        format == "perf" && !event.empty() ? db::stack_event_name(event) : db::kCpuTimeEvent;
    db::Batch rows;
    double total = 0;
    for (size_t i = 1; i < tree.size(); ++i) {
        const double w = tree.self(i);
        if (w <= 0) continue;
        db::StackRow s;
        s.event = stack_event;
        s.weight = static_cast<uint64_t>(w + 0.5);
        for (int n = static_cast<int>(i); n > 0; n = tree.parent(n))
            s.frames.insert(s.frames.begin(), db::Frame{tree.name(n), ""});
        rows.stacks.push_back(std::move(s));
        total += w;
    }
    rows.facts.push_back({"profile.format", format});
    rows.facts.push_back({kProfileEventFact, event.empty() ? "not named in the text" : event});
    rows.facts.push_back({"profile.samples", std::to_string(static_cast<uint64_t>(total))});
    rows.facts.push_back({"profile.stacks", std::to_string(rows.stacks.size())});
    if (!filter.comm.empty()) rows.facts.push_back({"profile.comm", filter.comm});
    if (!filter.tid.empty()) rows.facts.push_back({"profile.tid", filter.tid});

    db::RunData run = store_import(format + "-import", file, label, std::move(rows), db_path);
    return run;
}

}  // namespace pathscope::capture
