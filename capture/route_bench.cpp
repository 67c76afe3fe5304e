#include "capture/route_bench.h"

#include <rte_lpm6.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>

#include "analysis/stats/sample_stats.h"
#include "capture/recorder.h"
#include "capture/scenario.h"
#include "common/histogram.h"
#include "db/writer.h"
#include "engine/eal.h"
#include "engine/engine.h"
#include "engine/routes.h"
#include "engine/tsc_timer.h"

namespace pathscope::capture {

using namespace engine;

namespace {

using Key = uint8_t[RTE_FIB6_IPV6_ADDR_SIZE];

/// Destinations inside routes picked at random from the table (host bits random too).
std::vector<Ip6Addr> pick_addresses(const std::vector<RouteConfig>& routes, uint32_t n,
                                    uint64_t seed) {
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 1);
    std::vector<Ip6Addr> out;
    if (routes.empty()) return out;
    std::uniform_int_distribution<size_t> pick(0, routes.size() - 1);
    for (uint32_t i = 0; i < n; ++i) {
        const Prefix6& p = routes[pick(rng)].prefix;
        Ip6Addr a = p.addr;
        for (int bit = p.len; bit < 128; ++bit)
            if (rng() & 1) a[bit / 8] |= static_cast<uint8_t>(0x80u >> (bit % 8));
        out.push_back(a);
    }
    return out;
}

struct Lpm6Deleter {
    void operator()(rte_lpm6* l) const { rte_lpm6_free(l); }
};

std::unique_ptr<rte_lpm6, Lpm6Deleter> build_lpm6(const std::vector<RouteConfig>& routes) {
    uint64_t groups = 0;
    for (const auto& r : routes) groups += r.prefix.len > 24 ? (r.prefix.len + 7) / 8 - 3 : 0;
    rte_lpm6_config conf{};
    conf.max_rules = static_cast<uint32_t>(routes.size() + 16);
    conf.number_tbl8s = static_cast<uint32_t>(groups + 1024);
    static unsigned serial = 0;
    const std::string name = "bench_lpm6_" + std::to_string(serial++);
    std::unique_ptr<rte_lpm6, Lpm6Deleter> lpm(
        rte_lpm6_create(name.c_str(), SOCKET_ID_ANY, &conf));
    if (!lpm)
        throw std::runtime_error("cannot create the rte_lpm6 table: " +
                                 std::string(rte_strerror(rte_errno)));
    for (const auto& r : routes) {
        Ip6Addr a = r.prefix.addr;
        const int rc = rte_lpm6_add(lpm.get(), a.data(), r.prefix.len, 1);
        if (rc < 0)
            throw std::runtime_error("cannot add " + format_prefix6(r.prefix) +
                                     " to rte_lpm6: " + rte_strerror(-rc));
    }
    return lpm;
}

/// Median of per-address cycles over bursts of 32 addresses.
template <typename Lookup>
double bulk_per_address(const std::vector<Ip6Addr>& addrs, unsigned rounds, uint64_t overhead,
                        Lookup lookup) {
    constexpr unsigned kBurst = 32;
    std::vector<uint64_t> per;
    Key keys[kBurst];
    for (unsigned r = 0; r < rounds; ++r)
        for (size_t base = 0; base + kBurst <= addrs.size(); base += kBurst) {
            for (unsigned i = 0; i < kBurst; ++i) memcpy(keys[i], addrs[base + i].data(), 16);
            const uint64_t t0 = tsc_start();
            lookup(keys, kBurst);
            const uint64_t c = tsc_stop() - t0;
            per.push_back(c > overhead ? c - overhead : 0);
        }
    if (per.empty()) return 0;
    std::sort(per.begin(), per.end());
    return static_cast<double>(analysis::nearest_rank(per, 50)) / kBurst;
}

db::HistogramRow latency_row(int trial, const char* subject, const std::vector<uint64_t>& v) {
    analysis::Histogram h;
    for (uint64_t x : v) h.add(x);
    db::HistogramRow row{trial, db::kLatency, subject, "cycles", h.count(), h.sum(), h.min(),
                         h.max(), {}};
    const auto& counts = h.counts();
    for (uint32_t i = 0; i < counts.size(); ++i)
        if (counts[i]) row.buckets.emplace_back(i, counts[i]);
    return row;
}

std::string stats_line(const analysis::SampleStats& s) {
    char b[256];
    std::snprintf(b, sizeof b,
                  "count %llu  min %llu  max %llu  average %.1f  p50 %llu  p90 %llu  p95 %llu  "
                  "p99 %llu  MAD %llu",
                  static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(s.min),
                  static_cast<unsigned long long>(s.max), s.mean,
                  static_cast<unsigned long long>(s.p50), static_cast<unsigned long long>(s.p90),
                  static_cast<unsigned long long>(s.p95), static_cast<unsigned long long>(s.p99),
                  static_cast<unsigned long long>(s.mad));
    return b;
}

std::string table_name(uint32_t id) {
    switch (id) {
        case kTableLocal: return "255 (local)";
        case kTableMain: return "254 (main)";
        case kTableDefault: return "253 (default)";
        default: return std::to_string(id);
    }
}

/// The bench's engine: one ring port, one next hop, generated routes, and
/// the rules (with the routes of the tables they name) of opt.rules_file.
EngineConfig bench_config(const RouteBenchOptions& opt, std::string& rules_text) {
    EngineConfig cfg;
    cfg.mbufs = 2048;  // the bench sends nothing; leave the memory to the tables
    PortConfig port;
    port.name = "bench";
    port.device = "ring";
    port.mac = {2, 0, 0, 0, 0, 0xbe};
    port.addresses = {{*parse_ip6("2001:db8:be::1"), 64}};
    cfg.ports = {port};
    cfg.nexthops = {{1, "bench", {2, 0, 0, 0, 0, 1}}};
    cfg.routes_generate = opt.routes;
    cfg.routes_file_nexthop = 1;
    cfg.routes_seed = opt.seed;
    cfg.fib_rules_fast_path = opt.fast_path;
    if (!opt.rules_file.empty()) {
        // A scenario-syntax file: its [[rule]] entries, and [[route]] entries
        // (nexthop = 1, the bench's next hop) for the tables the rules name.
        const Scenario sc = load_scenario(opt.rules_file);
        cfg.rules = sc.engine.rules;
        cfg.routes = sc.engine.routes;
        rules_text = sc.text;
    }
    return cfg;
}

/// The rules in the order they are tried, and each table's shape (also
/// stored as facts).
void describe_fib(const FibRules& fib, std::ostream& out, db::Batch& batch) {
    out << "rules, in the order tried:";
    for (const auto& r : fib.rules()) {
        out << "  " << r.priority << ":";
        if (r.from_len) out << "from/" << int(r.from_len) << ":";
        if (r.to_len) out << "to/" << int(r.to_len) << ":";
        switch (r.action) {
            case RuleAction::table: out << "table " << r.table_id; break;
            case RuleAction::unreachable: out << "unreachable"; break;
            case RuleAction::prohibit: out << "prohibit"; break;
            case RuleAction::blackhole: out << "blackhole"; break;
        }
    }
    out << "\nFIB shape (counted while loading):\n";
    for (const auto& s : fib.shapes()) {
        out << "  table " << table_name(s.table) << ": " << s.prefixes << " prefixes, "
            << s.tbl8_groups << " tbl8 groups;";
        const std::string t = "fib.table." + std::to_string(s.table);
        batch.facts.emplace_back(t + ".prefixes", std::to_string(s.prefixes));
        batch.facts.emplace_back(t + ".tbl8_groups", std::to_string(s.tbl8_groups));
        for (unsigned len = 0; len <= 128; ++len) {
            if (!s.per_length[len]) continue;
            out << " /" << len << " " << s.per_length[len];
            batch.facts.emplace_back(t + ".len." + std::to_string(len),
                                     std::to_string(s.per_length[len]));
        }
        out << "\n";
    }
}

constexpr PathEvent kEvents[] = {PathEvent::fib_lookups, PathEvent::rule_layer_entries,
                                 PathEvent::rules_evaluated};

/// What the trials measure, over all of them.
struct BenchTotals {
    std::vector<uint64_t> ours, bare;  ///< cycles per call, every trial's
    std::vector<std::string> trial_lines;
    double fib6_bulk = 0, lpm6_bulk = 0;  ///< summed over trials
    uint64_t overhead_sum = 0;
    uint64_t event_totals[3] = {};
    uint64_t sink = 0;  ///< the lookups' results, kept live
};

/// The tables the trials look up in.
struct BenchTables {
    EngineContext& ctx;
    rte_fib6* main;
    rte_lpm6* lpm;
    const std::vector<Ip6Addr>& addrs;
    std::vector<Ip6Addr>& dst_keys;  ///< 16-byte arrays, as rte_fib6 wants its keys
};

/// One trial: route-output and bare rte_fib6 per call, both bulk lookups
/// per address; its rows go to `batch`, its figures to `tot`.
void run_trial(int trial, const RouteBenchOptions& opt, const BenchTables& tb, BenchTotals& tot,
               db::Batch& batch) {
    EngineContext& ctx = tb.ctx;
    const auto started = std::chrono::steady_clock::now();
    const uint64_t overhead = timer_overhead();
    tot.overhead_sum += overhead;
    uint64_t before[3];
    for (int e = 0; e < 3; ++e) before[e] = ctx.app_worker().events.v[static_cast<unsigned>(kEvents[e])].get();
    RuleTally tally;
    // Warm the caches over the address set first, both ways, untimed and
    // uncounted: otherwise whichever loop runs first pays the misses.
    for (int round = 0; round < 4; ++round)
        for (auto& a : tb.dst_keys) {
            tot.sink += ctx.route_output(a.data(), nullptr, tally);
            tot.sink += FibRules::lookup_in(tb.main, a.data());
        }
    tally = RuleTally{};
    std::vector<uint64_t> ours(opt.calls), bare(opt.calls);
    for (uint32_t i = 0; i < opt.calls; ++i) {
        const uint8_t* dst = tb.dst_keys[i % tb.dst_keys.size()].data();
        const uint64_t t0 = tsc_start();
        const uint32_t nh = ctx.route(dst, nullptr, tally);
        const uint64_t c = tsc_stop() - t0;
        tot.sink += nh;
        ours[i] = c > overhead ? c - overhead : 0;
    }
    tally.flush(ctx.app_worker().events);
    for (uint32_t i = 0; i < opt.calls; ++i) {
        auto* key = reinterpret_cast<Key*>(tb.dst_keys[i % tb.dst_keys.size()].data());
        uint64_t nh;
        const uint64_t t0 = tsc_start();
        rte_fib6_lookup_bulk(tb.main, key, &nh, 1);
        const uint64_t c = tsc_stop() - t0;
        tot.sink += nh;
        bare[i] = c > overhead ? c - overhead : 0;
    }
    const unsigned rounds = std::max<unsigned>(1, opt.calls / std::max<size_t>(1, tb.addrs.size()));
    tot.fib6_bulk += bulk_per_address(tb.addrs, rounds, overhead, [&](Key* k, unsigned n) {
        uint64_t nh[32];
        rte_fib6_lookup_bulk(tb.main, k, nh, n);
        tot.sink += nh[0];
    });
    tot.lpm6_bulk += bulk_per_address(tb.addrs, rounds, overhead, [&](Key* k, unsigned n) {
        int32_t nh[32];
        rte_lpm6_lookup_bulk_func(tb.lpm, k, nh, n);
        tot.sink += static_cast<uint64_t>(nh[0]);
    });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    db::TrialRow tr;
    tr.trial = trial;
    tr.seconds = seconds;
    tr.route_lookups = opt.calls;
    batch.trials.push_back(tr);
    batch.histograms.push_back(latency_row(trial, kRouteOutputSubject, ours));
    batch.histograms.push_back(latency_row(trial, kBareFib6Subject, bare));
    for (int e = 0; e < 3; ++e) {
        const uint64_t d = ctx.app_worker().events.v[static_cast<unsigned>(kEvents[e])].get() - before[e];
        tot.event_totals[e] += d;
        batch.events.push_back({trial, std::string(kPathEventNames[static_cast<unsigned>(kEvents[e])]), d});
    }
    const analysis::SampleStats s = analysis::summarize(ours), b = analysis::summarize(bare);
    char line[200];
    std::snprintf(line, sizeof line,
                  "  trial %d: route-output p50 %llu mean %.1f | bare rte_fib6 p50 %llu mean "
                  "%.1f | timer overhead %llu\n",
                  trial + 1, static_cast<unsigned long long>(s.p50), s.mean,
                  static_cast<unsigned long long>(b.p50), b.mean,
                  static_cast<unsigned long long>(overhead));
    tot.trial_lines.push_back(line);
    tot.ours.insert(tot.ours.end(), ours.begin(), ours.end());
    tot.bare.insert(tot.bare.end(), bare.begin(), bare.end());
}

/// A virtual machine's TSC may advance in steps of many cycles: every
/// per-call figure is then a multiple of that step (1: no step seen).
uint64_t tsc_step(const BenchTotals& tot) {
    std::vector<uint64_t> v = tot.bare;
    v.insert(v.end(), tot.ours.begin(), tot.ours.end());
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    uint64_t step = 0;
    for (size_t i = 1; i < v.size(); ++i)
        if (!step || v[i] - v[i - 1] < step) step = v[i] - v[i - 1];
    return step;
}

/// The plain average carries the calls a preemption hit (millions of
/// cycles on a shared machine); the average up to p99.9 does not, and
/// unlike p50 it is not rounded to the TSC's step.
double trimmed_mean(std::vector<uint64_t> v) {
    std::sort(v.begin(), v.end());
    const uint64_t cut = analysis::nearest_rank(v, 99.9);
    long double sum = 0;
    size_t n = 0;
    for (uint64_t x : v)
        if (x <= cut) sum += static_cast<long double>(x), ++n;
    return n ? static_cast<double>(sum / static_cast<long double>(n)) : 0.0;
}

/// The trials' figures, their histograms and the ratio to bare rte_fib6.
void print_results(const RouteBenchOptions& opt, const BenchTotals& tot, std::ostream& out) {
    const double overhead_mean = static_cast<double>(tot.overhead_sum) / opt.trials;
    char line[256];
    std::snprintf(line, sizeof line,
                  "timer: lfence;rdtsc;lfence .. rdtscp;lfence, overhead %.1f cycles (median of "
                  "100000 empty pairs, per trial), subtracted from every sample\n",
                  overhead_mean);
    out << line;
    if (const uint64_t step = tsc_step(tot); step > 1)
        out << "timer resolution: the TSC advanced in steps of " << step << " cycles here\n";
    out << "per trial:\n";
    for (const auto& l : tot.trial_lines) out << l;
    const analysis::SampleStats ours = analysis::summarize(tot.ours);
    const analysis::SampleStats bare = analysis::summarize(tot.bare);
    out << "route-output, cycles per call (all trials):\n  " << stats_line(ours) << "\n";
    out << analysis::render_histogram(tot.ours, "cycles", 20, opt.unicode);
    out << "bare rte_fib6_lookup_bulk(n = 1), cycles per call, same addresses:\n  "
        << stats_line(bare) << "\n";
    out << analysis::render_histogram(tot.bare, "cycles", 20, opt.unicode);
    std::snprintf(line, sizeof line,
                  "rte_fib6_lookup_bulk: %.1f cycles per address, rte_lpm6_lookup_bulk: %.1f "
                  "cycles per address (median over bursts of 32)\n",
                  tot.fib6_bulk / opt.trials, tot.lpm6_bulk / opt.trials);
    out << line;
    const double ours_trim = trimmed_mean(tot.ours), bare_trim = trimmed_mean(tot.bare);
    std::snprintf(line, sizeof line,
                  "route-output / bare rte_fib6: %.2fx at p50, %.2fx on average, %.2fx on the "
                  "average up to p99.9 (%.1f / %.1f cycles)\n",
                  bare.p50 ? static_cast<double>(ours.p50) / static_cast<double>(bare.p50) : 0.0,
                  bare.mean > 0 ? ours.mean / bare.mean : 0.0,
                  bare_trim > 0 ? ours_trim / bare_trim : 0.0, ours_trim, bare_trim);
    out << line;
    const double calls = static_cast<double>(opt.calls) * opt.trials;
    std::snprintf(line, sizeof line,
                  "path events per call: fib_lookups %.2f, rule_layer_entries %.2f, "
                  "rules_evaluated %.2f\n",
                  static_cast<double>(tot.event_totals[0]) / calls,
                  static_cast<double>(tot.event_totals[1]) / calls,
                  static_cast<double>(tot.event_totals[2]) / calls);
    out << line;
    if (tot.sink == 0xdeadbeef) out << "";  // keeps the lookups' results live
}

/// Every route-output call's cycles, one a line, to opt.dump_cycles.
void dump_cycles(const RouteBenchOptions& opt, const BenchTotals& tot) {
    std::ofstream f(opt.dump_cycles);
    if (!f) throw std::runtime_error(opt.dump_cycles + ": cannot write: " + std::strerror(errno));
    for (uint64_t c : tot.ours) f << c << '\n';
    if (!f) throw std::runtime_error(opt.dump_cycles + ": write failed");
}

/// Stores the bench as a run of kind "bench"; returns its id.
int64_t store_bench(const RouteBenchOptions& opt, const BenchTotals& tot, size_t rules,
                    size_t addresses, const std::string& rules_text, db::Batch batch,
                    std::ostream& out) {
    std::ostringstream variants;
    variants << "fib_rules_fast_path=" << (opt.fast_path ? "on" : "off");
    if (rules) variants << " fib_rules=" << rules;
    batch.facts.emplace_back(db::kVariantsFact, variants.str());
    auto fact = [&](const std::string& k, double v) {
        char b[64];
        std::snprintf(b, sizeof b, "%.2f", v);
        batch.facts.emplace_back(k, b);
    };
    fact("bench.timer_overhead_cycles", static_cast<double>(tot.overhead_sum) / opt.trials);
    fact("bench.fib6_bulk_cycles_per_address", tot.fib6_bulk / opt.trials);
    fact("bench.lpm6_bulk_cycles_per_address", tot.lpm6_bulk / opt.trials);
    fact("bench.route_output_mean_to_p99_9_cycles", trimmed_mean(tot.ours));
    fact("bench.rte_fib6_mean_to_p99_9_cycles", trimmed_mean(tot.bare));
    batch.facts.emplace_back("bench.routes", std::to_string(opt.routes));
    batch.facts.emplace_back("bench.addresses", std::to_string(addresses));
    batch.facts.emplace_back("bench.calls_per_trial", std::to_string(opt.calls));

    db::RunInfo info = machine_run_info();
    info.kind = kBenchKind;
    info.label = opt.label.empty() ? "route-output" : opt.label;
    info.trials = opt.trials;
    info.scenario_path = opt.rules_file;
    info.scenario_text = rules_text;
    info.settings = "bench=route-output\nroutes=" + std::to_string(opt.routes) +
                    "\ncalls=" + std::to_string(opt.calls) +
                    "\nfast_path=" + (opt.fast_path ? "on" : "off") + "\n";
    db::RunWriter writer(opt.db_path, info);
    const int64_t id = writer.run_id();
    writer.submit(std::move(batch));
    writer.finish("complete");
    out << "stored as run " << id << " (" << info.label << ") in " << opt.db_path << "\n";
    return id;
}

}  // namespace

int64_t run_route_bench(const RouteBenchOptions& opt, std::ostream& out) {
    std::string rules_text;
    const EngineConfig cfg = bench_config(opt, rules_text);
    eal_init(cfg.eal_args);
    Engine eng(cfg);
    EngineContext& ctx = eng.context();
    const FibRules& fib = ctx.fib;

    std::vector<RouteConfig> main_routes;
    for (const auto& r : eng.routes())
        if (r.table == kTableMain) main_routes.push_back(r);
    const std::vector<Ip6Addr> addrs =
        pick_addresses(main_routes, std::max<uint32_t>(1, opt.addresses), opt.seed);
    std::vector<Ip6Addr> dst_keys = addrs;

    const bool has_rules = !cfg.rules.empty();
    out << "route-output over " << opt.routes << " generated routes, " << addrs.size()
        << " destinations, " << opt.calls << " calls x " << opt.trials << " trial"
        << (opt.trials == 1 ? "" : "s") << ", fast path " << (opt.fast_path ? "on" : "off")
        << ", " << (has_rules ? std::to_string(cfg.rules.size()) + " custom rule(s) from " + opt.rules_file
                              : std::string("default rules only"))
        << (fib.direct() ? " (direct main-table lookup)\n" : " (rules walk)\n");
    db::Batch batch;
    describe_fib(fib, out, batch);

    auto lpm = build_lpm6(main_routes);
    const BenchTables tables{ctx, fib.main(), lpm.get(), addrs, dst_keys};
    BenchTotals tot;
    for (int trial = 0; trial < opt.trials; ++trial) run_trial(trial, opt, tables, tot, batch);
    print_results(opt, tot, out);
    if (!opt.dump_cycles.empty()) dump_cycles(opt, tot);
    if (!opt.store) return 0;
    return store_bench(opt, tot, has_rules ? cfg.rules.size() : 0, addrs.size(), rules_text,
                       std::move(batch), out);
}

}  // namespace pathscope::capture
