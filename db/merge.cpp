#include "db/merge.h"

#include <map>

#include "db/connection.h"
#include "db/schema.h"
#include "db/table_sql.h"

namespace pathscope::db {

namespace {

/// Maps the source's interned stack ids to the output's, interning what the
/// output lacks. Both stores' frames and stacks are read once; only new ones
/// are written.
class StackMap {
  public:
    StackMap(const Database& src, Database& out, const std::string& src_name) {
        std::map<std::pair<std::string, std::string>, int64_t> out_frames;
        std::map<std::pair<int64_t, int64_t>, int64_t> out_stacks;
        {
            Statement f = out.prepare("SELECT id, symbol, module FROM frames");
            while (f.step()) out_frames[{f.text(1), f.text(2)}] = f.i64(0);
            Statement s = out.prepare("SELECT id, parent, frame FROM stacks");
            while (s.step()) out_stacks[{s.i64(1), s.i64(2)}] = s.i64(0);
        }
        const Backend b = out.backend();
        Statement frame_ins = out.prepare(insert_sql(tables::frames(), OnConflict::ignore, b));
        Statement frame_sel = out.prepare("SELECT id FROM frames WHERE symbol = ?1 AND module = ?2");
        Statement stack_ins = out.prepare(insert_sql(tables::stacks(), OnConflict::ignore, b));
        Statement stack_sel = out.prepare("SELECT id FROM stacks WHERE parent = ?1 AND frame = ?2");
        std::map<int64_t, int64_t> frame_map;
        Statement f = src.prepare("SELECT id, symbol, module FROM frames");
        while (f.step()) {
            const std::pair<std::string, std::string> key{f.text(1), f.text(2)};
            auto it = out_frames.find(key);
            if (it == out_frames.end()) {
                insert_row(frame_ins, tables::frames(), 0, FrameRow{0, key.first, key.second});
                frame_sel.bind(1, key.first).bind(2, key.second);
                frame_sel.step();
                it = out_frames.emplace(key, frame_sel.i64(0)).first;
                frame_sel.reset();
            }
            frame_map[f.i64(0)] = it->second;
        }
        // Interning adds a parent before its children, so ids ascend root to leaf.
        Statement s = src.prepare("SELECT id, parent, frame FROM stacks ORDER BY id");
        while (s.step()) {
            const auto parent = map_.find(s.i64(1));
            const auto frame = frame_map.find(s.i64(2));
            if (parent == map_.end() || frame == frame_map.end())
                throw DbError(src_name + ": stack " + std::to_string(s.i64(0)) +
                              " has a parent or frame that is not in the store before it; the "
                              "store is damaged, so it cannot be copied (sqlite3 FILE 'PRAGMA "
                              "integrity_check' checks a file)");
            const std::pair<int64_t, int64_t> key{parent->second, frame->second};
            auto it = out_stacks.find(key);
            if (it == out_stacks.end()) {
                insert_row(stack_ins, tables::stacks(), 0, StackNodeRow{0, key.first, key.second});
                stack_sel.bind(1, key.first).bind(2, key.second);
                stack_sel.step();
                it = out_stacks.emplace(key, stack_sel.i64(0)).first;
                stack_sel.reset();
            }
            map_[s.i64(0)] = it->second;
        }
    }
    /// The output's id of a source stack, or -1 when the source has no such stack.
    int64_t operator[](int64_t src_id) const {
        const auto it = map_.find(src_id);
        return it == map_.end() ? -1 : it->second;
    }

  private:
    std::map<int64_t, int64_t> map_{{0, 0}};
};

/// Every row of `t` that belongs to run `from` in `src`, inserted into `out`
/// by `insert` (an insert_sql of t) as rows of run `to`; `fix` may change a
/// row on its way.
template <typename Row, typename Fix>
void copy_rows(const Database& src, Database& out, const Table<Row>& t, int64_t from, int64_t to,
               const std::string& insert, Fix fix) {
    Statement read = src.prepare("SELECT " + select_list(t) + " FROM " + t.name +
                                 " WHERE run_id = ?1");
    Statement write = out.prepare(insert);
    read.bind(1, from);
    while (read.step()) {
        Row row = read_row(read, t);
        fix(row);
        insert_row(write, t, to, row);
    }
}

template <typename Row>
void copy_rows(const Database& src, Database& out, const Table<Row>& t, int64_t from, int64_t to) {
    copy_rows(src, out, t, from, to, insert_sql(t), [](Row&) {});
}

}  // namespace

MergeResult copy_runs(const Database& src, Database& out, const CopyProgress& progress) {
    MergeResult result;
    // What the output has, by uuid; the source's runs oldest first.
    std::map<std::string, bool> have;
    {
        Statement s = out.prepare("SELECT uuid FROM runs");
        while (s.step()) have[s.text(0)] = true;
    }
    std::vector<RunInfo> to_copy;  // the source's runs the output lacks
    {
        Statement s = src.prepare("SELECT " + select_list(tables::runs()) + " FROM runs ORDER BY id");
        while (s.step()) {
            RunInfo r = read_row(s, tables::runs());
            if (have.count(r.uuid))
                result.skipped++;
            else
                to_copy.push_back(std::move(r));
        }
    }
    if (to_copy.empty()) return result;
    // Interned stacks first, in a transaction of their own: later runs need them.
    std::unique_ptr<StackMap> stacks;
    {
        Transaction tx(out);
        stacks = std::make_unique<StackMap>(src, out, src.path());
        tx.commit();
    }
    Statement insert_run = out.prepare(insert_sql(tables::runs()) + " RETURNING id");
    const std::string sample_sql = sample_insert_sql();
    for (const RunInfo& run : to_copy) {
        // One transaction a run: an interrupted copy leaves whole runs only,
        // and copying again adds the rest.
        Transaction tx(out);
        bind_row(insert_run, tables::runs(), 0, run);
        insert_run.step();
        const int64_t id = insert_run.i64(0);
        insert_run.reset();
        copy_rows(src, out, tables::trials(), run.id, id);
        copy_rows(src, out, tables::intervals(), run.id, id);
        copy_rows(src, out, tables::stage_counters(), run.id, id);
        copy_rows(src, out, tables::queue_counters(), run.id, id);
        copy_rows(src, out, tables::drops(), run.id, id);
        copy_rows(src, out, tables::histograms(), run.id, id);
        copy_rows(src, out, tables::histogram_buckets(), run.id, id);
        copy_rows(src, out, tables::perf_counters(), run.id, id);
        copy_rows(src, out, tables::packet_traces(), run.id, id);
        copy_rows(src, out, tables::facts(), run.id, id);
        copy_rows(src, out, tables::trial_events(), run.id, id);
        copy_rows(src, out, tables::edge_counters(), run.id, id);
        copy_rows(src, out, tables::worker_trials(), run.id, id);
        copy_rows(src, out, tables::trial_threads(), run.id, id);
        // Stacks are re-interned: each sample's stack id is the output's.
        copy_rows(src, out, tables::stack_samples(), run.id, id, sample_sql, [&](SampleRow& row) {
            const int64_t mapped = (*stacks)[row.stack];
            if (mapped < 0)
                throw DbError(src.path() + ": a sample of run " + std::to_string(run.id) +
                              " has stack " + std::to_string(row.stack) +
                              ", which is not in the store; the store is damaged, so it cannot "
                              "be copied");
            row.stack = mapped;
        });
        tx.commit();
        result.copied++;
        if (progress) progress(result.copied, static_cast<int>(to_copy.size()), run);
    }
    return result;
}

MergeResult merge_stores(const std::vector<std::string>& inputs, const std::string& output) {
    auto out = open_store(output, Database::Mode::read_write);
    MergeResult result;
    for (const auto& in : inputs) {
        const auto src = open_store(in, Database::Mode::read_only);  // refuses foreign or newer stores
        const MergeResult one = copy_runs(*src, *out);
        result.copied += one.copied;
        result.skipped += one.skipped;
    }
    return result;
}

}  // namespace pathscope::db
