#include "db/queries.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "db/schema.h"

namespace pathscope::db {

namespace {

constexpr const char* kRunColumns =
    "id, uuid, label, kind, status, scenario_path, scenario_text, settings, host, cpu_model, "
    "tsc_hz, engine_version, git_revision, pid, started_at, ended_at, trials, trial_seconds, "
    "interval_seconds, pmu, note, experiment, cell";

RunInfo read_run(const Statement& s) {
    RunInfo r;
    r.id = s.i64(0);
    r.uuid = s.text(1);
    r.label = s.text(2);
    r.kind = s.text(3);
    r.status = s.text(4);
    r.scenario_path = s.text(5);
    r.scenario_text = s.text(6);
    r.settings = s.text(7);
    r.host = s.text(8);
    r.cpu_model = s.text(9);
    r.tsc_hz = s.u64(10);
    r.engine_version = s.text(11);
    r.git_revision = s.text(12);
    r.pid = s.i64(13);
    r.started_at = s.text(14);
    r.ended_at = s.text(15);
    r.trials = static_cast<int>(s.i64(16));
    r.trial_seconds = s.f64(17);
    r.interval_seconds = s.f64(18);
    r.pmu = s.text(19);
    r.note = s.text(20);
    r.experiment = s.text(21);
    r.cell = s.text(22);
    // A read-only reader cannot mark a dead capture's run; it shows it as
    // the next read-write open will store it.
    if (r.status == "running" && capture_process_gone(r.host, r.pid)) {
        r.status = "aborted";
        if (r.note.empty()) r.note = "the capture process ended without closing the run (killed?)";
    }
    return r;
}

std::vector<std::pair<std::string, double>> parse_stage_cycles(const std::string& text) {
    std::vector<std::pair<std::string, double>> out;
    std::istringstream in(text);
    std::string item;
    while (in >> item) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) continue;
        out.emplace_back(item.substr(0, eq), std::stod(item.substr(eq + 1)));
    }
    return out;
}

}  // namespace

std::vector<RunInfo> list_runs(const Database& db) {
    Statement s = db.prepare(std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY id");
    std::vector<RunInfo> out;
    while (s.step()) out.push_back(read_run(s));
    return out;
}

std::map<int64_t, int> trials_recorded(const Database& db) {
    std::map<int64_t, int> out;
    Statement s = db.prepare("SELECT run_id, count(*) FROM trials GROUP BY run_id");
    while (s.step()) out[s.i64(0)] = static_cast<int>(s.i64(1));
    return out;
}

RunInfo find_run(const Database& db, const std::string& ref, std::string* note) {
    const auto is_number = [](const std::string& s) {
        return !s.empty() && s.size() < 18 && s.find_first_not_of("0123456789") == std::string::npos;
    };
    const std::string list_hint = " (pathscope list --db " + db.path() + " shows them)";
    if (is_number(ref)) {
        Statement s = db.prepare(std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?1");
        s.bind(1, static_cast<int64_t>(std::stoll(ref)));
        if (s.step()) return read_run(s);
        throw DbError(db.path() + ": no run with id " + ref + list_hint);
    }
    // label@N: the N-th run with that label, oldest first.
    std::string label = ref;
    size_t nth = 0;
    if (const auto at = ref.rfind('@'); at != std::string::npos && is_number(ref.substr(at + 1))) {
        label = ref.substr(0, at);
        nth = std::stoull(ref.substr(at + 1));
        if (nth == 0) throw DbError(ref + ": runs with a label count from @1");
    }
    Statement s = db.prepare(std::string("SELECT ") + kRunColumns +
                             " FROM runs WHERE label = ?1 ORDER BY id");
    s.bind(1, label);
    std::vector<RunInfo> found;
    while (s.step()) found.push_back(read_run(s));
    if (found.empty())
        throw DbError(db.path() + ": no run with id or label '" + label + "'" + list_hint);
    if (nth > found.size())
        throw DbError(db.path() + ": label '" + label + "' names " + std::to_string(found.size()) +
                      " run(s), so there is no " + ref + list_hint);
    if (nth) return found[nth - 1];
    // A label means its latest run; say so when it names several.
    if (found.size() > 1 && note) {
        std::string ids;
        for (const auto& r : found) ids += (ids.empty() ? "" : ", ") + std::to_string(r.id);
        *note = "label '" + label + "' names runs " + ids + "; taking the latest, run " +
                std::to_string(found.back().id) + " (" + label + "@1 or an id picks another)";
    }
    return found.back();
}

std::vector<RunInfo> experiment_runs(const Database& db, const std::string& ref) {
    auto runs_of = [&](const std::string& experiment) {
        Statement s = db.prepare(std::string("SELECT ") + kRunColumns +
                                 " FROM runs WHERE experiment = ?1 ORDER BY id");
        s.bind(1, experiment);
        std::vector<RunInfo> out;
        while (s.step()) out.push_back(read_run(s));
        return out;
    };
    if (ref.size() >= 4 && ref.find_first_not_of("0123456789abcdef") == std::string::npos) {
        Statement s = db.prepare(
            "SELECT DISTINCT experiment FROM runs WHERE experiment <> '' AND "
            "substr(experiment, 1, length(?1)) = ?1");
        s.bind(1, ref);
        std::vector<std::string> ids;
        while (s.step()) ids.push_back(s.text(0));
        if (ids.size() > 1)
            throw DbError(db.path() + ": '" + ref + "' begins " + std::to_string(ids.size()) +
                          " experiments' ids; give more of it");
        if (ids.size() == 1) return runs_of(ids[0]);
    }
    RunInfo run;
    try {
        run = find_run(db, ref);
    } catch (const DbError&) {
        throw DbError(db.path() + ": no experiment or run '" + ref +
                      "' (pathscope list --db " + db.path() + " shows experiments and their runs)");
    }
    if (run.experiment.empty())
        throw DbError(db.path() + ": run " + std::to_string(run.id) +
                      " is not part of an experiment (a scenario with a [matrix] makes one)");
    return runs_of(run.experiment);
}

RunData load_run(const Database& db, int64_t id) {
    RunData d;
    {
        Statement s = db.prepare(std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?1");
        s.bind(1, id);
        if (!s.step()) throw DbError(db.path() + ": no run with id " + std::to_string(id));
        d.info = read_run(s);
    }
    Batch& b = d.rows;
    auto query = [&](const char* sql) {
        Statement s = db.prepare(sql);
        s.bind(1, id);
        return s;
    };
    for (Statement s = query("SELECT trial, seconds, received, delivered, forwarded, replied, "
                             "dropped, sent, rx_pps, forwarded_pps, delivered_pps, "
                             "window_received, walks, idle_walks, sends, sent_pps, window_sent, "
                             "route_lookups, source_selections FROM trials "
                             "WHERE run_id = ?1 ORDER BY trial");
         s.step();)
        b.trials.push_back({static_cast<int>(s.i64(0)), s.f64(1), s.u64(2), s.u64(3), s.u64(4),
                            s.u64(5), s.u64(6), s.u64(7), s.f64(8), s.f64(9), s.f64(10),
                            s.u64(11), s.u64(12), s.u64(13), s.u64(14), s.f64(15), s.u64(16),
                            s.u64(17), s.u64(18)});
    for (Statement s = query("SELECT trial, seq, t, received, delivered, forwarded, replied, "
                             "dropped, sent FROM intervals WHERE run_id = ?1 ORDER BY trial, seq");
         s.step();)
        b.intervals.push_back({static_cast<int>(s.i64(0)), static_cast<int>(s.i64(1)), s.f64(2),
                               s.u64(3), s.u64(4), s.u64(5), s.u64(6), s.u64(7), s.u64(8)});
    for (Statement s = query("SELECT trial, seq, stage, ord, calls, packets, cycles, "
                             "idle_calls, idle_cycles FROM stage_counters WHERE run_id = ?1 "
                             "ORDER BY trial, seq, ord");
         s.step();)
        b.stages.push_back({static_cast<int>(s.i64(0)), static_cast<int>(s.i64(1)), s.text(2),
                            static_cast<int>(s.i64(3)), s.u64(4), s.u64(5), s.u64(6), s.u64(7),
                            s.u64(8)});
    for (Statement s = query("SELECT trial, seq, port, queue, dir, packets, bytes, bursts, "
                             "empty_polls, full FROM queue_counters WHERE run_id = ?1 "
                             "ORDER BY trial, seq, port, dir, queue");
         s.step();)
        b.queues.push_back({static_cast<int>(s.i64(0)), static_cast<int>(s.i64(1)), s.text(2),
                            static_cast<int>(s.i64(3)), s.text(4), s.u64(5), s.u64(6), s.u64(7),
                            s.u64(8), s.u64(9)});
    for (Statement s = query("SELECT trial, reason, stage, path, packets FROM drops WHERE "
                             "run_id = ?1 ORDER BY trial, path, packets DESC, reason");
         s.step();)
        b.drops.push_back({static_cast<int>(s.i64(0)), s.text(1), s.text(2), s.text(3), s.u64(4)});
    {
        std::map<std::tuple<int, std::string, std::string>, size_t> index;
        for (Statement s = query("SELECT trial, kind, subject, unit, count, sum, min, max FROM "
                                 "histograms WHERE run_id = ?1 ORDER BY trial, kind, subject");
             s.step();) {
            HistogramRow h{static_cast<int>(s.i64(0)),
                           s.text(1),
                           s.text(2),
                           s.text(3),
                           s.u64(4),
                           s.u64(5),
                           s.u64(6),
                           s.u64(7),
                           {}};
            index[{h.trial, h.kind, h.subject}] = b.histograms.size();
            b.histograms.push_back(std::move(h));
        }
        for (Statement s = query("SELECT trial, kind, subject, bucket, count FROM "
                                 "histogram_buckets WHERE run_id = ?1 ORDER BY trial, kind, "
                                 "subject, bucket");
             s.step();) {
            auto it = index.find({static_cast<int>(s.i64(0)), s.text(1), s.text(2)});
            if (it != index.end())
                b.histograms[it->second].buckets.emplace_back(static_cast<uint32_t>(s.i64(3)),
                                                              s.u64(4));
        }
    }
    for (Statement s = query("SELECT trial, event, supported, value, time_enabled, "
                             "time_running, note FROM perf_counters WHERE run_id = ?1 "
                             "ORDER BY trial, event");
         s.step();)
        b.perf.push_back({static_cast<int>(s.i64(0)), s.text(1), s.i64(2) != 0, s.u64(3), s.u64(4),
                          s.u64(5), s.text(6)});
    {
        // Stacks are interned as (parent, leaf frame): rebuild each sampled
        // stack's frame list by walking up to the root.
        std::map<int64_t, std::pair<int64_t, Frame>> nodes;
        Statement st = db.prepare(
            "WITH RECURSIVE up(id) AS (SELECT DISTINCT stack FROM stack_samples WHERE run_id = "
            "?1 UNION SELECT s.parent FROM stacks s JOIN up ON s.id = up.id WHERE s.parent != 0) "
            "SELECT s.id, s.parent, f.symbol, f.module FROM up JOIN stacks s ON s.id = up.id "
            "JOIN frames f ON f.id = s.frame");
        st.bind(1, id);
        while (st.step()) nodes[st.i64(0)] = {st.i64(1), Frame{st.text(2), st.text(3)}};
        for (Statement s = query("SELECT trial, event, stack, weight, seq FROM stack_samples "
                                 "WHERE run_id = ?1 ORDER BY trial, seq, event, weight DESC");
             s.step();) {
            StackRow row{static_cast<int>(s.i64(0)), s.text(1), {}, s.u64(3),
                         static_cast<int>(s.i64(4))};
            for (int64_t n = s.i64(2); n != 0;) {
                auto it = nodes.find(n);
                if (it == nodes.end()) break;
                row.frames.push_back(it->second.second);
                n = it->second.first;
            }
            std::reverse(row.frames.begin(), row.frames.end());
            b.stacks.push_back(std::move(row));
        }
    }
    for (Statement s =
             query("SELECT trial, seq, t, port, wire_len, data, stage_cycles, outcome FROM "
                   "packet_traces WHERE run_id = ?1 ORDER BY trial, seq");
         s.step();)
        b.traces.push_back({static_cast<int>(s.i64(0)), s.i64(1), s.f64(2), s.text(3),
                            static_cast<uint32_t>(s.i64(4)), s.blob(5),
                            parse_stage_cycles(s.text(6)), s.text(7)});
    for (Statement s = query("SELECT key, value FROM facts WHERE run_id = ?1 ORDER BY key");
         s.step();)
        b.facts.emplace_back(s.text(0), s.text(1));
    return d;
}

}  // namespace pathscope::db
