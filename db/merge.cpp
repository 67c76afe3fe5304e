#include "db/merge.h"

#include <map>

#include "db/schema.h"
#include "db/sqlite.h"
#include "db/table_sql.h"

namespace pathscope::db {

namespace {

/// "a, b, c" of the columns a copy fills: the store's own ids left out,
/// run_id written as `run_id_as`.
template <typename Row>
std::string column_list(const Table<Row>& t, const std::string& run_id_as = "run_id") {
    std::string out;
    for (const auto& c : t.columns) {
        if (c.role == Role::store_id) continue;
        out += (out.empty() ? "" : ", ") + (c.role == Role::run_id ? run_id_as : c.name);
    }
    return out;
}

/// Maps the source store's stack ids to the output's, interning as it goes.
std::map<int64_t, int64_t> remap_stacks(Database& out, const std::string& in) {
    const std::string frame_cols = column_list(tables::frames());
    out.exec("INSERT OR IGNORE INTO main.frames (" + frame_cols + ") SELECT " + frame_cols +
             " FROM src.frames");
    Statement src = out.prepare(
        "SELECT s.id, s.parent, m.id FROM src.stacks s JOIN src.frames f ON f.id = s.frame "
        "JOIN main.frames m ON m.symbol = f.symbol AND m.module = f.module ORDER BY s.id");
    Statement ins = out.prepare(insert_sql("INSERT OR IGNORE", tables::stacks()));
    Statement sel = out.prepare("SELECT id FROM main.stacks WHERE parent = ?1 AND frame = ?2");
    std::map<int64_t, int64_t> map{{0, 0}};
    // Interning adds a parent before its children, so ids ascend root to leaf.
    while (src.step()) {
        const auto p = map.find(src.i64(1));
        if (p == map.end())  // a damaged store (or one not written by pathscope)
            throw DbError(in + ": stack " + std::to_string(src.i64(0)) + " has parent " +
                          std::to_string(src.i64(1)) +
                          ", which is not a stack before it; the store is damaged, so it "
                          "cannot be merged (sqlite3 FILE 'PRAGMA integrity_check' checks it)");
        const int64_t parent = p->second;
        insert_row(ins, tables::stacks(), 0, StackNodeRow{0, parent, src.i64(2)});
        sel.bind(1, parent).bind(2, src.i64(2));
        sel.step();
        map[src.i64(0)] = sel.i64(0);
        sel.reset();
    }
    return map;
}

}  // namespace

MergeResult merge_stores(const std::vector<std::string>& inputs, const std::string& output) {
    auto out = open_store(output, Database::Mode::read_write);
    MergeResult result;
    for (const auto& in : inputs) {
        open_store(in, Database::Mode::read_only);  // refuses foreign or newer files clearly
        Statement attach = out->prepare("ATTACH DATABASE ?1 AS src");
        attach.bind(1, in).run();
        try {
            Transaction tx(*out);
            const auto stack_map = remap_stacks(*out, in);
            Statement runs = out->prepare(
                "SELECT id, uuid FROM src.runs WHERE uuid NOT IN (SELECT uuid FROM main.runs) "
                "ORDER BY id");
            std::vector<int64_t> new_runs;
            while (runs.step()) new_runs.push_back(runs.i64(0));
            result.skipped +=
                static_cast<int>(out->scalar("SELECT count(*) FROM src.runs WHERE uuid IN "
                                             "(SELECT uuid FROM main.runs)"));
            const std::string run_cols = column_list(tables::runs());
            Statement copy_run = out->prepare("INSERT INTO main.runs (" + run_cols + ") SELECT " +
                                              run_cols + " FROM src.runs WHERE id = ?1");
            Statement sample = out->prepare(insert_sql("INSERT", tables::stack_samples()) +
                                            " ON CONFLICT DO UPDATE SET weight = weight + "
                                            "excluded.weight");
            for (int64_t old_id : new_runs) {
                copy_run.bind(1, old_id).run();
                const int64_t new_id = out->last_insert_id();
                // Rows keyed by run copy as they are, with the run id swapped.
                auto copy = [&](const auto& t) {
                    Statement s = out->prepare("INSERT INTO main." + std::string(t.name) + " (" +
                                               column_list(t) + ") SELECT " +
                                               column_list(t, "?1") + " FROM src." + t.name +
                                               " WHERE run_id = ?2");
                    s.bind(1, new_id).bind(2, old_id).run();
                };
                copy(tables::trials());
                copy(tables::intervals());
                copy(tables::stage_counters());
                copy(tables::queue_counters());
                copy(tables::drops());
                copy(tables::histograms());
                copy(tables::histogram_buckets());
                copy(tables::perf_counters());
                copy(tables::packet_traces());
                copy(tables::facts());
                copy(tables::trial_events());
                copy(tables::edge_counters());
                copy(tables::worker_trials());
                // Stacks are re-interned: each sample's stack id is the output's.
                Statement src = out->prepare("SELECT " + select_list(tables::stack_samples()) +
                                             " FROM src.stack_samples WHERE run_id = ?1");
                src.bind(1, old_id);
                while (src.step()) {
                    SampleRow row = read_row(src, tables::stack_samples());
                    const auto st = stack_map.find(row.stack);
                    if (st == stack_map.end())
                        throw DbError(in + ": a sample of run " + std::to_string(old_id) +
                                      " has stack " + std::to_string(row.stack) +
                                      ", which is not in the store; the store is damaged, so "
                                      "it cannot be merged");
                    row.stack = st->second;
                    insert_row(sample, tables::stack_samples(), new_id, row);
                }
                result.copied++;
            }
            tx.commit();
        } catch (...) {
            out->exec("DETACH DATABASE src");
            throw;
        }
        out->exec("DETACH DATABASE src");
    }
    return result;
}

}  // namespace pathscope::db
