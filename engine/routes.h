// Route tables: parsing addresses and prefixes, and reading route files of
// "PREFIX/LEN [NEXTHOP]" lines (# starts a comment).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/config.h"

namespace pathscope::engine {

std::optional<Ip6Addr> parse_ip6(const std::string& text);
/// "2001:db8::/32"; the address is masked to the prefix length.
std::optional<Prefix6> parse_prefix6(const std::string& text);
std::optional<MacAddr> parse_mac(const std::string& text);
std::string format_ip6(const Ip6Addr& a);
std::string format_prefix6(const Prefix6& p);

/// Reads a route file. Lines without a next hop get `default_nexthop`.
/// Throws std::runtime_error naming the file and line of the first bad line.
std::vector<RouteConfig> read_route_file(const std::string& path, uint32_t default_nexthop);

}  // namespace pathscope::engine
