// A connection to a store and its prepared statements, with two back ends
// behind one interface: an SQLite file (the embedded default) and a
// PostgreSQL server (a team store, named by a postgresql:// URL). The
// callers write SQL once, in the subset both accept, with ?N parameters;
// each back end speaks its own dialect beneath (db/sqlite_connection.cpp,
// db/postgres_connection.cpp). Errors are exceptions that name the store
// (a server's URL without its password) and the step.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "db/backend.h"

namespace pathscope::db {

/// How long a connection waits for another process's write lock before it
/// gives up with SQLITE_BUSY.
inline constexpr int kBusyTimeoutMs = 5000;
/// The wait of connections opened from now on, in this process (a test
/// whose reader must wait on a lock longer than the test does lengthens it).
inline std::atomic<int> busy_timeout_ms{kBusyTimeoutMs};

class DbError : public std::runtime_error {
  public:
    DbError(const std::string& msg, int code = SQLITE_ERROR)
        : std::runtime_error(msg), code_(code) {}
    /// What went wrong, as SQLite's result codes say it (SQLITE_FULL,
    /// SQLITE_BUSY, ...), whichever back end it came from.
    int code() const { return code_; }

  private:
    int code_;
};

/// How much work one statement may do: SQLite's virtual-machine steps,
/// counted by a progress handler. A store is read as hostile input (it may
/// be a damaged file, or one mailed by a colleague whose views or cyclic rows
/// would run forever); a statement past its budget stops with a DbError
/// naming the store instead of hanging the verb or the GUI. (A server store
/// bounds statements with statement_timeout instead.)
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

/// Whether `name` names a server store (postgresql://... or postgres://...)
/// rather than a file.
bool is_server_store(std::string_view name);
/// `name` as messages, logs, reports and stored runs may show it: a server
/// URL with its password (in the user info or a password= parameter)
/// replaced by "***"; a file name as it is.
std::string redacted(std::string_view name);
/// `name` with any password taken out (not masked): what may be kept to
/// reconnect later, the password then coming from ~/.pgpass or PGPASSWORD.
std::string without_password(std::string_view name);

/// A double as a server reads it back bit for bit: the shortest exact form
/// (std::to_chars, the same under every locale), NaN, Infinity.
std::string server_double_text(double v);
/// The number at the start of `text` in the C locale whatever the process's
/// (std::from_chars: "12.5", "-3e-4", "Infinity", "NaN"); sets `used` to
/// the characters read (0: none, and 0 is returned).
double read_double(std::string_view text, size_t& used);

/// One back end's prepared statement (see Statement).
class StatementBackend {
  public:
    virtual ~StatementBackend() = default;
    virtual void bind_int(int i, int64_t v) = 0;
    virtual void bind_double(int i, double v) = 0;
    virtual void bind_text(int i, std::string_view v) = 0;
    virtual void bind_blob(int i, const void* data, size_t n) = 0;
    virtual void bind_null(int i) = 0;
    virtual bool step() = 0;
    /// Runs a statement whose rows are not wanted, then resets it. A back
    /// end may defer it to its transaction's end (PostgreSQL's pipeline).
    virtual void run() {
        while (step()) {
        }
        reset();
    }
    virtual void reset() = 0;
    virtual int64_t i64(int col) const = 0;
    virtual double f64(int col) const = 0;
    virtual std::string text(int col) const = 0;
    virtual std::vector<uint8_t> blob(int col) const = 0;
};

class Statement {
  public:
    Statement() = default;
    explicit Statement(std::unique_ptr<StatementBackend> impl) : impl_(std::move(impl)) {}

    // Bind by 1-based index; each returns *this so calls chain.
    Statement& bind(int i, int64_t v) { return impl_->bind_int(i, v), *this; }
    Statement& bind(int i, uint64_t v) { return bind(i, static_cast<int64_t>(v)); }
    Statement& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
    Statement& bind(int i, unsigned v) { return bind(i, static_cast<int64_t>(v)); }
    Statement& bind(int i, double v) { return impl_->bind_double(i, v), *this; }
    Statement& bind(int i, std::string_view v) { return impl_->bind_text(i, v), *this; }
    Statement& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
    Statement& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
    Statement& bind_blob(int i, const void* data, size_t n) {
        return impl_->bind_blob(i, data, n), *this;
    }
    Statement& bind_null(int i) { return impl_->bind_null(i), *this; }

    /// Steps once: true while a row is available.
    bool step() { return impl_->step(); }
    /// Runs a statement that returns no rows, and resets it. Inside a write
    /// transaction a server store may report its failure only at commit.
    void run() { impl_->run(); }
    /// Back to before the first step, with no values bound.
    void reset() { impl_->reset(); }

    int64_t i64(int col) const { return impl_->i64(col); }
    uint64_t u64(int col) const { return static_cast<uint64_t>(i64(col)); }
    double f64(int col) const { return impl_->f64(col); }
    std::string text(int col) const { return impl_->text(col); }
    std::vector<uint8_t> blob(int col) const { return impl_->blob(col); }

  private:
    std::unique_ptr<StatementBackend> impl_;
};

/// One back end's connection (see Database).
class ConnectionBackend {
  public:
    virtual ~ConnectionBackend() = default;
    virtual Backend backend() const = 0;
    virtual void exec(const std::string& sql) = 0;
    virtual std::unique_ptr<StatementBackend> prepare(std::string_view sql) = 0;
    /// BEGIN for a batch of writes (SQLite: IMMEDIATE, the write lock up front).
    virtual void begin_write() = 0;
    /// BEGIN for reads that see one snapshot of the store.
    virtual void begin_read() = 0;
    virtual void commit() = 0;
    /// Never throws: a rollback after a failure keeps the failure's message.
    virtual void rollback() noexcept = 0;
    /// Stops the statement running on this connection, from another thread.
    virtual void interrupt() noexcept = 0;
    virtual void set_query_budget(uint64_t steps) = 0;
    virtual void fresh_budget() = 0;
    /// A server store: LISTENs for committed writes and returns the socket
    /// that becomes readable when one is announced; -1 for a file (whose
    /// readers poll data_version instead).
    virtual int listen_for_changes() { return -1; }
    /// How many announcements arrived since the last call (reads what the
    /// socket holds; never blocks).
    virtual int take_changes() { return 0; }
};

class Database {
  public:
    enum class Mode { read_only, read_write };

    /// Opens the store `name` names: a postgresql:// URL connects to that
    /// server (see db/postgres_connection.cpp); anything else is an SQLite
    /// file, opened (read_write: created) with SQLite's defences for
    /// untrusted files on (SQLITE_DBCONFIG_DEFENSIVE, no trusted schema,
    /// cell size checks) and every statement bounded by a QueryBudget.
    /// Throws DbError.
    Database(const std::string& name, Mode mode);
    /// An SQLite file that messages name as `shown` (a private copy of it).
    Database(const std::string& file, Mode mode, const std::string& shown);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    /// The store's name fit for messages (a server URL without its password).
    const std::string& path() const { return path_; }
    Backend backend() const { return impl_->backend(); }

    /// Runs one or more statements without results.
    void exec(const std::string& sql) { impl_->exec(sql); }
    Statement prepare(std::string_view sql) const { return Statement(impl_->prepare(sql)); }
    /// The first column of the first row of `sql` as an integer (0 when no row).
    int64_t scalar(std::string_view sql) const;
    /// The steps each statement may take from its first step (fuzzers and
    /// tests lower it; QueryBudget::kDefaultSteps otherwise).
    void set_query_budget(uint64_t steps) { impl_->set_query_budget(steps); }
    /// Starts a fresh budget (for statements run outside prepare/exec).
    void fresh_budget() const { impl_->fresh_budget(); }
    /// Stops what this connection is running (the GUI's loader, cancelled).
    void interrupt() const noexcept { impl_->interrupt(); }
    ConnectionBackend& connection() const { return *impl_; }
    /// See ConnectionBackend::listen_for_changes and take_changes.
    int listen_for_changes() const { return impl_->listen_for_changes(); }
    int take_changes() const { return impl_->take_changes(); }

  private:
    std::string path_;
    std::unique_ptr<ConnectionBackend> impl_;
};

/// The SQLite back end of a Database (db/sqlite_connection.cpp).
/// `shown` names the store in its messages (a private copy's, its original).
std::unique_ptr<ConnectionBackend> open_sqlite(const std::string& path, Database::Mode mode,
                                               const std::string& shown);
/// The PostgreSQL back end of a Database (db/postgres_connection.cpp).
std::unique_ptr<ConnectionBackend> open_postgres(const std::string& url, Database::Mode mode);

/// RAII transaction for writes; rolls back unless committed.
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
