// pathscope bench route-output: the route-output micro-benchmark
// (capture/route_bench.h), stored as a run that compare and report read.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>

#include "capture/route_bench.h"
#include "cli/cli_support.h"
#include "db/schema.h"

namespace pathscope::cli {

namespace {

/// Whether the terminal's locale is UTF-8 (LC_ALL, then LC_CTYPE, then LANG).
bool utf8_locale() {
    for (const char* var : {"LC_ALL", "LC_CTYPE", "LANG"}) {
        const char* v = std::getenv(var);
        if (!v || !*v) continue;
        std::string s(v);
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
        return s.find("utf-8") != std::string::npos || s.find("utf8") != std::string::npos;
    }
    return false;
}

struct BenchArgs {
    capture::RouteBenchOptions opt;
    std::string fast_path = "on";
    bool ascii = false;
    bool no_store = false;
};

}  // namespace

void add_bench_verb(CLI::App& app, Verbs& verbs) {
    CLI::App* bench = app.add_subcommand("bench", "micro-benchmarks of one engine function");
    bench->require_subcommand(1);
    bench->footer("Benchmarks: route-output (pathscope bench route-output --help).");
    auto a = std::make_shared<BenchArgs>();
    CLI::App* v = bench->add_subcommand(
        "route-output", "time the route lookup of a sent datagram, per call, against bare rte_fib6");
    v->footer(
        "Times the engine's route-output function (what udp6_output calls per datagram:\n"
        "the policy rules, then the routing table) one call at a time with serialised TSC\n"
        "reads (lfence;rdtsc;lfence .. rdtscp;lfence; the timer's own cost is measured,\n"
        "printed and subtracted), over a BGP-shaped table like `pathscope routes` and a\n"
        "fixed set of destinations drawn from it. The same addresses are then looked up\n"
        "with bare rte_fib6_lookup_bulk (one address a call, timed the same way), and in\n"
        "bursts of 32 with rte_fib6_lookup_bulk and rte_lpm6_lookup_bulk.\n"
        "Prints count, min, max, average, p50/p90/p95/p99 (nearest rank) and MAD, a\n"
        "histogram, the FIB's shape, and the path events per call; stores a run of kind\n"
        "\"bench\" (one trial row per trial, latency histograms \"route-output\" and\n"
        "\"rte_fib6_lookup\", events, FIB shape as facts) for compare and report.\n"
        "Example, fast path off against on:\n"
        "  pathscope bench route-output --fast-path off --trials 5 --label fp-off\n"
        "  pathscope bench route-output --fast-path on --trials 5 --label fp-on\n"
        "  pathscope compare fp-off fp-on");
    v->add_option("--routes", a->opt.routes, "generated routes in the main table (default 40000)")
        ->type_name("N")
        ->check(CLI::Range(1u, 10'000'000u));
    v->add_option("--calls", a->opt.calls, "timed calls per trial (default 100000)")
        ->type_name("N")
        ->check(CLI::Range(1u, 100'000'000u));
    v->add_option("--addresses", a->opt.addresses, "distinct destinations (default 256: the tables' lines they touch stay in cache; "
                  "tens of thousands measure cache misses)")
        ->type_name("N")
        ->check(CLI::Range(32u, 1'000'000u));
    v->add_option("--trials", a->opt.trials, "trials, each stored (default 1)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000));
    v->add_option("--fast-path", a->fast_path,
                  "engine.fib_rules_fast_path: on looks main up directly while only the default "
                  "rules exist (default on)")
        ->type_name("on|off")
        ->check(CLI::IsMember({"on", "off"}));
    v->add_option("--rules", a->opt.rules_file,
                  "a scenario-syntax TOML file of [[rule]] entries (priority, from, to, iif, table "
                  "or action) and [[route]] entries with table = N and nexthop = 1")
        ->type_name("FILE")
        ->check(CLI::ExistingFile);
    add_db_option(v, a->opt.db_path);
    v->add_option("--label", a->opt.label, "the run's label (default route-output)")
        ->type_name("TEXT");
    v->add_flag("--ascii", a->ascii, "draw the histogram with # and . (default when LANG is not UTF-8)");
    v->add_flag("--no-store", a->no_store, "print only, store nothing");
    v->add_option("--dump-cycles", a->opt.dump_cycles,
                  "write route-output's per-call cycles (after the timer's overhead), one a line")
        ->type_name("FILE");
    v->add_option("--seed", a->opt.seed, "seed of the table and the addresses (default 1)")
        ->type_name("S");
    verbs.add(bench, [a, v] {
        if (!v->parsed()) throw UsageError("name a benchmark: route-output");
        if (!a->opt.label.empty()) check_label(a->opt.label);
        a->opt.fast_path = a->fast_path == "on";
        a->opt.unicode = !a->ascii && utf8_locale();
        a->opt.store = !a->no_store;
        if (a->opt.store) db::check_store(a->opt.db_path);  // before the benchmark runs
        capture::run_route_bench(a->opt, std::cout);
        return 0;
    });
}

}  // namespace pathscope::cli
