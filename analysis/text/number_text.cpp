#include "analysis/text/number_text.h"

#include <charconv>
#include <cmath>

#include "db/connection.h"

namespace pathscope::analysis {

std::string shortest_number(double v) {
    if (!std::isfinite(v)) return "null";
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::optional<double> parse_number(std::string_view text) {
    size_t used = 0;
    const double v = leading_double(text, used);
    if (used == 0 || used != text.size()) return std::nullopt;
    return v;
}

double leading_double(std::string_view text, size_t& used) { return db::read_double(text, used); }

}  // namespace pathscope::analysis
