// Numbers as text that reads back exactly (folded weights, CSV cells), and
// text back as numbers: the same under every locale (std::to_chars and
// std::from_chars; never strtod or printf, which follow LC_NUMERIC and read
// "12.5" as 12 where the decimal point is a comma).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pathscope::analysis {

/// The shortest form that reads back exactly; "null" if not finite.
std::string shortest_number(double v);

/// The number `text` is, whole ("12.5", "-3e-4", "inf" and "nan" too), or
/// nullopt for anything else (a trailing character, an empty string).
std::optional<double> parse_number(std::string_view text);
/// The same, reading as much of `text` as is a number (as strtod would, but
/// in the C locale): sets `used` to the characters read, 0 when none.
double leading_double(std::string_view text, size_t& used);

}  // namespace pathscope::analysis
