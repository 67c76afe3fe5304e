// pathscope routes: a BGP-shaped IPv6 route table for scenarios.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "cli/args.h"
#include "cli/verbs.h"
#include "engine/route_gen.h"

namespace pathscope::cli {

const char* const kRoutesUsage =
    "usage: pathscope routes [--count N] [--seed S] [--nexthop ID] [-o FILE]\n"
    "\n"
    "Writes N IPv6 routes (default 40000) with the prefix-length mix of a full BGP\n"
    "view (mostly /48, /32, /44, /40, /36), one \"PREFIX/LEN NEXTHOP\" per line, to\n"
    "FILE (default: standard output). The same seed gives the same table.\n";

int cmd_routes(const std::vector<std::string>& argv) {
    const Args a =
        parse_args(argv, {"--count", "--seed", "--nexthop", "-o", "--output"}, {}, kRoutesUsage);
    if (!a.positional.empty())
        usage_error("unknown argument '" + a.positional[0] + "'", kRoutesUsage);
    const uint64_t count = parse_count("--count", a.get("--count", "40000"), kRoutesUsage);
    const uint64_t seed = parse_count("--seed", a.get("--seed", "1"), kRoutesUsage);
    const uint64_t nexthop = parse_count("--nexthop", a.get("--nexthop", "1"), kRoutesUsage);
    const std::string out = a.get("-o", a.get("--output"));
    if (count == 0 || count > 10'000'000)
        usage_error("--count must be between 1 and 10000000", kRoutesUsage);
    if (nexthop == 0 || nexthop > UINT32_MAX)
        usage_error("--nexthop must be 1 or more", kRoutesUsage);
    const auto routes = engine::generate_routes(static_cast<uint32_t>(count), seed);
    if (out.empty()) {
        engine::write_routes(std::cout, routes, static_cast<uint32_t>(nexthop));
    } else {
        std::ofstream f(out);
        if (!f) throw std::runtime_error(out + ": cannot write: " + std::strerror(errno));
        engine::write_routes(f, routes, static_cast<uint32_t>(nexthop));
        std::cerr << "wrote " << routes.size() << " routes to " << out << "\n";
    }
    return 0;
}

}  // namespace pathscope::cli
