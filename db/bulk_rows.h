// A table's rows on their way into a store, a batch at a time. A file store
// takes each row by its prepared INSERT (SQLite inserts in-process, a row
// costs microseconds). A server store would pay a round trip a row, so the
// rows are gathered into one array a column and sent as one statement a
// table a batch: INSERT ... SELECT * FROM unnest($1::bigint[], ...), each
// array a parameter (never SQL text), with the table's conflict rule.
// Rows with the same key in one batch are combined first (the later one
// replaces the earlier, or `combine` adds them up), as one statement may
// not touch a row twice.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "db/connection.h"
#include "db/table_sql.h"

namespace pathscope::db {

template <typename Row>
class BulkRows {
  public:
    using Combine = std::function<void(Row& into, const Row& more)>;

    /// `statement`: the per-row INSERT a file store uses (insert_sql or
    /// sample_insert_sql). `combine`: how two rows of one key become one
    /// (default: the later replaces the earlier).
    BulkRows(Database& db, const Table<Row>& t, const std::string& statement, Combine combine = {})
        : table_(t), server_(db.backend() == Backend::postgres), combine_(std::move(combine)) {
        if (!server_) {
            row_ = db.prepare(statement);
            return;
        }
        std::string cols, arrays;
        int n = 0;
        for (const auto& c : t.columns) {
            if (c.role == Role::store_id) continue;
            ++n;
            cols += (n > 1 ? ", " : "") + sql_name(c.name);
            arrays += (n > 1 ? ", ?" : "?") + std::to_string(n) + "::" + array_type(c.kind) + "[]";
        }
        // The per-row statement's conflict clause, after its VALUES (...).
        const size_t values_end = statement.find(')', statement.find(" VALUES (")) + 1;
        const std::string conflict_clause = statement.substr(values_end);
        bulk_ = db.prepare("INSERT INTO " + std::string(t.name) + " (" + cols + ") SELECT * FROM unnest(" +
                           arrays + ")" + conflict_clause);
        key_ = key_columns(t.constraints);
    }

    void add(int64_t run_id, const Row& row) {
        if (!server_) return insert_row(row_, table_, run_id, row);
        run_id_ = run_id;
        const std::string k = key(row);
        if (const auto it = at_.find(k); it != at_.end()) {
            if (combine_)
                combine_(rows_[it->second], row);
            else
                rows_[it->second] = row;
            return;
        }
        at_.emplace(k, rows_.size());
        rows_.push_back(row);
    }

    /// Sends what was gathered (a server store); nothing for a file store.
    void flush() {
        if (!server_ || rows_.empty()) return;
        int i = 0;
        for (const auto& c : table_.columns) {
            if (c.role == Role::store_id) continue;
            ++i;
            std::string a = "{";
            for (size_t r = 0; r < rows_.size(); ++r) {
                if (r) a += ',';
                if (c.role == Role::run_id)
                    a += std::to_string(run_id_);
                else
                    element(a, c.get(rows_[r]));
            }
            a += '}';
            bulk_.bind(i, a);
        }
        bulk_.run();
        rows_.clear();
        at_.clear();
    }

  private:
    static const char* array_type(Kind k) {
        switch (k) {
            case Kind::real: return "double precision";
            case Kind::text: return "text";
            case Kind::blob: return "bytea";
            default: return "bigint";
        }
    }

    // One array element in PostgreSQL's array literal syntax.
    static void element(std::string& out, const Value& v) {
        std::visit(
            [&](const auto& x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, std::string>) {
                    out += '"';
                    for (char ch : x) {
                        if (ch == '\0') {
                            out += "\u2400";  // a server's text cannot hold NUL
                            continue;
                        }
                        if (ch == '"' || ch == '\\') out += '\\';
                        out += ch;
                    }
                    out += '"';
                } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
                    static const char* hex = "0123456789abcdef";
                    out += "\"\\\\x";
                    for (uint8_t b : x) out += hex[b >> 4], out += hex[b & 15];
                    out += '"';
                } else if constexpr (std::is_same_v<T, double>) {
                    out += server_double_text(x);
                } else if constexpr (std::is_same_v<T, bool>) {
                    out += x ? '1' : '0';
                } else {
                    out += std::to_string(static_cast<int64_t>(x));
                }
            },
            v);
    }

    // The row's key: its key columns' values, in order.
    std::string key(const Row& row) const {
        std::string k;
        for (const auto& c : table_.columns)
            if (c.role == Role::field &&
                (", " + key_ + ",").find(", " + std::string(c.name) + ",") != std::string::npos)
                element(k, c.get(row)), k += '\x1f';
        return k;
    }

    const Table<Row>& table_;
    bool server_;
    Combine combine_;
    Statement row_, bulk_;
    std::string key_;
    int64_t run_id_ = 0;
    std::vector<Row> rows_;
    std::map<std::string, size_t> at_;
};

}  // namespace pathscope::db
