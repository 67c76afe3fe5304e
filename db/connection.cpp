#include "db/connection.h"

#include <charconv>
#include <cmath>
#include <regex>
#include <system_error>

namespace pathscope::db {

bool is_server_store(std::string_view name) {
    return name.rfind("postgresql://", 0) == 0 || name.rfind("postgres://", 0) == 0;
}

namespace {

// A server URL with its password (in the user info, or a password=
// parameter, which libpq also reads) replaced by `with`, or taken out
// altogether when `with` is empty.
std::string replace_password(std::string_view name, const std::string& with) {
    if (!is_server_store(name)) return std::string(name);
    std::string s(name);
    // scheme://user:PASSWORD@host... (the user info ends at the last '@'
    // before the path).
    const size_t from = s.find("://") + 3;
    const size_t path = s.find_first_of("/?", from);
    const size_t at = s.rfind('@', path == std::string::npos ? s.size() : path);
    if (at != std::string::npos && at > from) {
        const size_t colon = s.find(':', from);
        if (colon != std::string::npos && colon < at)
            s.replace(with.empty() ? colon : colon + 1, at - colon - (with.empty() ? 0 : 1), with);
    }
    static const std::regex param("([?&])password=[^&]*(&?)", std::regex::icase);
    if (!with.empty()) return std::regex_replace(s, param, "$1password=" + with + "$2");
    s = std::regex_replace(s, param, "$1");
    if (!s.empty() && (s.back() == '&' || s.back() == '?')) s.pop_back();
    return s;
}

}  // namespace

std::string redacted(std::string_view name) { return replace_password(name, "***"); }

std::string without_password(std::string_view name) { return replace_password(name, ""); }

std::string server_double_text(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

double read_double(std::string_view text, size_t& used) {
    used = 0;
    // from_chars takes no leading '+' (strtod does).
    const bool plus = !text.empty() && text.front() == '+';
    const char* begin = text.data() + (plus ? 1 : 0);
    double v = 0;
    const auto r = std::from_chars(begin, text.data() + text.size(), v);
    if (r.ec == std::errc::invalid_argument || r.ptr == begin) return 0;
    if (r.ec == std::errc::result_out_of_range) {
        // Too large or too small for a double: what strtod gives.
        const bool negative = *begin == '-';
        const std::string_view digits(begin, static_cast<size_t>(r.ptr - begin));
        const size_t e = digits.find_first_of("eE");
        const bool tiny = e != std::string_view::npos && e + 1 < digits.size() && digits[e + 1] == '-';
        v = tiny ? (negative ? -0.0 : 0.0) : (negative ? -HUGE_VAL : HUGE_VAL);
    }
    used = static_cast<size_t>(r.ptr - text.data());
    return v;
}

Database::Database(const std::string& name, Mode mode)
    : path_(redacted(name)),
      impl_(is_server_store(name) ? open_postgres(name, mode) : open_sqlite(name, mode, name)) {}

Database::Database(const std::string& file, Mode mode, const std::string& shown)
    : path_(redacted(shown)), impl_(open_sqlite(file, mode, shown)) {}

Database::~Database() = default;

int64_t Database::scalar(std::string_view sql) const {
    Statement s = prepare(sql);
    return s.step() ? s.i64(0) : 0;
}

Transaction::Transaction(Database& db) : db_(db) { db_.connection().begin_write(); }

Transaction::~Transaction() {
    if (!done_) db_.connection().rollback();
}

void Transaction::commit() {
    db_.connection().commit();
    done_ = true;
}

ReadSnapshot::ReadSnapshot(const Database& db) : db_(db) { db_.connection().begin_read(); }

ReadSnapshot::~ReadSnapshot() {
    try {
        db_.connection().commit();
    } catch (const DbError&) {  // a read has nothing to lose; the next statement says what broke
    }
}

}  // namespace pathscope::db
