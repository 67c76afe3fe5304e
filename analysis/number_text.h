// Numbers as text that reads back exactly (folded weights, CSV cells).
#pragma once

#include <string>

namespace pathscope::analysis {

/// The shortest form that reads back exactly; "null" if not finite.
std::string shortest_number(double v);

}  // namespace pathscope::analysis
