#include "db/queries.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "db/schema.h"
#include "db/table_sql.h"

namespace pathscope::db {

namespace {

const std::string& run_columns() {
    static const std::string cols = select_list(tables::runs());
    return cols;
}

RunInfo read_run(const Statement& s) {
    RunInfo r = read_row(s, tables::runs());
    // A read-only reader cannot mark a dead capture's run; it shows it as
    // the next read-write open will store it.
    if (r.status == "running" && capture_process_gone(r.host, r.pid)) {
        r.status = "aborted";
        if (r.note.empty()) r.note = "the capture process ended without closing the run (killed?)";
    }
    return r;
}

}  // namespace

std::vector<RunInfo> list_runs(const Database& db) {
    Statement s = db.prepare("SELECT " + run_columns() + " FROM runs ORDER BY id");
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
        Statement s = db.prepare("SELECT " + run_columns() + " FROM runs WHERE id = ?1");
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
    Statement s = db.prepare("SELECT " + run_columns() +
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
        Statement s = db.prepare("SELECT " + run_columns() +
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

int64_t data_version(const Database& db) { return db.scalar("PRAGMA data_version"); }

RunData load_run(const Database& db, int64_t id) {
    RunData d;
    {
        Statement s = db.prepare("SELECT " + run_columns() + " FROM runs WHERE id = ?1");
        s.bind(1, id);
        if (!s.step()) throw DbError(db.path() + ": no run with id " + std::to_string(id));
        d.info = read_run(s);
    }
    Batch& b = d.rows;
    // Every row of `t` of this run, in `order`, read column by column.
    auto rows = [&](const auto& t, const char* order, auto& out) {
        Statement s = db.prepare("SELECT " + select_list(t) + " FROM " + t.name +
                                 " WHERE run_id = ?1 ORDER BY " + order);
        s.bind(1, id);
        while (s.step()) out.push_back(read_row(s, t));
    };
    rows(tables::trials(), "trial", b.trials);
    rows(tables::intervals(), "trial, seq", b.intervals);
    rows(tables::stage_counters(), "trial, seq, ord", b.stages);
    rows(tables::edge_counters(), "trial, seq, from_stage, to_stage", b.edges);
    rows(tables::queue_counters(), "trial, seq, port, dir, queue", b.queues);
    rows(tables::drops(), "trial, path, packets DESC, reason", b.drops);
    rows(tables::histograms(), "trial, kind, subject", b.histograms);
    {
        std::map<std::tuple<int, std::string, std::string>, size_t> index;
        for (size_t i = 0; i < b.histograms.size(); ++i)
            index[{b.histograms[i].trial, b.histograms[i].kind, b.histograms[i].subject}] = i;
        std::vector<BucketRow> buckets;
        rows(tables::histogram_buckets(), "trial, kind, subject, bucket", buckets);
        for (const auto& k : buckets)
            if (auto it = index.find({k.trial, k.kind, k.subject}); it != index.end())
                b.histograms[it->second].buckets.emplace_back(k.bucket, k.count);
    }
    rows(tables::perf_counters(), "trial, event", b.perf);
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
        std::vector<SampleRow> samples;
        rows(tables::stack_samples(), "trial, seq, event, weight DESC", samples);
        for (const auto& sample : samples) {
            // Older stores name sampled CPU time by its source ("samples").
            StackRow row{sample.trial, stack_event_name(sample.event), {}, sample.weight,
                         sample.seq};
            for (int64_t n = sample.stack; n != 0;) {
                auto it = nodes.find(n);
                if (it == nodes.end()) break;
                row.frames.push_back(it->second.second);
                n = it->second.first;
            }
            std::reverse(row.frames.begin(), row.frames.end());
            b.stacks.push_back(std::move(row));
        }
    }
    rows(tables::packet_traces(), "trial, seq", b.traces);
    rows(tables::facts(), "key", b.facts);
    rows(tables::trial_events(), "trial, name", b.events);
    return d;
}

}  // namespace pathscope::db
