// Generates route tables shaped like a full IPv6 BGP view: the prefix-length
// mix of a real table (mostly /48, then /32, /44, /40, /36), addresses drawn
// from 2000::/3 (documentation space 2001:db8::/32 left out, for test traffic).
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "engine/config.h"

namespace pathscope::engine {

std::vector<Prefix6> generate_routes(uint32_t count, uint64_t seed = 1);

/// Writes "PREFIX/LEN NEXTHOP" lines with a header comment.
void write_routes(std::ostream& out, const std::vector<Prefix6>& routes, uint32_t nexthop);

}  // namespace pathscope::engine
