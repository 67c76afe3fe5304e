// The little JSON writing pathscope needs: quoted strings and numbers.
#pragma once

#include <string>
#include <string_view>

namespace pathscope::analysis {

/// `s` as a JSON string literal, quotes included.
std::string json_string(std::string_view s);
/// A number in the shortest form that reads back exactly; null if not finite.
std::string json_number(double v);

}  // namespace pathscope::analysis
