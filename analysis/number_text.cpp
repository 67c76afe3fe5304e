#include "analysis/number_text.h"

#include <charconv>
#include <cmath>

namespace pathscope::analysis {

std::string shortest_number(double v) {
    if (!std::isfinite(v)) return "null";
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

}  // namespace pathscope::analysis
