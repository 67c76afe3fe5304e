#include "db/merge.h"

#include <map>

#include "db/schema.h"
#include "db/sqlite.h"

namespace pathscope::db {

namespace {

// Tables keyed by run whose rows copy as they are, with the run id swapped.
constexpr const char* kRunTables[] = {
    "trials",     "intervals",         "stage_counters", "queue_counters", "drops",
    "histograms", "histogram_buckets", "perf_counters",  "packet_traces",  "facts",
};

std::vector<std::string> columns(const Database& db, const std::string& table) {
    Statement s = db.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid");
    s.bind(1, table);
    std::vector<std::string> out;
    while (s.step()) out.push_back(s.text(0));
    return out;
}

std::string join(const std::vector<std::string>& v, const std::string& prefix = "") {
    std::string out;
    for (const auto& c : v) out += (out.empty() ? "" : ", ") + prefix + c;
    return out;
}

/// Maps the source store's stack ids to the output's, interning as it goes.
std::map<int64_t, int64_t> remap_stacks(Database& out) {
    out.exec(
        "INSERT OR IGNORE INTO main.frames (symbol, module) SELECT symbol, module FROM src.frames");
    Statement src = out.prepare(
        "SELECT s.id, s.parent, m.id FROM src.stacks s JOIN src.frames f ON f.id = s.frame "
        "JOIN main.frames m ON m.symbol = f.symbol AND m.module = f.module ORDER BY s.id");
    Statement ins =
        out.prepare("INSERT OR IGNORE INTO main.stacks (parent, frame) VALUES (?1, ?2)");
    Statement sel = out.prepare("SELECT id FROM main.stacks WHERE parent = ?1 AND frame = ?2");
    std::map<int64_t, int64_t> map{{0, 0}};
    // Interning adds a parent before its children, so ids ascend root to leaf.
    while (src.step()) {
        const int64_t parent = map.at(src.i64(1));
        ins.bind(1, parent).bind(2, src.i64(2)).run();
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
    std::vector<std::string> run_cols = columns(*out, "runs");
    run_cols.erase(run_cols.begin());  // id: the output assigns its own
    for (const auto& in : inputs) {
        open_store(in, Database::Mode::read_only);  // refuses foreign or newer files clearly
        Statement attach = out->prepare("ATTACH DATABASE ?1 AS src");
        attach.bind(1, in).run();
        try {
            Transaction tx(*out);
            const auto stack_map = remap_stacks(*out);
            Statement runs = out->prepare(
                "SELECT id, uuid FROM src.runs WHERE uuid NOT IN (SELECT uuid FROM main.runs) "
                "ORDER BY id");
            std::vector<int64_t> new_runs;
            while (runs.step()) new_runs.push_back(runs.i64(0));
            result.skipped +=
                static_cast<int>(out->scalar("SELECT count(*) FROM src.runs WHERE uuid IN "
                                             "(SELECT uuid FROM main.runs)"));
            Statement copy_run =
                out->prepare("INSERT INTO main.runs (" + join(run_cols) + ") SELECT " +
                             join(run_cols) + " FROM src.runs WHERE id = ?1");
            Statement sample = out->prepare(
                "INSERT INTO main.stack_samples (run_id, trial, event, stack, weight, seq) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO "
                "UPDATE SET weight = weight + excluded.weight");
            for (int64_t old_id : new_runs) {
                copy_run.bind(1, old_id).run();
                const int64_t new_id = out->last_insert_id();
                for (const char* table : kRunTables) {
                    auto cols = columns(*out, table);
                    std::string select;
                    for (const auto& c : cols)
                        select += (select.empty() ? "" : ", ") + (c == "run_id" ? "?1" : c);
                    Statement s = out->prepare("INSERT INTO main." + std::string(table) + " (" +
                                               join(cols) + ") SELECT " + select + " FROM src." +
                                               table + " WHERE run_id = ?2");
                    s.bind(1, new_id).bind(2, old_id).run();
                }
                Statement src = out->prepare(
                    "SELECT trial, event, stack, weight, seq FROM src.stack_samples WHERE "
                    "run_id = ?1");
                src.bind(1, old_id);
                while (src.step())
                    sample.bind(1, new_id)
                        .bind(2, src.i64(0))
                        .bind(3, src.text(1))
                        .bind(4, stack_map.at(src.i64(2)))
                        .bind(5, src.i64(3))
                        .bind(6, src.i64(4))
                        .run();
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
