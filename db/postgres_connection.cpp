// The PostgreSQL back end of a store, over libpq (Debian's libpq 15). The
// callers' SQL uses ?N parameters; here they become $N and each statement is
// prepared once on the server. Values go as text (numbers printed exactly:
// the shortest form that reads back, in the C locale), blobs as binary;
// results come back as text and are parsed here (std::from_chars: never
// strtod, which reads "12.5" as 12 under a locale whose decimal point is
// ','). The connection string's password is never put in a message: the
// store is named by redacted(url) everywhere.
#include <libpq-fe.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

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
                " (this role may not write here: capture with the store's writer role; see "
                "docs/team-store-and-gate.md)"};
    if (s.rfind("08", 0) == 0)
        return {SQLITE_IOERR, " (the connection to the server broke: is it running?)"};
    return {SQLITE_ERROR, ""};
}

/// The start of a statement for a message: its first line, whole words up
/// to about 60 characters, "..." where it was cut.
std::string sql_excerpt(std::string_view sql) {
    std::string one;
    for (char c : sql) one += c == '\n' || c == '\t' ? ' ' : c;
    if (one.size() <= 60) return one;
    size_t cut = one.rfind(' ', 60);
    if (cut == std::string::npos || cut < 20) cut = 60;
    return one.substr(0, cut) + " ...";
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
    if (!sql.empty()) m += " (in \"" + sql_excerpt(sql) + "\")";
    throw DbError(m + advice, code);
}

struct Result {
    PGresult* r = nullptr;
    ~Result() { PQclear(r); }
};

/// A write transaction's statements sent in libpq's pipeline mode and not
/// read back yet: a batch of a capture (BEGIN, an INSERT a table, COMMIT,
/// the change announcement) costs one round trip to the server, not one a
/// statement. Whatever needs a result first ends the pipeline.
struct Pipeline {
    bool on = false;
    std::vector<std::string> sent;  // each statement's SQL, for its error message
};

/// Sends a statement into the pipeline; false when libpq cannot queue it.
bool send_piped(PGconn* conn, Pipeline& p, const std::string& sql, const char* prepared, int n,
                const char* const* values, const int* lengths, const int* formats) {
    const bool sent =
        prepared ? PQsendQueryPrepared(conn, prepared, n, values, lengths, formats, 0) == 1
                 : PQsendQueryParams(conn, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
    if (sent) p.sent.push_back(sql);
    return sent;
}

/// Ends pipeline mode: syncs, reads every statement's result back, and
/// throws the first failure (the server skips the rest after one).
void end_pipeline(PGconn* conn, Pipeline& p, const std::string& where) {
    if (!p.on) return;
    p.on = false;
    const std::vector<std::string> sent = std::move(p.sent);
    p.sent.clear();
    PGresult* failed = nullptr;
    std::string failed_sql;
    if (PQpipelineSync(conn) == 1) {
        size_t i = 0;  // the statement whose results come now
        for (;;) {
            PGresult* r = PQgetResult(conn);
            if (!r) {  // the end of one statement's results
                if (PQstatus(conn) != CONNECTION_OK) break;  // no sync will come
                ++i;
                continue;
            }
            const auto st = PQresultStatus(r);
            if (st == PGRES_PIPELINE_SYNC) {
                PQclear(r);
                break;
            }
            if (!failed && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK &&
                st != PGRES_PIPELINE_ABORTED) {
                failed = r;
                failed_sql = i < sent.size() ? sent[i] : "";
                continue;
            }
            PQclear(r);
        }
    }
    PQexitPipelineMode(conn);
    if (failed || PQstatus(conn) != CONNECTION_OK) {
        Result keep{failed};
        fail(conn, failed, where, failed_sql);
    }
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

class PgStatement final : public StatementBackend {
  public:
    PgStatement(PGconn* conn, Pipeline& pipe, std::string_view sql, const std::string& where,
                int serial)
        : conn_(conn), pipe_(pipe), where_(where), sql_(dialect(sql)),
          name_("ps" + std::to_string(serial)) {
        end_pipeline(conn_, pipe_, where_);
        const int n = parameter_count(sql_);
        values_.resize(n);
        set_.assign(n, false);
        formats_.assign(n, 0);
        Result r{PQprepare(conn_, name_.c_str(), sql_.c_str(), n, nullptr)};
        if (PQresultStatus(r.r) != PGRES_COMMAND_OK) fail(conn_, r.r, where_ + ": cannot prepare", sql_);
    }
    ~PgStatement() override {
        PQclear(res_);
        // (in a pipeline the statement stays prepared until the connection ends)
        if (!pipe_.on && PQstatus(conn_) == CONNECTION_OK &&
            PQtransactionStatus(conn_) != PQTRANS_INERROR)
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
            end_pipeline(conn_, pipe_, where_);  // a result is wanted now
            const Params p = params();
            res_ = PQexecPrepared(conn_, name_.c_str(), static_cast<int>(values_.size()),
                                  p.values.data(), p.lengths.data(), formats_.data(), 0);
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

    /// In a write transaction's pipeline: sent, its result read at the
    /// pipeline's end. Else run at once.
    void run() override {
        if (!pipe_.on) {
            while (step()) {
            }
            reset();
            return;
        }
        const Params p = params();
        if (!send_piped(conn_, pipe_, sql_, name_.c_str(), static_cast<int>(values_.size()),
                        p.values.data(), p.lengths.data(), formats_.data())) {
            end_pipeline(conn_, pipe_, where_);  // throws when the connection broke
            while (step()) {  // else the plain way
            }
        }
        reset();
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
        size_t used = 0;
        return v ? read_double(v, used) : 0;
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
    struct Params {
        std::vector<const char*> values;
        std::vector<int> lengths;
    };
    Params params() const {
        Params p{std::vector<const char*>(values_.size()), std::vector<int>(values_.size())};
        for (size_t i = 0; i < values_.size(); ++i) {
            p.values[i] = set_[i] ? values_[i].data() : nullptr;
            p.lengths[i] = static_cast<int>(values_[i].size());
        }
        return p;
    }
    void check_index(int i) const {
        if (i < 1 || i > static_cast<int>(values_.size()))
            throw DbError(where_ + ": bind: no parameter " + std::to_string(i) + " in \"" +
                          sql_excerpt(sql_) + "\"");
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
    Pipeline& pipe_;
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
             std::to_string(busy_timeout_ms.load()) + "ms'; SET application_name = 'pathscope'");
        set_query_budget(QueryBudget::default_limit.load());
        if (mode == Database::Mode::read_only) exec("SET default_transaction_read_only = on");
    }
    ~PgConnection() override {
        if (cancel_) PQfreeCancel(cancel_);
        PQfinish(conn_);
    }

    Backend backend() const override { return Backend::postgres; }

    void exec(const std::string& sql) override {
        end_pipeline(conn_, pipe_, where_);
        Result r{PQexec(conn_, sql.c_str())};
        const auto st = PQresultStatus(r.r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail(conn_, r.r, where_, sql);
    }

    std::unique_ptr<StatementBackend> prepare(std::string_view sql) override {
        return std::make_unique<PgStatement>(conn_, pipe_, sql, where_, ++serial_);
    }

    void begin_write() override {
        end_pipeline(conn_, pipe_, where_);
        writing_ = true;
        if (PQenterPipelineMode(conn_) == 1) {
            pipe_.on = true;
            if (send_piped(conn_, pipe_, "BEGIN", nullptr, 0, nullptr, nullptr, nullptr)) return;
            end_pipeline(conn_, pipe_, where_);  // throws why it could not be sent
        }
        exec("BEGIN");
    }
    void begin_read() override {
        exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        writing_ = false;
    }
    /// A write, once committed, advances pathscope_changes (the store's
    /// data_version) and wakes the live views that LISTEN for it.
    void commit() override {
        const bool announce = std::exchange(writing_, false);
        if (pipe_.on) {
            bool sent = send_piped(conn_, pipe_, "COMMIT", nullptr, 0, nullptr, nullptr, nullptr);
            if (sent && announce)
                sent = send_piped(conn_, pipe_, kAnnounce, nullptr, 0, nullptr, nullptr, nullptr);
            end_pipeline(conn_, pipe_, where_);
            if (sent) return;
            fail(conn_, nullptr, where_, "COMMIT");
        }
        exec(announce ? std::string("COMMIT; ") + kAnnounce : std::string("COMMIT"));
    }
    void rollback() noexcept override {
        writing_ = false;
        try {
            end_pipeline(conn_, pipe_, where_);
        } catch (const DbError&) {
            // the failure being rolled back, or a broken connection: said already
        }
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
    Pipeline pipe_;
    /// After the commit, so that a reader who sees the new data_version sees
    /// the rows too; one statement (the version is the notice's payload).
    static constexpr const char* kAnnounce =
        "SELECT pg_notify('pathscope_changes', nextval('pathscope_changes')::text)";
};

}  // namespace

std::unique_ptr<ConnectionBackend> open_postgres(const std::string& url, Database::Mode mode) {
    return std::make_unique<PgConnection>(url, mode);
}

}  // namespace pathscope::db
