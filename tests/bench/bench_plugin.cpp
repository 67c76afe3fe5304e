// What a plugin stage costs of itself: bench_forward's forwarding run (a
// net_pcap replay of 64-byte UDP/IPv6 frames into net_null over 40,000
// routes, one worker) with no extra stage, with built-in stages (C++ nodes
// written as the built-in stages are: dispatch() with a classifier), and
// with a plugin stage that does nothing (tests/plugins/null_stage.c): per
// packet (classify, called through its pointer), the same classifier made a
// burst function by the plugin's compiler (PATHSCOPE_DEFINE_BURST), and per
// burst (burst).
//
// A plugin's code lives in another object, so its least work is a call: a
// `burst` stage is called once a burst, a `classify` stage once a packet.
// The built-in stage of the same work makes the same calls to a function
// compiled apart (as a built-in stage calling rte_acl_classify, or any
// library, does), which returns the main edge; the empty built-in stage,
// which makes no call at all, is the floor.
// All spliced between ip6_input and ip6_lookup. The paths run interleaved,
// N times each; the table shows each one's median rate, the worker's cycles
// per packet (TSC Hz / rate: the worker is never idle on this replay) and
// the extra cycles per packet against the path without a stage.
//
//   bench_plugin [--seconds S] [--repeat N] [--help]
//
// The goal: a plugin stage costs no more than a built-in stage of the same work.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "capture/run.h"
#include "capture/snapshot_rows.h"
#include "engine/nodes/node.h"
#include "tests/bench/bench_table.h"
#include "tests/bench/bench_workload.h"

using namespace pathscope;
using namespace pathscope::engine;
using namespace pathscope::bench;
namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage =
    "usage: bench_plugin [--seconds S] [--repeat N] [--help]\n"
    "  --seconds S   forwarding time of each run (default 3)\n"
    "  --repeat N    runs of each path, interleaved; the table shows the median (default 5)\n";

/// The empty built-in stage: it sends each packet on, in the built-in
/// stages' own shape (dispatch(), speculative next edge), and calls nothing.
uint16_t null_builtin_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    dispatch(graph, node, objs, n, [](rte_mbuf*) -> rte_edge_t { return 0; });
    return n;
}

/// The least work a plugin does, compiled apart (noipa: never inlined, and
/// its result unknown to the caller): a burst function and a per-packet
/// classifier in stage.h's shapes that send everything on.
[[gnu::noipa]] uint16_t pass_burst(void*, uint32_t, rte_mbuf**, uint16_t, uint16_t*) { return 0; }
[[gnu::noipa]] uint16_t pass_packet(void*, uint32_t, rte_mbuf*) { return 0; }

/// A built-in stage that calls pass_burst once a burst and sends the
/// packets where it says.
uint16_t call_burst_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    uint16_t edges[RTE_GRAPH_BURST_SIZE];
    if (likely(pass_burst(nullptr, 0, reinterpret_cast<rte_mbuf**>(objs), n, edges) == 0)) {
        dispatch(graph, node, objs, n, [](rte_mbuf*) -> rte_edge_t { return 0; });
    } else {
        uint16_t i = 0;
        dispatch(graph, node, objs, n, [&](rte_mbuf*) -> rte_edge_t { return edges[i++]; });
    }
    return n;
}

/// A built-in stage that calls pass_packet for each packet.
uint16_t call_packet_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    dispatch(graph, node, objs, n, [](rte_mbuf* m) -> rte_edge_t { return pass_packet(nullptr, 0, m); });
    return n;
}

constexpr const char* kBuiltin = "null_builtin";
constexpr const char* kCallBurst = "builtin_call_burst";
constexpr const char* kCallPacket = "builtin_call_packet";

/// Puts built-in stage `name` between ip6_input and ip6_lookup while it
/// lives, as a plugin stage is put (rte_node_edge_update on ip6_input's main edge).
struct BuiltinSplice {
    explicit BuiltinSplice(const char* name) {
        register_all_nodes();
        if (rte_node_from_name(kBuiltin) == RTE_NODE_ID_INVALID) {
            register_node(kBuiltin, null_builtin_process, {kIp6Lookup});
            register_node(kCallBurst, call_burst_process, {kIp6Lookup});
            register_node(kCallPacket, call_packet_process, {kIp6Lookup});
        }
        set(name);
    }
    ~BuiltinSplice() { set(kIp6Lookup); }
    static void set(const char* to) {
        const char* names[] = {to};
        rte_node_edge_update(rte_node_from_name(kIp6Input), 0, names, 1);
    }
};

struct Reading {
    double mpps = 0;
    double cycles_per_packet = 0;  ///< the worker's: TSC Hz / rate
    double all_stages = 0;         ///< the stage table's "all stages" (interrupted calls left out)
    double stage_cycles = NAN;     ///< the extra stage's own row, cycles per packet
};

using Path = BenchPath<Reading>;

double median_of(const Path& p, double Reading::*field) { return p.median_of(field); }

/// The runs' spread of a path's own row: the median of the runs' distances
/// from their median (MAD), cycles per packet.
double row_spread(const Path& p) {
    const double m = p.median_of(&Reading::stage_cycles);
    std::vector<double> d;
    for (const Reading& r : p.readings)
        if (!std::isnan(r.stage_cycles)) d.push_back(std::fabs(r.stage_cycles - m));
    return median(std::move(d));
}

Reading forward(EngineConfig cfg, const std::string& stage) {
    const capture::RunResult r = capture::run_engine(cfg);
    if (!r.snapshot.ledger.balanced()) throw std::runtime_error("the ledger does not balance");
    Reading f;
    const double pps = capture::rate_pps(r.window_start, r.window_end, &Ledger::forwarded);
    if (!(pps > 0)) throw std::runtime_error("nothing forwarded in the measured window");
    f.mpps = pps / 1e6;
    f.cycles_per_packet = static_cast<double>(r.snapshot.tsc_hz) / pps;
    uint64_t cycles = 0;
    for (const auto& st : r.snapshot.stages) {
        cycles += st.cycles;
        if (st.name == stage && st.packets)
            f.stage_cycles = static_cast<double>(st.cycles) / static_cast<double>(st.packets);
    }
    f.all_stages = static_cast<double>(cycles) / static_cast<double>(r.snapshot.ledger.received);
    return f;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 3;
    unsigned repeat = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--seconds" && i + 1 < argc) {
            seconds = std::atof(argv[++i]);
        } else if (a == "--repeat" && i + 1 < argc) {
            repeat = static_cast<unsigned>(std::atoi(argv[++i]));
        } else {
            std::fputs(kUsage, a == "--help" ? stdout : stderr);
            return a == "--help" ? 0 : 2;
        }
    }
    const fs::path dir = fs::temp_directory_path() / ("bench_plugin." + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string pcap = (dir / "forward.pcap").string();
    write_pcap(pcap, frames(true));
    const std::string plugins = PATHSCOPE_TEST_PLUGIN_DIR;
    auto with_plugin = [&](const std::string& so) {
        EngineConfig c = bench_config(pcap, seconds, true);
        StageConfig s;
        s.plugin = plugins + "/lib" + so + ".so";
        s.after = kIp6Input;
        c.stages = {s};
        return c;
    };
    auto with_builtin = [&](const char* name) {
        const BuiltinSplice splice(name);
        return forward(bench_config(pcap, seconds, true), name);
    };
    // Each plugin shape, and (by index into paths) the built-in stage of its work.
    std::vector<Path> paths = {
        {"no extra stage", [&] { return forward(bench_config(pcap, seconds, true), ""); }},
        {"built-in stage that does nothing (no call)", [&] { return with_builtin(kBuiltin); }},
        {"built-in, one call a burst to a function apart", [&] { return with_builtin(kCallBurst); }},
        {"built-in, one call a packet to a function apart", [&] { return with_builtin(kCallPacket); }},
        {"plugin stage that does nothing, per packet (classify)",
         [&] { return forward(with_plugin("null_classify"), "null_classify"); }},
        {"plugin, per packet made a burst (DEFINE_BURST)",
         [&] { return forward(with_plugin("null_define_burst"), "null_define_burst"); }},
        {"plugin stage that does nothing, per burst (burst)",
         [&] { return forward(with_plugin("null_burst"), "null_burst"); }},
    };
    // plugin path -> the built-in path of the same calls
    const std::vector<std::pair<size_t, size_t>> same_work = {{4, 3}, {5, 2}, {6, 2}};
    std::printf("CPU: %s, %ld online CPUs\n", cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    std::printf("workload: 1024 x 64-byte UDP/IPv6 frames, 40,000 routes, net_pcap infinite_rx -> "
                "net_null, one worker, %.0f s per run, median of %u, paths interleaved\n",
                seconds, repeat);
    for (unsigned run = 1; run <= repeat; ++run)
        for (Path& p : paths) {
            std::fprintf(stderr, "run %u/%u: %s ...\n", run, repeat, p.name.c_str());
            try {
                p.readings.push_back(p.measure());
            } catch (const std::exception& e) {
                if (p.error.empty()) p.error = e.what();
                std::fprintf(stderr, "  failed: %s\n", e.what());
            }
        }
    fs::remove_all(dir);
    // Two measures of the same extra cost: the worker's wall cycles per
    // packet (everything, preemption by other processes included) and the
    // stage table's "all stages" (the timed calls only: what a shared
    // machine takes from the worker in a call is left out, see
    // engine.interrupted_call_us), and the extra stage's own row.
    const double base_wall = median_of(paths[0], &Reading::cycles_per_packet);
    const double base_table = median_of(paths[0], &Reading::all_stages);
    std::printf("\n%-54s %7s %8s %9s %10s %9s %8s  %s\n", "path (cycles per packet)", "Mpps",
                "wall", "extra", "all stages", "extra", "its row", "its row, each run");
    bool failed = false;
    for (const Path& p : paths) {
        if (!p.error.empty()) {
            std::printf("%-54s failed: %s\n", p.name.c_str(), p.error.c_str());
            failed = true;
            continue;
        }
        const double wall = median_of(p, &Reading::cycles_per_packet);
        const double table = median_of(p, &Reading::all_stages);
        const double row = median_of(p, &Reading::stage_cycles);
        char row_text[32] = "-";
        if (!std::isnan(row)) std::snprintf(row_text, sizeof row_text, "%.2f", row);
        std::string each;
        for (const Reading& r : p.readings)
            if (!std::isnan(r.stage_cycles)) {
                char b[16];
                std::snprintf(b, sizeof b, "%s%.2f", each.empty() ? "" : " ", r.stage_cycles);
                each += b;
            }
        std::printf("%-54s %7.3f %8.2f %+9.2f %10.2f %+9.2f %8s  %s\n", p.name.c_str(),
                    median_of(p, &Reading::mpps), wall, wall - base_wall, table, table - base_table,
                    row_text, each.c_str());
    }
    if (failed) return 1;
    const double empty_row = median_of(paths[1], &Reading::stage_cycles);
    std::printf("\nagainst the built-in stage of the same work, its calls (goal: no more than it, "
                "within the runs' spread), and the empty one\n");
    for (const auto& [plugin, builtin] : same_work) {
        const double row = median_of(paths[plugin], &Reading::stage_cycles);
        const double same = median_of(paths[builtin], &Reading::stage_cycles);
        const double noise = std::max(row_spread(paths[plugin]), row_spread(paths[builtin]));
        std::printf("  %-52s its row %.2f vs %.2f cyc/pkt (%+.2f, spread %.2f: %s); the empty "
                    "built-in %.2f\n",
                    paths[plugin].name.c_str(), row, same, row - same, noise,
                    row <= same + noise ? "goal met" : "goal not met", empty_row);
    }
    std::printf("(its row: the stage's own cycles per packet in the stage table, one timestamp a "
                "call included, as for every stage)\n");
    return 0;
}
