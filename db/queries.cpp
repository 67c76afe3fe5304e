#include "db/queries.h"

#include <algorithm>
#include <map>
#include <stdexcept>
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

/// Stacks of the store as (parent, frame) by id: the whole table, or the
/// ones asked for and their ancestors. A stack not there is (-1, 0).
struct StackLinks {
    std::vector<std::pair<int64_t, int64_t>> table;
    std::unordered_map<int64_t, std::pair<int64_t, int64_t>> fetched;
    std::pair<int64_t, int64_t> operator()(int64_t sid) const {
        if (!table.empty())
            return sid > 0 && static_cast<size_t>(sid) < table.size() ? table[static_cast<size_t>(sid)]
                                                                      : std::pair<int64_t, int64_t>{-1, 0};
        auto it = fetched.find(sid);
        return it == fetched.end() ? std::pair<int64_t, int64_t>{-1, 0} : it->second;
    }
    size_t size() const { return std::max(table.size(), fetched.size()); }
};

/// The stacks `leaves` (store ids) reach. A few are asked for by id (a
/// live view's new stacks); many from one scan of the stacks table, or,
/// in a store far larger than this run, by walking up from the leaves of
/// the run's rows that match `where`.
StackLinks read_links(const Database& db, int64_t id, const std::string& where,
                      const std::vector<int64_t>& leaves) {
    constexpr size_t kAskedById = 1000;
    StackLinks links;
    std::string from;
    if (leaves.size() <= kAskedById) {
        for (int64_t sid : leaves) from += (from.empty() ? "" : ", ") + std::to_string(sid);
        from = "SELECT id FROM stacks WHERE id IN (" + from + ")";
    } else {
        links.table = all_stacks(db, leaves.size());
        if (!links.table.empty()) return links;
        from = "SELECT DISTINCT stack FROM stack_samples WHERE run_id = " + std::to_string(id) +
               " AND " + where;
    }
    Statement st = db.prepare("WITH RECURSIVE up(id) AS (" + from +
                              " UNION SELECT s.parent FROM stacks s JOIN up ON s.id = up.id "
                              "WHERE s.parent != 0) SELECT s.id, s.parent, s.frame FROM up JOIN "
                              "stacks s ON s.id = up.id");
    while (st.step()) links.fetched.emplace(st.i64(0), std::pair(st.i64(1), st.i64(2)));
    return links;
}

/// Places the stacks `leaves` (store ids) in `placed` (every stack they
/// reach that it lacks, parents first, and the frames' names).
void place_stacks(const Database& db, int64_t id, const std::string& where,
                  const std::vector<int64_t>& leaves, PlacedStacks& placed) {
    const StackLinks links = read_links(db, id, where, leaves);
    StackIndex& index = placed.index;
    const size_t frames_before = index.frames.size();
    std::vector<int64_t> path;
    for (int64_t leaf : leaves) {
        // Up to the nearest stack already placed, then down, parents first.
        path.clear();
        int32_t at = -1;
        bool found = true;
        for (int64_t n = leaf; n > 0;) {
            if (auto it = placed.node_of.find(n); it != placed.node_of.end()) {
                at = it->second;
                break;
            }
            const auto [parent, frame] = links(n);
            // A damaged store: the stack is not there, or its parents form
            // a cycle (a walk longer than the stacks there are).
            if (parent < 0 || path.size() > links.size()) {
                found = false;
                break;
            }
            path.push_back(n);
            n = parent;
        }
        if (!found) continue;
        for (auto it = path.rbegin(); it != path.rend(); ++it) {
            const auto [frame, fresh] = placed.frame_of.try_emplace(
                links(*it).second, static_cast<int32_t>(placed.frame_of.size()));
            if (fresh) index.frames.emplace_back();  // named below
            const int32_t node = static_cast<int32_t>(index.nodes.size());
            index.nodes.push_back(StackIndex::Node{at, frame->second});
            index.store_ids.push_back(*it);
            placed.node_of.emplace(*it, node);
            at = node;
        }
    }
    if (index.frames.size() == frames_before) return;
    // The new frames' names, in one scan of the (small) frames table.
    Statement st = db.prepare("SELECT id, symbol, module FROM frames");
    while (st.step())
        if (auto it = placed.frame_of.find(st.i64(0));
            it != placed.frame_of.end() && static_cast<size_t>(it->second) >= frames_before)
            index.frames[static_cast<size_t>(it->second)] = Frame{st.text(1), st.text(2)};
}

/// Reads the sampled stacks of run `id` that match `where` into d's rows,
/// each pointing into the StackIndex of every stack read with `placed`
/// (d.stack_index gets the stacks and frames new to it); with
/// opt.expand_stacks each row also gets its frames, root first. Sample
/// rows are read column by column in one pass: a long profile has a
/// million of them.
void read_stacks(const Database& db, int64_t id, const std::string& where,
                 const LoadOptions& opt, RunData& d, PlacedStacks& placed) {
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
    StackIndex& index = placed.index;
    const size_t nodes_before = index.nodes.size(), frames_before = index.frames.size();
    std::vector<int64_t> unplaced;
    for (int64_t sid : leaf)
        if (!placed.node_of.contains(sid)) unplaced.push_back(sid);
    if (!unplaced.empty()) {
        std::sort(unplaced.begin(), unplaced.end());
        unplaced.erase(std::unique(unplaced.begin(), unplaced.end()), unplaced.end());
        place_stacks(db, id, where, unplaced, placed);
    }
    for (size_t r = 0; r < leaf.size(); ++r) {
        StackRow& row = d.rows.stacks[d.rows.stacks.size() - leaf.size() + r];
        const auto it = placed.node_of.find(leaf[r]);
        row.node = it == placed.node_of.end() ? -1 : it->second;
        if (!opt.expand_stacks) continue;
        for (int32_t n = row.node; n >= 0; n = index.nodes[static_cast<size_t>(n)].parent)
            row.frames.push_back(index.frames[static_cast<size_t>(index.nodes[static_cast<size_t>(n)].frame)]);
        std::reverse(row.frames.begin(), row.frames.end());
    }
    // What the delta adds to the index.
    d.stack_index.nodes.assign(index.nodes.begin() + static_cast<ptrdiff_t>(nodes_before), index.nodes.end());
    d.stack_index.store_ids.assign(index.store_ids.begin() + static_cast<ptrdiff_t>(nodes_before),
                                   index.store_ids.end());
    d.stack_index.frames.assign(index.frames.begin() + static_cast<ptrdiff_t>(frames_before), index.frames.end());
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
    // Every row past the cursor lies after the lesser of where its interval
    // rows and its trial rows end: said as one range, the store seeks to it
    // in the (run_id, trial, seq, ...) key instead of scanning the run's
    // rows (a million sampled stacks in a long profile).
    const auto after = std::min(std::pair<int64_t, int64_t>(c.interval_trial, c.interval_seq),
                                std::pair<int64_t, int64_t>(c.trials_done, int64_t{1} << 62));
    const std::string past =
        "(trial, seq) > (" + std::to_string(after.first) + ", " + std::to_string(after.second) + ")";
    const std::string either_rows =
        "(seq >= 0 AND " + interval_rows + ") OR (seq < 0 AND " + trial_rows + ")";
    const std::string either = "(" + past + " AND (" + either_rows + "))";
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
        // (Such a trial is past the trials read before: within `past`.)
        std::string stack_rows = either_rows;
        for (const auto& t : b.trials) {
            delta.replace_stack_trials.push_back(t.trial);
            stack_rows += " OR trial = " + std::to_string(t.trial);
        }
        delta.nodes_before = c.stacks.index.nodes.size();
        delta.frames_before = c.stacks.index.frames.size();
        read_stacks(db, id, "(" + past + " AND (" + stack_rows + "))", opt, d, c.stacks);
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
    if (into.stack_index.nodes.size() != delta.nodes_before ||
        into.stack_index.frames.size() != delta.frames_before)
        throw std::logic_error("merge_run_rows: the delta does not follow these rows (read them "
                               "with the same RunCursor, in order)");
    into.info = std::move(d.info);
    into.rows.facts.clear();  // read whole each time
    auto& stacks = into.rows.stacks;
    for (int trial : delta.replace_stack_trials)
        stacks.erase(std::remove_if(stacks.begin(), stacks.end(),
                                    [&](const StackRow& s) { return s.trial == trial; }),
                     stacks.end());
    // The delta's stacks are numbered after the ones read before it.
    StackIndex& index = into.stack_index;
    const auto append = [](auto& to, auto& from) {
        to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    };
    append(index.nodes, d.stack_index.nodes);
    append(index.store_ids, d.stack_index.store_ids);
    append(index.frames, d.stack_index.frames);
    into.rows.append(std::move(d.rows));
}

}  // namespace pathscope::db
