#include "capture/profile_import.h"

#include <fstream>
#include <stdexcept>

#include "analysis/flame_tree.h"
#include "capture/recorder.h"
#include "db/writer.h"

namespace pathscope::capture {

db::RunData import_profile(const std::string& file, const std::string& format,
                           const std::string& db_path, const std::string& label) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot open '" + file + "'");
    const analysis::FlameTree tree = format == "perf" ? analysis::parse_perf_script(in, file)
                                                      : analysis::parse_folded(in, file);
    db::RunData run;
    run.info = machine_run_info();
    run.info.kind = format + "-import";
    run.info.label = label.empty() ? file.substr(file.find_last_of('/') + 1) : label;
    run.info.scenario_path = file;
    run.info.trials = 1;
    double total = 0;
    for (size_t i = 1; i < tree.size(); ++i) {
        const double w = tree.self(i);
        if (w <= 0) continue;
        db::StackRow s;
        s.event = "samples";
        s.weight = static_cast<uint64_t>(w + 0.5);
        for (int n = static_cast<int>(i); n > 0; n = tree.parent(n))
            s.frames.insert(s.frames.begin(), db::Frame{tree.name(n), ""});
        run.rows.stacks.push_back(std::move(s));
        total += w;
    }
    run.rows.facts.push_back({"profile.format", format});
    run.rows.facts.push_back({"profile.samples", std::to_string(static_cast<uint64_t>(total))});
    run.rows.facts.push_back({"profile.stacks", std::to_string(run.rows.stacks.size())});

    db::RunWriter writer(db_path, run.info);
    run.info = writer.run();
    writer.submit(db::Batch(run.rows));
    writer.finish("complete");
    run.info.status = "complete";
    run.info.ended_at = db::utc_now();
    return run;
}

}  // namespace pathscope::capture
