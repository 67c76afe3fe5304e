// The route-output micro-benchmark (`pathscope bench route-output`): times
// the engine's own route-output function (EngineContext::route, what
// udp6_output calls per datagram) per call with serialised TSC reads, over a
// BGP-shaped table and a fixed set of destinations drawn from it, next to
// bare rte_fib6 and rte_lpm6 lookups of the same addresses; prints the
// figures and stores them as a run of kind "bench".
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "db/records.h"

namespace pathscope::capture {

using db::kBenchKind;
/// Histogram subjects (kind db::kLatency, unit cycles) a bench run stores.
inline constexpr const char* kRouteOutputSubject = "route-output";
inline constexpr const char* kBareFib6Subject = "rte_fib6_lookup";

struct RouteBenchOptions {
    uint32_t routes = 40000;  ///< generated like `pathscope routes` (engine/route_gen.h)
    uint32_t calls = 100000;  ///< timed calls per trial
    /// Distinct destinations, cycled through. 256 keep the lookups' table
    /// lines in cache, so that the figures are the lookup's own work; many
    /// thousands measure memory misses instead (bulk lookups hide those).
    uint32_t addresses = 256;
    int trials = 1;
    bool fast_path = true;  ///< engine.fib_rules_fast_path
    std::string rules_file;  ///< [[rule]] (and [[route]] with table =) entries, scenario syntax
    std::string db_path = "pathscope.db";
    std::string label;  ///< default "route-output"
    bool unicode = true;  ///< block characters in the histogram, else ASCII
    bool store = true;
    std::string dump_cycles;  ///< write route-output's per-call cycles here, one a line
    uint64_t seed = 1;
};

/// Runs the benchmark, printing to `out`. Returns the stored run's id (0
/// when not stored). Throws std::runtime_error (or ScenarioError for the
/// rules file) with a message naming what is wrong.
int64_t run_route_bench(const RouteBenchOptions& options, std::ostream& out);

}  // namespace pathscope::capture
