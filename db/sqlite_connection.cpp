#include "db/connection.h"

namespace pathscope::db {

namespace {
/// How to fix what an SQLite result code says went wrong.
std::string advice(int rc) {
    switch (rc & 0xff) {
        case SQLITE_FULL:
            return " (free some space, or use --db on a disk with room)";
        case SQLITE_CORRUPT:
            return " (the file is damaged; sqlite3 FILE 'PRAGMA integrity_check' shows where)";
        case SQLITE_NOTADB:
            return " (this file is not an SQLite database)";
        case SQLITE_BUSY:
            return " (another process held the store's write lock for over " +
                   std::to_string(busy_timeout_ms.load() / 1000) +
                   " s: let it finish and try again, or open another store)";
        case SQLITE_IOERR:
            return " (the disk failed a read or write: check the device, e.g. dmesg, and its "
                   "free space)";
        case SQLITE_READONLY:
            return " (the store is read-only here: check the file's permissions)";
        default:
            return "";
    }
}

std::string message(sqlite3* db, int rc) {
    const char* m = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    return std::string(m ? m : sqlite3_errstr(rc)) + advice(rc);
}
}  // namespace

namespace {

class SqliteStatement final : public StatementBackend {
  public:
    SqliteStatement(sqlite3* db, std::string_view sql, const std::string& where,
                    QueryBudget* budget)
        : db_(db), where_(where), budget_(budget) {
        const int rc =
            sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
        if (rc != SQLITE_OK)
            throw DbError(where_ + ": cannot prepare \"" + std::string(sql.substr(0, 60)) +
                              "\": " + message(db, rc),
                          rc);
    }
    ~SqliteStatement() override { sqlite3_finalize(stmt_); }

    void bind_int(int i, int64_t v) override { check(sqlite3_bind_int64(stmt_, i, v)); }
    void bind_double(int i, double v) override { check(sqlite3_bind_double(stmt_, i, v)); }
    void bind_text(int i, std::string_view v) override {
        check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    }
    void bind_blob(int i, const void* data, size_t n) override {
        // An empty vector's data() may be null, which SQLite binds as NULL,
        // not as an empty blob (a NOT NULL column then refuses the row).
        static const char kEmpty = 0;
        check(sqlite3_bind_blob(stmt_, i, n ? data : &kEmpty, static_cast<int>(n), SQLITE_TRANSIENT));
    }
    void bind_null(int i) override { check(sqlite3_bind_null(stmt_, i)); }

    bool step() override {
        if (budget_ && !sqlite3_stmt_busy(stmt_)) budget_->start();  // a fresh run of it
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        const std::string sql = sqlite3_sql(stmt_) ? sqlite3_sql(stmt_) : "";
        sqlite3_reset(stmt_);
        if ((rc & 0xff) == SQLITE_INTERRUPT && budget_ && budget_->spent)
            throw DbError(where_ + ": a query ran past its budget of " +
                              std::to_string(budget_->limit) + " SQLite steps (in \"" +
                              sql.substr(0, 60) +
                              "\"); the store is damaged or was not written by pathscope "
                              "(sqlite3 FILE 'PRAGMA integrity_check' checks it)",
                          rc);
        throw DbError(where_ + ": " + message(db_, rc) + " (in \"" + sql.substr(0, 60) + "\")",
                      rc);
    }

    void reset() override {
        sqlite3_reset(stmt_);
        sqlite3_clear_bindings(stmt_);
    }

    int64_t i64(int col) const override { return sqlite3_column_int64(stmt_, col); }
    double f64(int col) const override { return sqlite3_column_double(stmt_, col); }
    std::string text(int col) const override {
        const auto* p = sqlite3_column_text(stmt_, col);
        return p ? std::string(reinterpret_cast<const char*>(p),
                               static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
                 : std::string();
    }
    std::vector<uint8_t> blob(int col) const override {
        const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, col));
        return p ? std::vector<uint8_t>(p, p + sqlite3_column_bytes(stmt_, col))
                 : std::vector<uint8_t>();
    }

  private:
    void check(int rc) const {
        if (rc != SQLITE_OK) throw DbError(where_ + ": bind: " + message(db_, rc), rc);
    }
    sqlite3* db_ = nullptr;
    sqlite3_stmt* stmt_ = nullptr;
    std::string where_;
    QueryBudget* budget_ = nullptr;
};

}  // namespace

namespace {
/// SQLite's progress handler: stops a statement that has used its budget.
int spend(void* p) {
    auto* b = static_cast<QueryBudget*>(p);
    b->used += QueryBudget::kStepsPerCall;
    if (b->used <= b->limit) return 0;
    b->spent = true;
    return 1;
}
}  // namespace

namespace {

class SqliteConnection final : public ConnectionBackend {
  public:
    SqliteConnection(const std::string& path, Database::Mode mode, const std::string& shown)
        : path_(shown), budget_(std::make_unique<QueryBudget>()) {
        const int flags = mode == Database::Mode::read_only
                              ? SQLITE_OPEN_READONLY
                              : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        const int rc = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
        if (rc != SQLITE_OK) {
            std::string m = message(db_, rc);
            sqlite3_close(db_);
            db_ = nullptr;
            throw DbError(shown + ": cannot open the store: " + m +
                              (mode == Database::Mode::read_only ? " (does the file exist?)" : ""),
                          rc);
        }
        sqlite3_extended_result_codes(db_, 0);
        // A capture's writer holds the write lock for one short batch at a time;
        // readers and a second writer wait for it rather than fail.
        sqlite3_busy_timeout(db_, busy_timeout_ms.load());
        // A store may come from anyone: SQLite's settings for untrusted files
        // (https://sqlite.org/security.html). No writes to the schema by SQL,
        // no functions with side effects from views or triggers it holds,
        // b-tree cells checked as they are read, and every statement bounded.
        sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
        sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
        sqlite3_exec(db_, "PRAGMA cell_size_check = ON", nullptr, nullptr, nullptr);
        sqlite3_progress_handler(db_, QueryBudget::kStepsPerCall, spend, budget_.get());
    }
    ~SqliteConnection() override { sqlite3_close_v2(db_); }

    Backend backend() const override { return Backend::sqlite; }

    void exec(const std::string& sql) override {
        budget_->start();
        char* err = nullptr;
        const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
        if (rc != SQLITE_OK) {
            std::string m = (err ? err : sqlite3_errstr(rc)) + advice(rc);
            if ((rc & 0xff) == SQLITE_INTERRUPT && budget_->spent)
                m = "a statement ran past its budget of " + std::to_string(budget_->limit) +
                    " SQLite steps (in \"" + sql.substr(0, 60) +
                    "\"); the store is damaged or was not written by pathscope";
            sqlite3_free(err);
            throw DbError(path_ + ": " + m, rc);
        }
    }

    std::unique_ptr<StatementBackend> prepare(std::string_view sql) override {
        return std::make_unique<SqliteStatement>(db_, sql, path_, budget_.get());
    }

    void begin_write() override { exec("BEGIN IMMEDIATE"); }
    void begin_read() override {
        char* err = nullptr;
        budget_->start();
        if (sqlite3_exec(db_, "BEGIN", nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string what = err ? err : "unknown error";
            sqlite3_free(err);
            throw DbError(path_ + ": cannot begin a read: " + what);
        }
    }
    void commit() override { exec("COMMIT"); }
    void rollback() noexcept override {
        budget_->start();  // a rollback after a statement that spent its own
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void interrupt() noexcept override { sqlite3_interrupt(db_); }
    void set_query_budget(uint64_t steps) override { budget_->limit = steps; }
    void fresh_budget() override { budget_->start(); }

  private:
    sqlite3* db_ = nullptr;
    std::string path_;
    std::unique_ptr<QueryBudget> budget_;
};

}  // namespace

std::unique_ptr<ConnectionBackend> open_sqlite(const std::string& path, Database::Mode mode,
                                               const std::string& shown) {
    return std::make_unique<SqliteConnection>(path, mode, shown);
}

}  // namespace pathscope::db
