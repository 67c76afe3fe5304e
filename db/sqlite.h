// A thin RAII layer over the SQLite C API: one owner for sqlite3*, prepared
// statements only, errors as exceptions that name the store and the step.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pathscope::db {

/// How long a connection waits for another process's write lock before it
/// gives up with SQLITE_BUSY.
inline constexpr int kBusyTimeoutMs = 5000;

class DbError : public std::runtime_error {
  public:
    DbError(const std::string& msg, int code = SQLITE_ERROR)
        : std::runtime_error(msg), code_(code) {}
    /// The SQLite result code (SQLITE_FULL, SQLITE_BUSY, ...).
    int code() const { return code_; }

  private:
    int code_;
};

/// How much work one statement may do: SQLite's virtual-machine steps,
/// counted by a progress handler. A store is read as hostile input (it may
/// be a damaged file, or one mailed by a colleague whose views or cyclic rows
/// would run forever); a statement past its budget stops with a DbError
/// naming the store instead of hanging the verb or the GUI.
struct QueryBudget {
    /// Far above what the largest real store needs (a million samples read
    /// in about 1e8 steps), far below forever (SQLite runs about 1e8 steps
    /// a second: a runaway statement ends within a minute).
    static constexpr uint64_t kDefaultSteps = 5'000'000'000ULL;
    static constexpr int kStepsPerCall = 10'000;  ///< the handler's period
    /// The limit of connections opened from now on, in this process (a
    /// fuzzer lowers it so a runaway query ends in milliseconds).
    static inline std::atomic<uint64_t> default_limit{kDefaultSteps};
    uint64_t limit = default_limit.load();
    uint64_t used = 0;
    bool spent = false;
    void start() {
        used = 0;
        spent = false;
    }
};

class Statement {
  public:
    Statement() = default;
    Statement(sqlite3* db, std::string_view sql, const std::string& where,
              QueryBudget* budget = nullptr);
    ~Statement();
    Statement(Statement&& o) noexcept;
    Statement& operator=(Statement&& o) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    // Bind by 1-based index; each returns *this so calls chain.
    Statement& bind(int i, int64_t v);
    Statement& bind(int i, uint64_t v) { return bind(i, static_cast<int64_t>(v)); }
    Statement& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
    Statement& bind(int i, unsigned v) { return bind(i, static_cast<int64_t>(v)); }
    Statement& bind(int i, double v);
    Statement& bind(int i, std::string_view v);
    Statement& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
    Statement& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
    Statement& bind_blob(int i, const void* data, size_t n);
    Statement& bind_null(int i);

    /// Steps once: true while a row is available.
    bool step();
    /// Steps to the end (for statements that return no rows) and resets.
    void run();
    void reset();

    int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
    uint64_t u64(int col) const { return static_cast<uint64_t>(i64(col)); }
    double f64(int col) const { return sqlite3_column_double(stmt_, col); }
    std::string text(int col) const;
    std::vector<uint8_t> blob(int col) const;

  private:
    void check(int rc, const char* what) const;
    sqlite3* db_ = nullptr;
    sqlite3_stmt* stmt_ = nullptr;
    std::string where_;
    QueryBudget* budget_ = nullptr;
};

class Database {
  public:
    enum class Mode { read_only, read_write };

    /// Opens (read_write: creates) the file at `path`, with SQLite's
    /// defences for untrusted files on (SQLITE_DBCONFIG_DEFENSIVE, no
    /// trusted schema, cell size checks) and every statement bounded by a
    /// QueryBudget. Throws DbError.
    Database(const std::string& path, Mode mode);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    const std::string& path() const { return path_; }
    sqlite3* handle() const { return db_; }

    /// Runs one or more statements without results.
    void exec(const std::string& sql);
    Statement prepare(std::string_view sql) const;
    int64_t last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
    /// The first column of the first row of `sql` as an integer (0 when no row).
    int64_t scalar(std::string_view sql) const;
    /// The steps each statement may take from its first step (fuzzers and
    /// tests lower it; QueryBudget::kDefaultSteps otherwise).
    void set_query_budget(uint64_t steps) { budget_->limit = steps; }
    /// Starts a fresh budget (for statements run outside prepare/exec).
    void fresh_budget() const { budget_->start(); }

  private:
    sqlite3* db_ = nullptr;
    std::string path_;
    std::unique_ptr<QueryBudget> budget_;
};

/// RAII transaction: BEGIN IMMEDIATE (takes the write lock up front, so a
/// batch never fails half way on a lock upgrade); rolls back unless committed.
class Transaction {
  public:
    explicit Transaction(Database& db);
    ~Transaction();
    void commit();

  private:
    Database& db_;
    bool done_ = false;
};

/// RAII read transaction: the queries inside it see one snapshot of the
/// store (a writer's batch whole or not at all); ended on destruction, so
/// no read stays open to hold back the writer's checkpoints.
class ReadSnapshot {
  public:
    explicit ReadSnapshot(const Database& db);
    ~ReadSnapshot();
    ReadSnapshot(const ReadSnapshot&) = delete;
    ReadSnapshot& operator=(const ReadSnapshot&) = delete;

  private:
    const Database& db_;
};

}  // namespace pathscope::db
