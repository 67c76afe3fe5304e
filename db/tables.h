// The store's tables, each column listed once: its name, its SQL declaration
// and the record field it holds. A fresh store's CREATE TABLE (schema.cpp),
// the writer's INSERTs, the read queries' SELECTs and the CSV export's header
// all come from these lists. No SQLite here: analysis/ reads them too.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "db/backend.h"
#include "db/records.h"

namespace pathscope::db {

/// One field's value on its way to or from the store.
using Value = std::variant<int64_t, uint64_t, double, bool, std::string, std::vector<uint8_t>>;
/// Which alternative of Value a column holds (the same order).
enum class Kind { integer, unsigned_integer, real, boolean, text, blob };

/// What a column is to the writer and the readers.
enum class Role {
    field,     ///< a field of the row: inserted and selected
    run_id,    ///< the run the row belongs to: bound by the writer, filtered on by readers
    store_id,  ///< assigned by the store (INTEGER PRIMARY KEY): selected, never inserted
};

template <typename Row>
struct Column {
    const char* name;
    const char* decl;  ///< type and column constraints: "INTEGER NOT NULL DEFAULT 0"
    Role role = Role::field;
    Kind kind = Kind::integer;
    Value (*get)(const Row&) = nullptr;         ///< null for Role::run_id
    void (*set)(Row&, const Value&) = nullptr;  ///< null for Role::run_id
};

template <typename Row>
struct Table {
    const char* name;
    std::vector<Column<Row>> columns;
    const char* constraints;  ///< table constraints after the columns ("PRIMARY KEY (...)")
    bool without_rowid = true;
    /// CREATE INDEX name ON table(columns): (name, columns).
    std::vector<std::pair<const char*, const char*>> indexes = {};
};

// How each field type is held in a Value.
inline Value to_value(int v) { return int64_t{v}; }
inline Value to_value(int64_t v) { return v; }
inline Value to_value(uint32_t v) { return uint64_t{v}; }
inline Value to_value(uint64_t v) { return v; }
inline Value to_value(double v) { return v; }
inline Value to_value(bool v) { return v; }
inline Value to_value(const std::string& v) { return v; }
inline Value to_value(const std::vector<uint8_t>& v) { return v; }
/// A trace's stage cycles as "stage=cycles" pairs in path order, space separated.
Value to_value(const std::vector<std::pair<std::string, double>>& v);

inline void from_value(const Value& v, int& out) { out = static_cast<int>(std::get<int64_t>(v)); }
inline void from_value(const Value& v, int64_t& out) { out = std::get<int64_t>(v); }
inline void from_value(const Value& v, uint32_t& out) {
    out = static_cast<uint32_t>(std::get<uint64_t>(v));
}
inline void from_value(const Value& v, uint64_t& out) { out = std::get<uint64_t>(v); }
inline void from_value(const Value& v, double& out) { out = std::get<double>(v); }
inline void from_value(const Value& v, bool& out) { out = std::get<bool>(v); }
inline void from_value(const Value& v, std::string& out) { out = std::get<std::string>(v); }
inline void from_value(const Value& v, std::vector<uint8_t>& out) {
    out = std::get<std::vector<uint8_t>>(v);
}
void from_value(const Value& v, std::vector<std::pair<std::string, double>>& out);

template <typename M>
struct MemberOf;
template <typename R, typename T>
struct MemberOf<T R::*> {
    using Row = R;
    using Type = T;
};

/// The column that holds the data member `M` of its row.
template <auto M>
Column<typename MemberOf<decltype(M)>::Row> field(const char* name, const char* decl,
                                                  Role role = Role::field) {
    using Row = typename MemberOf<decltype(M)>::Row;
    using T = typename MemberOf<decltype(M)>::Type;
    return {name, decl, role, static_cast<Kind>(to_value(T{}).index()),
            [](const Row& r) { return to_value(r.*M); },
            [](Row& r, const Value& v) { from_value(v, r.*M); }};
}

// Rows of tables that no caller sees as such: the writer and the readers
// turn them into and out of the records' own shapes.

/// An interned frame (frames) and an interned stack: its leaf frame plus its
/// parent stack, 0 for a root frame (stacks).
struct FrameRow {
    int64_t id = 0;
    std::string symbol, module;
};
struct StackNodeRow {
    int64_t id = 0, parent = 0, frame = 0;
};
/// A sampled stack's weight, by interned stack id.
struct SampleRow {
    int trial = 0;
    int seq = -1;  ///< the interval; -1: the whole trial
    std::string event;
    int64_t stack = 0;
    uint64_t weight = 0;
};
/// One non-empty bucket of a histogram.
struct BucketRow {
    int trial = 0;
    std::string kind, subject;
    uint32_t bucket = 0;
    uint64_t count = 0;
    int worker = 0;  ///< its histogram's (HistogramRow::worker)
};
using FactRow = std::pair<std::string, std::string>;

/// The store's tables at this build's schema version (kSchemaVersion).
/// Columns stand in the order the shipped migrations leave them (a column a
/// migration adds comes last, with that migration's default), so that a
/// fresh store and a migrated one are the same.
namespace tables {
const Table<RunInfo>& runs();
const Table<TrialRow>& trials();
const Table<IntervalRow>& intervals();
const Table<StageRow>& stage_counters();
const Table<QueueRow>& queue_counters();
const Table<DropRow>& drops();
const Table<HistogramRow>& histograms();
const Table<BucketRow>& histogram_buckets();
const Table<PerfCounterRow>& perf_counters();
const Table<FrameRow>& frames();
const Table<StackNodeRow>& stacks();
const Table<SampleRow>& stack_samples();
const Table<PacketTraceRow>& packet_traces();
const Table<FactRow>& facts();
const Table<EventRow>& trial_events();
const Table<EdgeRow>& edge_counters();
const Table<WorkerTrialRow>& worker_trials();
const Table<ThreadRow>& trial_threads();
}  // namespace tables

/// CREATE TABLE and CREATE INDEX statements of every table, as a fresh store
/// at this build's schema version has them, in the back end's dialect.
std::string create_schema_sql(Backend b = Backend::sqlite);

/// A table as a back end makes it: its CREATE statements and each column's
/// declaration in that back end's words (server stores migrate by adding
/// what a table lacks).
struct TableShape {
    std::string name;
    std::string create_sql;
    std::vector<std::pair<std::string, std::string>> columns;  ///< name, declaration
};
/// Every table of the store, in the order a fresh store makes them.
std::vector<TableShape> table_shapes(Backend b);

/// The columns of a table's primary key (or of its one UNIQUE constraint,
/// for the interned tables), from its constraints: "run_id, trial".
std::string key_columns(const char* constraints);

}  // namespace pathscope::db
