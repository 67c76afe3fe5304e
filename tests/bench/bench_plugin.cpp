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
// The built-in stage of the same work calls the same code: the null
// stage's three functions compiled into a shared library (shared_calls.c),
// called directly, as a built-in stage calls a function of DPDK's shared
// libraries (rte_acl_classify), so that the difference is what pathscope's
// plugin mechanism adds (its slot, the call through a pointer, the edges'
// mapping). Calls to functions compiled apart in pathscope's own binary,
// once a burst and once a packet, are shown beside them for reference; the
// empty built-in stage, which makes no call at all, is the floor.
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
    "  --repeat N    runs of each path, interleaved, each in a process of its own; the table\n"
    "                shows the median (default 5)\n"
    "  (--one K --pcap FILE: one run of path K, printed as a line of figures: how each run\n"
    "   is made)\n";

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

}  // namespace
extern "C" {  // shared_calls.c
uint16_t shared_classify(void* instance, uint32_t worker, rte_mbuf* m);
uint16_t shared_define_burst(void* instance, uint32_t worker, rte_mbuf** pkts, uint16_t n,
                             uint16_t* edges);
uint16_t shared_burst(void* instance, uint32_t worker, rte_mbuf** pkts, uint16_t n, uint16_t* edges);
}
namespace {

using BurstFn = uint16_t (*)(void*, uint32_t, rte_mbuf**, uint16_t, uint16_t*);
using ClassifyFn = uint16_t (*)(void*, uint32_t, rte_mbuf*);

/// A built-in stage that calls `Burst` once a burst and sends the packets
/// where it says: pass_burst (compiled apart), or shared_calls.c's burst
/// functions (in a shared library, linked as DPDK's libraries are).
template <BurstFn Burst>
uint16_t call_burst(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    uint16_t edges[RTE_GRAPH_BURST_SIZE];
    if (likely(Burst(nullptr, 0, reinterpret_cast<rte_mbuf**>(objs), n, edges) == 0)) {
        dispatch(graph, node, objs, n, [](rte_mbuf*) -> rte_edge_t { return 0; });
    } else {
        uint16_t i = 0;
        dispatch(graph, node, objs, n, [&](rte_mbuf*) -> rte_edge_t { return edges[i++]; });
    }
    return n;
}

/// A built-in stage that calls `Classify` for each packet: pass_packet, or
/// shared_calls.c's classifier.
template <ClassifyFn Classify>
uint16_t call_per_packet(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    dispatch(graph, node, objs, n, [](rte_mbuf* m) -> rte_edge_t { return Classify(nullptr, 0, m); });
    return n;
}

constexpr const char* kBuiltin = "null_builtin";
constexpr const char* kCallBurst = "builtin_call_burst";
constexpr const char* kCallPacket = "builtin_call_packet";
constexpr const char* kSharedClassify = "builtin_shared_classify";
constexpr const char* kSharedDefineBurst = "builtin_shared_define_burst";
constexpr const char* kSharedBurst = "builtin_shared_burst";

/// Puts built-in stage `name` between ip6_input and ip6_lookup while it
/// lives, as a plugin stage is put (rte_node_edge_update on ip6_input's main edge).
struct BuiltinSplice {
    explicit BuiltinSplice(const char* name) {
        register_all_nodes();
        if (rte_node_from_name(kBuiltin) == RTE_NODE_ID_INVALID) {
            register_node(kBuiltin, null_builtin_process, {kIp6Lookup});
            register_node(kCallBurst, call_burst<pass_burst>, {kIp6Lookup});
            register_node(kCallPacket, call_per_packet<pass_packet>, {kIp6Lookup});
            register_node(kSharedClassify, call_per_packet<shared_classify>, {kIp6Lookup});
            register_node(kSharedDefineBurst, call_burst<shared_define_burst>, {kIp6Lookup});
            register_node(kSharedBurst, call_burst<shared_burst>, {kIp6Lookup});
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


/// In a process made to run path `k` once: its figures on stdout, one line.
int run_one(std::vector<Path>& paths, int k) {
    if (k < 0 || static_cast<size_t>(k) >= paths.size()) {
        std::fprintf(stderr, "bench_plugin: --one %d: there are paths 0 to %zu\n", k, paths.size() - 1);
        return 2;
    }
    try {
        const Reading r = paths[static_cast<size_t>(k)].measure();
        std::printf("%.17g %.17g %.17g %.17g\n", r.mpps, r.cycles_per_packet, r.all_stages,
                    r.stage_cycles);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}

/// One run of path `k` in a process of its own (this program with --one):
/// where the loader places pathscope's, DPDK's and the plugin's code differs
/// from process to process, and a stage's cycles with it (by a cycle or
/// more a packet here), so the runs of a path sample several placements
/// instead of repeating one.
Reading run_apart(size_t k, double seconds, const std::string& pcap) {
    static const std::string self = fs::read_symlink("/proc/self/exe").string();
    const std::string cmd = "'" + self + "' --one " + std::to_string(k) + " --seconds " +
                            std::to_string(seconds) + " --pcap '" + pcap + "' 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot start " + cmd);
    std::string out;
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    const int status = pclose(p);
    Reading r;
    const size_t last = out.find_last_of('\n', out.size() >= 2 ? out.size() - 2 : 0);
    const std::string line = last == std::string::npos ? out : out.substr(last + 1);
    if (status != 0 || std::sscanf(line.c_str(), "%lf %lf %lf %lf", &r.mpps, &r.cycles_per_packet,
                                   &r.all_stages, &r.stage_cycles) != 4)
        throw std::runtime_error("the run of path " + std::to_string(k) + " failed: " + line);
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 3;
    unsigned repeat = 5;
    int one = -1;       // --one K: this process makes one run of path K
    std::string pcap;   // ... replaying this file
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--seconds" && i + 1 < argc) {
            seconds = std::atof(argv[++i]);
        } else if (a == "--repeat" && i + 1 < argc) {
            repeat = static_cast<unsigned>(std::atoi(argv[++i]));
        } else if (a == "--one" && i + 1 < argc) {
            one = std::atoi(argv[++i]);
        } else if (a == "--pcap" && i + 1 < argc) {
            pcap = argv[++i];
        } else {
            std::fputs(kUsage, a == "--help" ? stdout : stderr);
            return a == "--help" ? 0 : 2;
        }
    }
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
        {"built-in, classify in a shared library, a packet",
         [&] { return with_builtin(kSharedClassify); }},
        {"built-in, DEFINE_BURST in a shared library, a burst",
         [&] { return with_builtin(kSharedDefineBurst); }},
        {"built-in, burst in a shared library, a burst",
         [&] { return with_builtin(kSharedBurst); }},
        {"plugin stage that does nothing, per packet (classify)",
         [&] { return forward(with_plugin("null_classify"), "null_classify"); }},
        {"plugin, per packet made a burst (DEFINE_BURST)",
         [&] { return forward(with_plugin("null_define_burst"), "null_define_burst"); }},
        {"plugin stage that does nothing, per burst (burst)",
         [&] { return forward(with_plugin("null_burst"), "null_burst"); }},
    };
    if (one >= 0) return run_one(paths, one);
    const fs::path dir = fs::temp_directory_path() / ("bench_plugin." + std::to_string(getpid()));
    fs::create_directories(dir);
    pcap = (dir / "forward.pcap").string();
    write_pcap(pcap, frames(true));
    // plugin path -> the built-in path of the same work (goal), or of the
    // same calls into pathscope's own binary (reference).
    struct SameWork {
        size_t plugin, builtin;
        bool goal;
    };
    const std::vector<SameWork> same_work = {
        {7, 4, true}, {7, 3, false}, {8, 5, true}, {9, 6, true}, {9, 2, false}};
    std::printf("CPU: %s, %ld online CPUs\n", cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    std::printf("workload: 1024 x 64-byte UDP/IPv6 frames, 40,000 routes, net_pcap infinite_rx -> "
                "net_null, one worker, %.0f s per run, median of %u, paths interleaved, each run a "
                "process of its own\n",
                seconds, repeat);
    for (unsigned run = 1; run <= repeat; ++run)
        for (size_t k = 0; k < paths.size(); ++k) {
            Path& p = paths[k];
            std::fprintf(stderr, "run %u/%u: %s ...\n", run, repeat, p.name.c_str());
            try {
                p.readings.push_back(run_apart(k, seconds, pcap));
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
    for (const auto& [plugin, builtin, goal] : same_work) {
        const double row = median_of(paths[plugin], &Reading::stage_cycles);
        const double same = median_of(paths[builtin], &Reading::stage_cycles);
        const double noise = std::max(row_spread(paths[plugin]), row_spread(paths[builtin]));
        const char* word = !goal                    ? "for reference"
                           : row <= same + noise ? "goal met"
                                                 : "goal not met";
        std::printf("  %-52s its row %.2f vs %.2f cyc/pkt (%s: %+.2f, spread %.2f: %s); the "
                    "empty built-in %.2f\n",
                    paths[plugin].name.c_str(), row, same, paths[builtin].name.c_str(),
                    row - same, noise, word, empty_row);
    }
    std::printf("(its row: the stage's own cycles per packet in the stage table, one timestamp a "
                "call included, as for every stage)\n");
    return 0;
}
