// INSERT and SELECT made from a table's column list (db/tables.h), and rows
// bound to and read from their statements column by column.
#pragma once

#include <string>
#include <type_traits>
#include <variant>

#include "db/connection.h"
#include "db/tables.h"

namespace pathscope::db {

/// A column's name in SQL, quoted: a few are words one back end reserves
/// ("full" is, to PostgreSQL).
inline std::string sql_name(const char* name) { return std::string("\"") + name + "\""; }

/// What an INSERT does with a row whose key the table holds already.
enum class OnConflict { fail, replace, ignore };

/// "INSERT INTO table (c1, c2, ...) VALUES (?1, ?2, ...)" over every column
/// the writer fills (all but the store's own ids), in the back end's words
/// for `conflict`: SQLite's INSERT OR REPLACE / OR IGNORE, PostgreSQL's
/// ON CONFLICT (key) DO UPDATE / DO NOTHING. Naming the columns keeps a later
/// migration that adds one from shifting what a statement binds.
template <typename Row>
std::string insert_sql(const Table<Row>& t, OnConflict conflict = OnConflict::fail,
                       Backend b = Backend::sqlite) {
    std::string cols, params, updates;
    const std::string key = key_columns(t.constraints);
    int n = 0;
    for (const auto& c : t.columns) {
        if (c.role == Role::store_id) continue;
        ++n;
        cols += (n > 1 ? ", " : "") + sql_name(c.name);
        params += (n > 1 ? ", ?" : "?") + std::to_string(n);
        if (c.role == Role::field && (", " + key + ",").find(", " + std::string(c.name) + ",") ==
                                         std::string::npos)
            updates += (updates.empty() ? "" : ", ") + sql_name(c.name) + " = excluded." +
                       sql_name(c.name);
    }
    const bool server = b == Backend::postgres;
    std::string verb = "INSERT";
    if (!server && conflict == OnConflict::replace) verb = "INSERT OR REPLACE";
    if (!server && conflict == OnConflict::ignore) verb = "INSERT OR IGNORE";
    std::string sql = verb + " INTO " + t.name + " (" + cols + ") VALUES (" + params + ")";
    if (server && conflict == OnConflict::ignore) sql += " ON CONFLICT DO NOTHING";
    if (server && conflict == OnConflict::replace)
        sql += " ON CONFLICT (" + key + ") " +
               (updates.empty() ? std::string("DO NOTHING") : "DO UPDATE SET " + updates);
    return sql;
}

/// A sampled stack's insert: a second row of the same (trial, interval,
/// event, stack) adds its weight to the first.
inline std::string sample_insert_sql() {
    return insert_sql(tables::stack_samples()) + " ON CONFLICT (" +
           key_columns(tables::stack_samples().constraints) +
           ") DO UPDATE SET weight = stack_samples.weight + excluded.weight";
}

/// The columns read_row reads, in its order: all but run_id ("a, b, c").
template <typename Row>
std::string select_list(const Table<Row>& t, const std::string& prefix = "") {
    std::string out;
    for (const auto& c : t.columns)
        if (c.role != Role::run_id) out += (out.empty() ? "" : ", ") + prefix + sql_name(c.name);
    return out;
}

inline void bind_value(Statement& s, int i, const Value& v) {
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool>)
                s.bind(i, int64_t{x ? 1 : 0});
            else if constexpr (std::is_same_v<T, std::vector<uint8_t>>)
                s.bind_blob(i, x.data(), x.size());
            else
                s.bind(i, x);
        },
        v);
}

/// Binds `row` (and `run_id` where the table has it) to a statement made by
/// insert_sql.
template <typename Row>
void bind_row(Statement& s, const Table<Row>& t, int64_t run_id, const Row& row) {
    int i = 0;
    for (const auto& c : t.columns) {
        if (c.role == Role::store_id) continue;
        ++i;
        if (c.role == Role::run_id)
            s.bind(i, run_id);
        else
            bind_value(s, i, c.get(row));
    }
}

/// Binds `row` as bind_row does, and runs the statement.
template <typename Row>
void insert_row(Statement& s, const Table<Row>& t, int64_t run_id, const Row& row) {
    bind_row(s, t, run_id, row);
    s.run();
}

inline Value read_value(const Statement& s, int col, Kind kind) {
    switch (kind) {
        case Kind::integer: return s.i64(col);
        case Kind::unsigned_integer: return s.u64(col);
        case Kind::real: return s.f64(col);
        case Kind::boolean: return s.i64(col) != 0;
        case Kind::text: return s.text(col);
        case Kind::blob: return s.blob(col);
    }
    return int64_t{0};
}

/// The row at the current step of a statement that selected
/// select_list(t), starting at column `first`.
template <typename Row>
Row read_row(const Statement& s, const Table<Row>& t, int first = 0) {
    Row row{};
    int col = first;
    for (const auto& c : t.columns)
        if (c.role != Role::run_id) c.set(row, read_value(s, col++, c.kind));
    return row;
}

}  // namespace pathscope::db
