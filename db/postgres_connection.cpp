// The PostgreSQL back end of a store, over libpq (Debian's libpq 15). The
// callers' SQL uses ?N parameters; here they become $N and each statement is
// prepared once on the server. Values go as text (numbers printed exactly:
// %.17g for doubles), blobs as binary; results come back as text and are
// parsed here. The connection string's password is never put in a message:
// the store is named by redacted(url) everywhere.
#include <libpq-fe.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "db/connection.h"

namespace pathscope::db {

namespace {

/// SQLite's result code for what a server's SQLSTATE says, and how to fix it.
std::pair<int, std::string> classify(const char* sqlstate) {
    const std::string s = sqlstate ? sqlstate : "";
    if (s == "55P03" || s == "40001" || s == "40P01")
        return {SQLITE_BUSY, " (another writer held what this needed: let it finish and try again)"};
    if (s == "57014")
        return {SQLITE_INTERRUPT,
                " (the statement ran past the connection's statement_timeout, or was cancelled)"};
    if (s == "53100") return {SQLITE_FULL, " (the server's disk is full: ask its administrator)"};
    if (s == "42501" || s == "25006")
        return {SQLITE_READONLY,
                " (this role may not write here: capture with the store's writer role; see the "
                "README's \"A team store\")"};
    if (s.rfind("08", 0) == 0)
        return {SQLITE_IOERR, " (the connection to the server broke: is it running?)"};
    return {SQLITE_ERROR, ""};
}

std::string trimmed(const char* m) {
    std::string s = m ? m : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    // libpq's messages may run over lines ("DETAIL: ..."): one line each.
    for (auto& c : s)
        if (c == '\n') c = ' ';
    return s;
}

/// Throws the error of `res` (or of the connection, when there is no result).
[[noreturn]] void fail(PGconn* conn, const PGresult* res, const std::string& where,
                       std::string_view sql = {}) {
    const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
    auto [code, advice] = classify(state);
    if (PQstatus(conn) == CONNECTION_BAD) {
        code = SQLITE_IOERR;
        advice = " (the connection to the server broke: is it running?)";
    }
    std::string m = where + ": " + trimmed(res ? PQresultErrorMessage(res) : PQerrorMessage(conn));
    if (m.size() == where.size() + 2) m += trimmed(PQerrorMessage(conn));
    if (!sql.empty()) m += " (in \"" + std::string(sql.substr(0, 60)) + "\")";
    throw DbError(m + advice, code);
}

/// The callers' SQL in PostgreSQL's dialect: ?N parameters become $N
/// (outside quoted text).
std::string dialect(std::string_view sql) {
    std::string out;
    out.reserve(sql.size());
    char quote = 0;
    for (size_t i = 0; i < sql.size(); ++i) {
        const char c = sql[i];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '?' && i + 1 < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
            out += '$';
            continue;
        }
        out += c;
    }
    return out;
}

int parameter_count(std::string_view sql) {
    int n = 0;
    for (size_t i = 0; i + 1 < sql.size(); ++i)
        if (sql[i] == '$' && std::isdigit(static_cast<unsigned char>(sql[i + 1])))
            n = std::max(n, std::atoi(std::string(sql.substr(i + 1, 6)).c_str()));
    return n;
}

struct Result {
    PGresult* r = nullptr;
    ~Result() { PQclear(r); }
};

class PgStatement final : public StatementBackend {
  public:
    PgStatement(PGconn* conn, std::string_view sql, const std::string& where, int serial)
        : conn_(conn), where_(where), sql_(dialect(sql)), name_("ps" + std::to_string(serial)) {
        const int n = parameter_count(sql_);
        values_.resize(n);
        set_.assign(n, false);
        formats_.assign(n, 0);
        Result r{PQprepare(conn_, name_.c_str(), sql_.c_str(), n, nullptr)};
        if (PQresultStatus(r.r) != PGRES_COMMAND_OK) fail(conn_, r.r, where_ + ": cannot prepare", sql_);
    }
    ~PgStatement() override {
        PQclear(res_);
        if (PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) != PQTRANS_INERROR)
            PQclear(PQexec(conn_, ("DEALLOCATE " + name_).c_str()));
    }

    void bind_int(int i, int64_t v) override { set(i, std::to_string(v), 0); }
    void bind_double(int i, double v) override { set(i, server_double_text(v), 0); }
    void bind_text(int i, std::string_view v) override {
        // A server's text cannot hold NUL: it is kept as the symbol for it.
        std::string t(v);
        for (size_t p = t.find('\0'); p != std::string::npos; p = t.find('\0', p))
            t.replace(p, 1, "\u2400");
        set(i, std::move(t), 0);
    }
    void bind_blob(int i, const void* data, size_t n) override {
        set(i, std::string(static_cast<const char*>(data), n), 1);
    }
    void bind_null(int i) override {
        check_index(i);
        set_[i - 1] = false;
    }

    bool step() override {
        if (!res_) {
            std::vector<const char*> ptrs(values_.size());
            std::vector<int> lengths(values_.size());
            for (size_t i = 0; i < values_.size(); ++i) {
                ptrs[i] = set_[i] ? values_[i].data() : nullptr;
                lengths[i] = static_cast<int>(values_[i].size());
            }
            res_ = PQexecPrepared(conn_, name_.c_str(), static_cast<int>(values_.size()),
                                  ptrs.data(), lengths.data(), formats_.data(), 0);
            const auto st = PQresultStatus(res_);
            if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
                PGresult* r = res_;
                res_ = nullptr;
                Result keep{r};
                fail(conn_, r, where_, sql_);
            }
            rows_ = PQntuples(res_);
            row_ = -1;
        }
        return ++row_ < rows_;
    }

    void reset() override {
        PQclear(res_);
        res_ = nullptr;
        std::fill(set_.begin(), set_.end(), false);
        std::fill(formats_.begin(), formats_.end(), 0);
    }

    int64_t i64(int col) const override {
        const char* v = value(col);
        return v ? std::strtoll(v, nullptr, 10) : 0;
    }
    double f64(int col) const override {
        const char* v = value(col);
        return v ? std::strtod(v, nullptr) : 0;
    }
    std::string text(int col) const override {
        const char* v = value(col);
        return v ? std::string(v, static_cast<size_t>(PQgetlength(res_, row_, col))) : std::string();
    }
    std::vector<uint8_t> blob(int col) const override {
        const char* v = value(col);
        if (!v) return {};
        // bytea's text output: \x then two hex digits a byte.
        const size_t n = static_cast<size_t>(PQgetlength(res_, row_, col));
        std::vector<uint8_t> out;
        if (n < 2 || v[0] != '\\' || v[1] != 'x') return std::vector<uint8_t>(v, v + n);
        out.reserve((n - 2) / 2);
        auto hex = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
        for (size_t i = 2; i + 1 < n; i += 2)
            out.push_back(static_cast<uint8_t>(hex(v[i]) << 4 | hex(v[i + 1])));
        return out;
    }

  private:
    void check_index(int i) const {
        if (i < 1 || i > static_cast<int>(values_.size()))
            throw DbError(where_ + ": bind: no parameter " + std::to_string(i) + " in \"" +
                          sql_.substr(0, 60) + "\"");
    }
    void set(int i, std::string v, int format) {
        check_index(i);
        values_[i - 1] = std::move(v);
        set_[i - 1] = true;
        formats_[i - 1] = format;
    }
    const char* value(int col) const {
        if (!res_ || row_ < 0 || row_ >= rows_ || col >= PQnfields(res_) ||
            PQgetisnull(res_, row_, col))
            return nullptr;
        return PQgetvalue(res_, row_, col);
    }

    PGconn* conn_;
    std::string where_, sql_, name_;
    std::vector<std::string> values_;
    std::vector<bool> set_;
    std::vector<int> formats_;
    PGresult* res_ = nullptr;
    int rows_ = 0, row_ = -1;
};

class PgConnection final : public ConnectionBackend {
  public:
    PgConnection(const std::string& url, Database::Mode mode) : where_(redacted(url)) {
        conn_ = PQconnectdb(url.c_str());
        if (PQstatus(conn_) != CONNECTION_OK) {
            const std::string m = trimmed(PQerrorMessage(conn_));
            PQfinish(conn_);
            conn_ = nullptr;
            throw DbError(where_ + ": cannot connect to the server store: " + m +
                              " (is the server running, and does the URL name its host, port, "
                              "database and a role that may log in?)",
                          SQLITE_CANTOPEN);
        }
        cancel_ = PQgetCancel(conn_);
        // The server's notices and its last words before a shutdown are not
        // printed: what matters comes back as the failed statement's error.
        PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
        // Quiet notices (CREATE ... IF NOT EXISTS), a writer that waits for
        // another's lock as an SQLite store does, and every statement bounded.
        exec("SET client_min_messages = warning; SET lock_timeout = '" +
             std::to_string(kBusyTimeoutMs) + "ms'; SET application_name = 'pathscope'");
        set_query_budget(QueryBudget::default_limit.load());
        if (mode == Database::Mode::read_only) exec("SET default_transaction_read_only = on");
    }
    ~PgConnection() override {
        if (cancel_) PQfreeCancel(cancel_);
        PQfinish(conn_);
    }

    Backend backend() const override { return Backend::postgres; }

    void exec(const std::string& sql) override {
        Result r{PQexec(conn_, sql.c_str())};
        const auto st = PQresultStatus(r.r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail(conn_, r.r, where_, sql);
    }

    std::unique_ptr<StatementBackend> prepare(std::string_view sql) override {
        return std::make_unique<PgStatement>(conn_, sql, where_, ++serial_);
    }

    void begin_write() override {
        exec("BEGIN");
        writing_ = true;
    }
    void begin_read() override {
        exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        writing_ = false;
    }
    /// A write, once committed, advances pathscope_changes (the store's
    /// data_version) and wakes the live views that LISTEN for it.
    void commit() override {
        exec("COMMIT");
        if (std::exchange(writing_, false))
            exec("SELECT nextval('pathscope_changes'); NOTIFY pathscope_changes");
    }
    void rollback() noexcept override {
        writing_ = false;
        if (PQstatus(conn_) == CONNECTION_OK) PQclear(PQexec(conn_, "ROLLBACK"));
    }
    void interrupt() noexcept override {
        char err[256];
        if (cancel_) PQcancel(cancel_, err, sizeof err);
    }
    /// SQLite's steps as time: about 1e8 steps a second, at least a second.
    void set_query_budget(uint64_t steps) override {
        const uint64_t ms = std::max<uint64_t>(1000, steps / 100'000);
        exec("SET statement_timeout = " + std::to_string(ms));
    }
    void fresh_budget() override {}

    int listen_for_changes() override {
        exec("LISTEN pathscope_changes");
        return PQsocket(conn_);
    }
    int take_changes() override {
        PQconsumeInput(conn_);
        int n = 0;
        while (PGnotify* note = PQnotifies(conn_)) {
            ++n;
            PQfreemem(note);
        }
        return n;
    }

  private:
    std::string where_;
    PGconn* conn_ = nullptr;
    PGcancel* cancel_ = nullptr;
    int serial_ = 0;
    bool writing_ = false;
};

}  // namespace

std::unique_ptr<ConnectionBackend> open_postgres(const std::string& url, Database::Mode mode) {
    return std::make_unique<PgConnection>(url, mode);
}

}  // namespace pathscope::db
