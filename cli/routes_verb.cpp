// pathscope routes: a BGP-shaped IPv6 route table for scenarios.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "cli/cli_support.h"
#include "engine/route_gen.h"

namespace pathscope::cli {

namespace {

struct RoutesArgs {
    uint32_t count = 40000, nexthop = 1;
    uint64_t seed = 1;
    std::string out;
};

int routes(const RoutesArgs& a) {
    const std::string& out = a.out;
    const auto routes = engine::generate_routes(a.count, a.seed);
    if (out.empty()) {
        engine::write_routes(std::cout, routes, a.nexthop);
    } else {
        std::ofstream f(out);
        if (!f) throw std::runtime_error(out + ": cannot write: " + std::strerror(errno));
        engine::write_routes(f, routes, a.nexthop);
        std::cerr << "wrote " << routes.size() << " routes to " << out << "\n";
    }
    return 0;
}


}  // namespace

void add_routes_verb(CLI::App& app, Verbs& verbs) {
    auto a = std::make_shared<RoutesArgs>();
    CLI::App* v =
        app.add_subcommand("routes", "write a route table shaped like a full IPv6 BGP view");
    v->footer(
        "Writes N IPv6 routes with the prefix-length mix of a full BGP view (mostly /48,\n"
        "/32, /44, /40, /36), one \"PREFIX/LEN NEXTHOP\" per line, to FILE (default:\n"
        "standard output). The same seed gives the same table.");
    v->add_option("--count", a->count, "routes to write (default 40000)")
        ->type_name("N")
        ->check(CLI::Range(1u, 10'000'000u));
    v->add_option("--seed", a->seed, "the generator's seed (default 1)")->type_name("S");
    v->add_option("--nexthop", a->nexthop, "next hop id of every route (default 1)")
        ->type_name("ID")
        ->check(CLI::Range(1u, UINT32_MAX));
    v->add_option("-o,--output", a->out, "the file to write")->type_name("FILE");
    verbs.add(v, [a] { return routes(*a); });
}

}  // namespace pathscope::cli
