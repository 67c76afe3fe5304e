#include "db/sqlite.h"

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
                   std::to_string(kBusyTimeoutMs / 1000) +
                   " s: let it finish and try again, or give --db another store)";
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

Statement::Statement(sqlite3* db, std::string_view sql, const std::string& where,
                     QueryBudget* budget)
    : db_(db), where_(where), budget_(budget) {
    const int rc =
        sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
    if (rc != SQLITE_OK)
        throw DbError(where_ + ": cannot prepare \"" + std::string(sql.substr(0, 60)) +
                          "\": " + message(db, rc),
                      rc);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Statement(Statement&& o) noexcept
    : db_(o.db_), stmt_(o.stmt_), where_(std::move(o.where_)), budget_(o.budget_) {
    o.stmt_ = nullptr;
}

Statement& Statement::operator=(Statement&& o) noexcept {
    if (this != &o) {
        sqlite3_finalize(stmt_);
        db_ = o.db_;
        stmt_ = o.stmt_;
        where_ = std::move(o.where_);
        budget_ = o.budget_;
        o.stmt_ = nullptr;
    }
    return *this;
}

void Statement::check(int rc, const char* what) const {
    if (rc != SQLITE_OK) throw DbError(where_ + ": " + what + ": " + message(db_, rc), rc);
}

Statement& Statement::bind(int i, int64_t v) {
    check(sqlite3_bind_int64(stmt_, i, v), "bind");
    return *this;
}
Statement& Statement::bind(int i, double v) {
    check(sqlite3_bind_double(stmt_, i, v), "bind");
    return *this;
}
Statement& Statement::bind(int i, std::string_view v) {
    check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT),
          "bind");
    return *this;
}
Statement& Statement::bind_blob(int i, const void* data, size_t n) {
    check(sqlite3_bind_blob(stmt_, i, data, static_cast<int>(n), SQLITE_TRANSIENT), "bind");
    return *this;
}
Statement& Statement::bind_null(int i) {
    check(sqlite3_bind_null(stmt_, i), "bind");
    return *this;
}

bool Statement::step() {
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
    throw DbError(where_ + ": " + message(db_, rc) + " (in \"" + sql.substr(0, 60) + "\")", rc);
}

void Statement::run() {
    while (step()) {
    }
    reset();
}

void Statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

std::string Statement::text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
}

std::vector<uint8_t> Statement::blob(int col) const {
    const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, col));
    return p ? std::vector<uint8_t>(p, p + sqlite3_column_bytes(stmt_, col))
             : std::vector<uint8_t>();
}

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

Database::Database(const std::string& path, Mode mode)
    : path_(path), budget_(std::make_unique<QueryBudget>()) {
    const int flags =
        mode == Mode::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    const int rc = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string m = message(db_, rc);
        sqlite3_close(db_);
        db_ = nullptr;
        throw DbError(path + ": cannot open the store: " + m +
                          (mode == Mode::read_only ? " (does the file exist?)" : ""),
                      rc);
    }
    sqlite3_extended_result_codes(db_, 0);
    // A capture's writer holds the write lock for one short batch at a time;
    // readers and a second writer wait for it rather than fail.
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    // A store may come from anyone: SQLite's settings for untrusted files
    // (https://sqlite.org/security.html). No writes to the schema by SQL,
    // no functions with side effects from views or triggers it holds,
    // b-tree cells checked as they are read, and every statement bounded.
    sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_exec(db_, "PRAGMA cell_size_check = ON", nullptr, nullptr, nullptr);
    sqlite3_progress_handler(db_, QueryBudget::kStepsPerCall, spend, budget_.get());
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::exec(const std::string& sql) {
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

Statement Database::prepare(std::string_view sql) const {
    return Statement(db_, sql, path_, budget_.get());
}

int64_t Database::scalar(std::string_view sql) const {
    Statement s = prepare(sql);
    return s.step() ? s.i64(0) : 0;
}

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
    if (done_) return;
    db_.fresh_budget();  // a rollback after a statement that spent its own
    sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
    db_.exec("COMMIT");
    done_ = true;
}

ReadSnapshot::ReadSnapshot(const Database& db) : db_(db) {
    char* err = nullptr;
    db_.fresh_budget();
    if (sqlite3_exec(db_.handle(), "BEGIN", nullptr, nullptr, &err) != SQLITE_OK) {
        const std::string what = err ? err : "unknown error";
        sqlite3_free(err);
        throw DbError(db_.path() + ": cannot begin a read: " + what);
    }
}

ReadSnapshot::~ReadSnapshot() {
    db_.fresh_budget();
    sqlite3_exec(db_.handle(), "COMMIT", nullptr, nullptr, nullptr);
}

}  // namespace pathscope::db
