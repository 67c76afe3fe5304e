#include "analysis/number_text.h"

#include <charconv>
#include <cmath>
#include <system_error>

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

double leading_double(std::string_view text, size_t& used) {
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

}  // namespace pathscope::analysis
