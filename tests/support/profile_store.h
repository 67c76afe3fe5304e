// A store holding one long sampled run, for the benchmarks and tests of
// loading a large profile: `stacks` distinct call stacks (4 to 23 frames,
// fanning out below three root levels), each sampled in every one of
// `intervals` intervals, so the run has stacks x intervals sample rows.
#pragma once

#include <random>
#include <set>
#include <string>
#include <vector>

#include "db/schema.h"
#include "db/writer.h"

namespace pathscope::test {

/// Writes the run (label `label`) into a new store at `path`; returns its id.
inline int64_t write_profile_store(const std::string& path, const std::string& label,
                                   size_t stacks, int intervals) {
    auto db = db::open_store(path, db::Database::Mode::read_write);
    if (db->backend() == db::Backend::sqlite)
        db->exec("PRAGMA synchronous = OFF");  // a fixture, not a capture
    db::BatchWriter w(*db);
    db::RunInfo info;
    info.label = label;
    info.status = "complete";
    info.trials = 1;
    w.insert_run(info);
    db::Batch b;
    db::TrialRow tr;
    tr.received = 1'000'000;
    tr.seconds = 1;
    b.trials.push_back(tr);
    for (int seq = 0; seq < intervals; ++seq) {
        db::IntervalRow i;
        i.seq = seq;
        i.t = (seq + 1.0) / intervals;
        i.received = tr.received / static_cast<uint64_t>(intervals);
        b.intervals.push_back(i);
    }
    std::mt19937_64 rng(7);
    std::set<std::vector<std::string>> seen;
    while (seen.size() < stacks) {
        std::vector<std::string> frames;
        const int depth = 4 + static_cast<int>(rng() % 20);
        for (int d = 0; d < depth; ++d)
            frames.push_back("ns" + std::to_string(d) + "::function_" +
                             std::to_string(rng() % (d < 3 ? 3 : 40)));
        if (!seen.insert(frames).second) continue;
        db::StackRow row;
        row.event = db::kCpuTimeEvent;
        row.seq = 0;
        row.weight = 1 + rng() % 20;
        for (auto& f : frames) row.frames.push_back({f, "profile"});
        b.stacks.push_back(std::move(row));
    }
    w.write(info.id, b);
    // The other intervals sampled the same stacks.
    for (int seq = 1; seq < intervals; ++seq)
        db->exec("INSERT INTO stack_samples (run_id, trial, seq, event, stack, weight) SELECT "
                 "run_id, trial, " + std::to_string(seq) + ", event, stack, weight FROM "
                 "stack_samples WHERE run_id = " + std::to_string(info.id) + " AND seq = 0");
    return info.id;
}

}  // namespace pathscope::test
