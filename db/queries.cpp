#include "db/queries.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "db/schema.h"
#include "db/table_sql.h"
#include "db/worker_rows.h"

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

/// Reads the frames of the stacks `samples` point to into d.stack_index
/// (one node per stack of the store, parents first) and adds the samples'
/// rows; with opt.expand_stacks each row also gets its frames, root first.
/// The stacks table as (parent, frame) by id, read in one scan, when it is
/// not much larger than what a run needs (ids are dense: the table only
/// grows); empty otherwise, and the caller asks for what it needs instead.
std::vector<std::pair<int64_t, int64_t>> all_stacks(const Database& db, size_t needed) {
    const int64_t top = db.scalar("SELECT max(id) FROM stacks");
    std::vector<std::pair<int64_t, int64_t>> out;
    if (top <= 0 || static_cast<size_t>(top) > std::max<size_t>(4'000'000, 16 * needed)) return out;
    out.assign(static_cast<size_t>(top) + 1, {-1, 0});
    Statement st = db.prepare("SELECT id, parent, frame FROM stacks");
    while (st.step()) {
        const int64_t id = st.i64(0);
        if (id > 0 && id <= top) out[static_cast<size_t>(id)] = {st.i64(1), st.i64(2)};
    }
    return out;
}

/// Reads the sampled stacks of run `id` that match `where` into d's rows,
/// each pointing into d.stack_index (every stack they reach, parents first,
/// with its frame); with opt.expand_stacks each row also gets its frames,
/// root first. Sample rows are read column by column in one pass: a long
/// profile has a million of them.
void read_stacks(const Database& db, int64_t id, const std::string& where,
                 const LoadOptions& opt, RunData& d) {
    std::vector<int64_t> leaf;  // per row, its stack's store id
    {
        Statement st = db.prepare("SELECT trial, seq, event, stack, weight FROM stack_samples "
                                  "WHERE run_id = ?1 AND " + where +
                                  " ORDER BY trial, seq, event, weight DESC");
        st.bind(1, id);
        std::string source, event;  // the last event read, and its name
        while (st.step()) {
            StackRow row;
            row.trial = static_cast<int>(st.i64(0));
            row.seq = static_cast<int>(st.i64(1));
            std::string text = st.text(2);
            if (source != text) {
                source = std::move(text);
                event = stack_event_name(source);  // older stores: "samples", "perf::cpu-clock"
            }
            row.event = event;
            leaf.push_back(st.i64(3));
            row.weight = st.u64(4);
            d.rows.stacks.push_back(std::move(row));
        }
    }
    if (leaf.empty()) return;
    // Every stack the rows reach, by store id: from one scan of the table,
    // or (a store far larger than this run) by walking up from the leaves.
    std::vector<int64_t> distinct = leaf;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const auto table = all_stacks(db, distinct.size());
    std::unordered_map<int64_t, std::pair<int64_t, int64_t>> fetched;  // when not scanned
    if (table.empty()) {
        Statement st = db.prepare(
            "WITH RECURSIVE up(id) AS (SELECT DISTINCT stack FROM stack_samples WHERE run_id = "
            "?1 AND " + where + " UNION SELECT s.parent FROM stacks s JOIN up ON s.id = up.id "
            "WHERE s.parent != 0) SELECT s.id, s.parent, s.frame FROM up JOIN stacks s ON s.id "
            "= up.id");
        st.bind(1, id);
        while (st.step()) fetched.emplace(st.i64(0), std::pair(st.i64(1), st.i64(2)));
    }
    const auto lookup = [&](int64_t sid) -> std::pair<int64_t, int64_t> {
        if (!table.empty())
            return sid > 0 && static_cast<size_t>(sid) < table.size() ? table[static_cast<size_t>(sid)]
                                                                      : std::pair<int64_t, int64_t>{-1, 0};
        auto it = fetched.find(sid);
        return it == fetched.end() ? std::pair<int64_t, int64_t>{-1, 0} : it->second;
    };
    StackIndex& index = d.stack_index;
    std::unordered_map<int64_t, int32_t> node_of;   // store id -> index node
    std::unordered_map<int64_t, int32_t> frame_of;  // store frame id -> index frame
    std::vector<int64_t> frame_ids;                 // per index frame, its store id
    std::vector<int64_t> path;
    const auto place = [&](int64_t sid) -> int32_t {
        // Up to the nearest stack already placed, then down, parents first.
        path.clear();
        int32_t at = -1;
        for (int64_t n = sid; n > 0;) {
            if (auto it = node_of.find(n); it != node_of.end()) {
                at = it->second;
                break;
            }
            const auto [parent, frame] = lookup(n);
            if (parent < 0) return -1;  // a damaged store: the stack is not there
            // A damaged store whose parents form a cycle: a walk longer
            // than the stacks there are has come round again.
            if (path.size() > std::max(table.size(), fetched.size())) return -1;
            path.push_back(n);
            n = parent;
        }
        for (auto it = path.rbegin(); it != path.rend(); ++it) {
            const int64_t frame = lookup(*it).second;
            auto [f, fresh] = frame_of.try_emplace(frame, static_cast<int32_t>(frame_ids.size()));
            if (fresh) frame_ids.push_back(frame);
            const int32_t node = static_cast<int32_t>(index.nodes.size());
            index.nodes.push_back(StackIndex::Node{at, f->second});
            index.store_ids.push_back(*it);
            node_of.emplace(*it, node);
            at = node;
        }
        return at;
    };
    std::unordered_map<int64_t, int32_t> leaf_node;
    for (int64_t sid : distinct) leaf_node.emplace(sid, place(sid));
    {
        // The frames' names, in one scan of the (small) frames table.
        index.frames.resize(frame_ids.size());
        Statement st = db.prepare("SELECT id, symbol, module FROM frames");
        while (st.step())
            if (auto it = frame_of.find(st.i64(0)); it != frame_of.end())
                index.frames[static_cast<size_t>(it->second)] = Frame{st.text(1), st.text(2)};
    }
    for (size_t r = 0; r < leaf.size(); ++r) {
        StackRow& row = d.rows.stacks[d.rows.stacks.size() - leaf.size() + r];
        row.node = leaf_node[leaf[r]];
        if (!opt.expand_stacks) continue;
        for (int32_t n = row.node; n >= 0; n = index.nodes[static_cast<size_t>(n)].parent)
            row.frames.push_back(index.frames[static_cast<size_t>(index.nodes[static_cast<size_t>(n)].frame)]);
        std::reverse(row.frames.begin(), row.frames.end());
    }
}

/// Adds `more`'s frames and nodes to `into` (those it lacks, by store id)
/// and returns where each of `more`'s nodes is in `into`.
std::vector<int32_t> join_stack_index(StackIndex& into, const StackIndex& more) {
    std::unordered_map<int64_t, int32_t> node_of;
    for (size_t n = 0; n < into.store_ids.size(); ++n)
        node_of.emplace(into.store_ids[n], static_cast<int32_t>(n));
    std::map<std::pair<std::string, std::string>, int32_t> frame_of;
    for (size_t f = 0; f < into.frames.size(); ++f)
        frame_of.emplace(std::pair(into.frames[f].symbol, into.frames[f].module), static_cast<int32_t>(f));
    std::vector<int32_t> moved(more.nodes.size(), -1);
    for (size_t n = 0; n < more.nodes.size(); ++n) {  // parents come first
        if (auto it = node_of.find(more.store_ids[n]); it != node_of.end()) {
            moved[n] = it->second;
            continue;
        }
        const Frame& f = more.frames[static_cast<size_t>(more.nodes[n].frame)];
        auto [at, fresh] = frame_of.try_emplace(std::pair(f.symbol, f.module),
                                                static_cast<int32_t>(into.frames.size()));
        if (fresh) into.frames.push_back(f);
        const int32_t parent = more.nodes[n].parent;
        moved[n] = static_cast<int32_t>(into.nodes.size());
        into.nodes.push_back(StackIndex::Node{parent < 0 ? -1 : moved[static_cast<size_t>(parent)], at->second});
        into.store_ids.push_back(more.store_ids[n]);
        node_of.emplace(more.store_ids[n], moved[n]);
    }
    return moved;
}

}  // namespace

std::vector<RunInfo> list_runs(const Database& db) {
    Statement s = db.prepare("SELECT " + run_columns() + " FROM runs ORDER BY id");
    std::vector<RunInfo> out;
    while (s.step()) out.push_back(read_run(s));
    return out;
}

std::vector<RunInfo> list_runs_brief(const Database& db, int64_t after,
                                     const std::vector<int64_t>& also) {
    static const std::string cols = [] {
        std::string c = run_columns();
        const std::string text = sql_name("scenario_text");
        if (const auto at = c.find(text); at != std::string::npos) c.replace(at, text.size(), "''");
        return c;
    }();
    std::string ids;
    for (int64_t id : also) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    Statement s = db.prepare("SELECT " + cols + " FROM runs WHERE id > ?1" +
                             (ids.empty() ? "" : " OR id IN (" + ids + ")") + " ORDER BY id");
    s.bind(1, after);
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

RunRef parse_run_ref(const std::string& ref) {
    const auto is_number = [](const std::string& s) {
        return !s.empty() && s.size() < 18 && s.find_first_not_of("0123456789") == std::string::npos;
    };
    RunRef r;
    if (is_number(ref)) {
        r.id = std::stoll(ref);
        if (r.id > 0) return r;
    }
    // label@N: the N-th run with that label, oldest first.
    r.label = ref;
    if (const auto at = ref.rfind('@'); at != std::string::npos && is_number(ref.substr(at + 1))) {
        r.label = ref.substr(0, at);
        r.nth = std::stoull(ref.substr(at + 1));
        if (r.nth == 0) throw DbError(ref + ": runs with a label count from @1");
    }
    return r;
}

ptrdiff_t pick_run(const std::vector<RunInfo>& runs, const RunRef& ref) {
    ptrdiff_t latest = -1;
    size_t seen = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
        if (ref.id) {
            if (runs[i].id == ref.id) return static_cast<ptrdiff_t>(i);
            continue;
        }
        if (runs[i].label != ref.label) continue;
        if (++seen == ref.nth) return static_cast<ptrdiff_t>(i);
        latest = static_cast<ptrdiff_t>(i);
    }
    return ref.nth ? -1 : latest;
}

RunInfo find_run(const Database& db, const std::string& ref, std::string* note) {
    const std::string list_hint = " (pathscope list --db " + db.path() + " shows them)";
    const RunRef r = parse_run_ref(ref);
    Statement s = db.prepare("SELECT " + run_columns() + " FROM runs WHERE " +
                             (r.id ? "id" : "label") + " = ?1 ORDER BY id");
    if (r.id)
        s.bind(1, r.id);
    else
        s.bind(1, r.label);
    std::vector<RunInfo> found;
    while (s.step()) found.push_back(read_run(s));
    const ptrdiff_t at = pick_run(found, r);
    if (at >= 0) {
        // A label means its latest run; say so when it names several.
        if (!r.id && !r.nth && found.size() > 1 && note) {
            std::string ids;
            for (const auto& x : found) ids += (ids.empty() ? "" : ", ") + std::to_string(x.id);
            *note = "label '" + r.label + "' names runs " + ids + "; taking the latest, run " +
                    std::to_string(found.back().id) + " (" + r.label +
                    "@1 or an id picks another)";
        }
        return found[static_cast<size_t>(at)];
    }
    if (r.id) throw DbError(db.path() + ": no run with id " + ref + list_hint);
    if (found.empty())
        throw DbError(db.path() + ": no run with id or label '" + r.label + "'" + list_hint);
    throw DbError(db.path() + ": label '" + r.label + "' names " + std::to_string(found.size()) +
                  " run(s), so there is no " + ref + list_hint);
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

int64_t data_version(const Database& db) {
    return db.scalar(db.backend() == Backend::postgres ? "SELECT last_value FROM pathscope_changes"
                                                       : "PRAGMA data_version");
}

RunData load_run(const Database& db, int64_t id, const LoadOptions& opt) {
    RunCursor fresh;
    return load_run_since(db, id, fresh, opt).data;
}

RunDelta load_run_since(const Database& db, int64_t id, RunCursor& c, const LoadOptions& opt) {
    const ReadSnapshot snapshot(db);
    RunDelta delta;
    RunData& d = delta.data;
    {
        Statement s = db.prepare("SELECT " + run_columns() + " FROM runs WHERE id = ?1");
        s.bind(1, id);
        if (!s.step()) throw DbError(db.path() + ": no run with id " + std::to_string(id));
        d.info = read_run(s);
    }
    Batch& b = d.rows;
    // What lies past the cursor: rows of an interval after the last one
    // read, totals of a trial after the last one completed.
    const std::string interval_rows =
        "(trial > " + std::to_string(c.interval_trial) + " OR (trial = " +
        std::to_string(c.interval_trial) + " AND seq > " + std::to_string(c.interval_seq) + "))";
    const std::string trial_rows = "trial > " + std::to_string(c.trials_done);
    const std::string either =
        "((seq >= 0 AND " + interval_rows + ") OR (seq < 0 AND " + trial_rows + "))";
    // The rows of `t` of this run that match `where`, in `order`, read
    // column by column.
    auto rows = [&](const auto& t, const std::string& where, const char* order, auto& out) {
        Statement s = db.prepare("SELECT " + select_list(t) + " FROM " + t.name +
                                 " WHERE run_id = ?1 AND " + where + " ORDER BY " + order);
        s.bind(1, id);
        while (s.step()) out.push_back(read_row(s, t));
    };
    rows(tables::trials(), trial_rows, "trial", b.trials);
    rows(tables::intervals(), interval_rows, "trial, seq", b.intervals);
    rows(tables::stage_counters(), either, "trial, seq, ord, worker", b.stages);
    rows(tables::edge_counters(), either, "trial, seq, from_stage, to_stage, worker", b.edges);
    rows(tables::queue_counters(), either, "trial, seq, port, dir, queue", b.queues);
    rows(tables::drops(), trial_rows, "trial, path, packets DESC, reason", b.drops);
    rows(tables::histograms(), trial_rows, "trial, kind, subject, worker", b.histograms);
    {
        std::map<std::tuple<int, std::string, std::string, int>, size_t> index;
        for (size_t i = 0; i < b.histograms.size(); ++i)
            index[{b.histograms[i].trial, b.histograms[i].kind, b.histograms[i].subject,
                   b.histograms[i].worker}] = i;
        std::vector<BucketRow> buckets;
        rows(tables::histogram_buckets(), trial_rows, "trial, kind, subject, worker, bucket",
             buckets);
        for (const auto& k : buckets)
            if (auto it = index.find({k.trial, k.kind, k.subject, k.worker}); it != index.end())
                b.histograms[it->second].buckets.emplace_back(k.bucket, k.count);
    }
    rows(tables::perf_counters(), trial_rows, "trial, event", b.perf);
    if (opt.stacks_and_traces) {
        // A trial that completed since is read whole: its last samples were
        // added to its last interval's rows when it ended.
        std::string stack_rows = either;
        for (const auto& t : b.trials) {
            delta.replace_stack_trials.push_back(t.trial);
            stack_rows += " OR trial = " + std::to_string(t.trial);
        }
        read_stacks(db, id, "(" + stack_rows + ")", opt, d);
        rows(tables::packet_traces(),
             "(trial > " + std::to_string(c.trace_trial) + " OR (trial = " +
                 std::to_string(c.trace_trial) + " AND seq > " + std::to_string(c.trace_seq) + "))",
             "trial, seq", b.traces);
    }
    rows(tables::facts(), "TRUE", "key", b.facts);
    rows(tables::trial_events(), trial_rows, "trial, name", b.events);
    rows(tables::worker_trials(), trial_rows, "trial, worker", b.worker_trials);
    rows(tables::trial_threads(), trial_rows, "trial, role, idx", b.threads);
    gather_worker_rows(b);

    c.started = true;
    for (const auto& i : b.intervals)
        if (std::pair(i.trial, i.seq) > std::pair(c.interval_trial, c.interval_seq))
            c.interval_trial = i.trial, c.interval_seq = i.seq;
    for (const auto& t : b.trials) c.trials_done = std::max(c.trials_done, t.trial);
    for (const auto& t : b.traces)
        if (std::pair<int, int64_t>(t.trial, t.seq) > std::pair(c.trace_trial, c.trace_seq))
            c.trace_trial = t.trial, c.trace_seq = t.seq;
    return delta;
}

void merge_run_rows(RunData& into, RunDelta&& delta) {
    RunData& d = delta.data;
    into.info = std::move(d.info);
    into.rows.facts.clear();  // read whole each time
    auto& stacks = into.rows.stacks;
    for (int trial : delta.replace_stack_trials)
        stacks.erase(std::remove_if(stacks.begin(), stacks.end(),
                                    [&](const StackRow& s) { return s.trial == trial; }),
                     stacks.end());
    // The delta's stack nodes joined to the ones read before, by store id.
    const std::vector<int32_t> moved = join_stack_index(into.stack_index, d.stack_index);
    for (auto& s : d.rows.stacks)
        if (s.node >= 0) s.node = moved[static_cast<size_t>(s.node)];
    into.rows.append(std::move(d.rows));
}

}  // namespace pathscope::db
