// Engine throughput against DPDK's own programs on the same virtual devices,
// in one run: a net_pcap replay (infinite_rx=1) of 64-byte UDP/IPv6 frames
// into net_null, one forwarding lcore each, the same 40,000 routes.
//
//   bench_forward [--seconds S] [--repeat N] [--l3fwd PATH] [--testpmd PATH]
//                 [--hugepages] [--workers-scale] [--only TEXT[,TEXT...]] [--help]
//
// The peers: DPDK's l3fwd example (FIB and LPM lookups; built by the target
// l3fwd_peer from Debian's dpdk-doc with l3fwd/l3fwd.patch) and dpdk-testpmd
// (io, 5tswap, txonly). The paths run interleaved, engine then peer, N times
// each, so that a shared machine's drift falls on both; the table shows each
// path's median, the engine forward run's per-stage cycles and the ratios
// against their goals. A peer that gives no reading is an error naming its log.
//
// --workers-scale instead measures the engine's forwarding path with 1 and
// with 2 worker lcores (engine.workers) on a 2-queue net_pcap replay.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "analysis/render/run_view.h"
#include "capture/run.h"
#include "capture/snapshot_rows.h"
#include "engine/routes.h"
#include "tests/bench/bench_table.h"
#include "tests/bench/bench_workload.h"
#include "tests/bench/l3fwd_peer.h"
#include "tests/bench/testpmd_peer.h"

using namespace pathscope;
using namespace pathscope::engine;
using namespace pathscope::bench;
namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage =
    "usage: bench_forward [--seconds S] [--repeat N] [--l3fwd PATH] [--testpmd PATH]\n"
    "                     [--hugepages] [--workers-scale] [--only TEXT[,TEXT...]] [--help]\n"
    "  --seconds S      forwarding time of each run (default 5)\n"
    "  --repeat N       runs of each path; the table shows the median (default 3)\n"
    "  --l3fwd PATH     DPDK's l3fwd built with tests/bench/l3fwd/l3fwd.patch\n"
    "                   (default: the build tree's dpdk-l3fwd, target l3fwd_peer)\n"
    "  --testpmd PATH   dpdk-testpmd (default: dpdk-testpmd on PATH)\n"
    "  --hugepages      reserved hugepages instead of --no-huge (engine and peers)\n"
    "  --workers-scale  instead of the peer table: the engine's forward path with 1\n"
    "                   and 2 worker lcores on a 2-queue net_pcap replay\n"
    "  --only TEXT[,TEXT...]  run only the paths whose name contains one of the\n"
    "                   texts (to profile one, or compare two quickly); names\n"
    "                   have commas, so give a part without one\n";

struct Options {
    double seconds = 5;
    unsigned repeat = 3;
    std::string l3fwd = PATHSCOPE_L3FWD;
    std::string testpmd = "dpdk-testpmd";
    bool workers_scale = false;
    std::string only;  ///< comma-separated texts: run only the paths named with one
};

/// One run's figure: packets per second of the path, and for the engine the
/// cycles its stages spent per received packet (NAN for a peer).
struct Reading {
    double mpps = 0;
    double cycles_per_packet = NAN;
};

/// A row of the table: a path measured once per repetition (given the run's number).
using Path = BenchPath<Reading, unsigned>;

double median_mpps(const Path& p) { return p.median_of(&Reading::mpps); }
double median_cycles(const Path& p) { return p.median_of(&Reading::cycles_per_packet); }

/// The per-stage table of an engine run, as `pathscope show` prints it.
std::string stage_table_of(const capture::RunResult& r) {
    analysis::RunViewOptions opt;
    opt.histograms = false;
    opt.header = false;  // a benchmark's table has no stored run to name
    db::RunData run;
    run.rows = capture::trial_rows(0, r);
    return analysis::render_run(run, opt);
}

/// The engine's forwarding path (or receive-to-socket, with the local pcap);
/// `stage_table` gets the per-stage table of the run when not null.
Reading run_engine(const EngineConfig& cfg, uint64_t Ledger::*counter,
                   std::string* stage_table = nullptr) {
    auto r = capture::run_engine(cfg);
    if (stage_table) *stage_table = stage_table_of(r);
    if (!r.snapshot.ledger.balanced())
        throw std::runtime_error("the engine's ledger does not balance after the run");
    Reading f;
    f.mpps = capture::rate_pps(r.window_start, r.window_end, counter) / 1e6;
    uint64_t cycles = 0;
    for (const auto& st : r.snapshot.stages) cycles += st.cycles;
    if (r.snapshot.ledger.received)
        f.cycles_per_packet =
            static_cast<double>(cycles) / static_cast<double>(r.snapshot.ledger.received);
    return f;
}

/// The send path: the source application on the worker, one socket sending
/// 18-byte datagrams flat out to a destination behind the 40k-route FIB,
/// through udp6_output, ip6_output, txq_select and eth_tx into net_null.
Reading run_transmit(double seconds, bool connect, bool route_cache, SocketSend send,
                     std::string* stage_table = nullptr) {
    EngineConfig c = bench_config("", seconds, true);
    c.ports.erase(c.ports.begin());  // no receive port: transmit only
    c.ports[0].addresses = {{*parse_ip6("2001:db8:2::1"), 64}};
    c.apps.clear();
    c.workload.kind = WorkloadKind::none;
    c.routes.push_back({*parse_prefix6("2001:db8:900::/48"), 1});
    c.source.enabled = true;
    c.source.destination = *parse_ip6("2001:db8:900::7");
    c.source.connect = connect;
    c.source.bind = true;
    c.route_cache = route_cache;
    c.socket_send = send;
    auto r = capture::run_engine(c);
    if (stage_table) *stage_table = stage_table_of(r);
    if (!r.snapshot.ledger.send_balanced())
        throw std::runtime_error("the engine's send ledger does not balance after the run");
    return {capture::rate_pps(r.window_start, r.window_end, &Ledger::sent) / 1e6};
}

/// Whether a path's name contains one of the comma-separated texts of `only`
/// (every path when it is empty).
bool selected(const std::string& name, const std::string& only) {
    if (only.empty()) return true;
    for (size_t at = 0; at <= only.size();) {
        const size_t end = std::min(only.find(',', at), only.size());
        const std::string text = only.substr(at, end - at);
        if (!text.empty() && name.find(text) != std::string::npos) return true;
        at = end + 1;
    }
    return false;
}

/// Runs every path `repeat` times, interleaved, and keeps the first error of
/// each. A reading of no packets is an error too, never a 0 in the table.
/// With `only` set, the paths not selected() are not run (their rows say so).
void run_all(std::vector<Path*> order, unsigned repeat, const std::string& only = {}) {
    for (unsigned run = 1; run <= repeat; ++run) {
        for (Path* p : order) {
            if (!selected(p->name, only)) continue;
            std::fprintf(stderr, "run %u/%u: %s ...\n", run, repeat, p->name.c_str());
            try {
                const Reading r = p->measure(run);
                if (!(r.mpps > 0)) throw std::runtime_error("no packets in the measured window");
                p->readings.push_back(r);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "run %u/%u: %s failed: %s\n", run, repeat, p->name.c_str(),
                             e.what());
                if (p->error.empty()) p->error = "run " + std::to_string(run) + ": " + e.what();
            }
        }
    }
}

void print_row(const Path& p) {
    if (p.error.empty() && p.readings.empty()) {
        std::printf("%-50s %9s %11s  not run (--only)\n", p.name.c_str(), "-", "-");
        return;
    }
    if (!p.error.empty()) {
        std::printf("%-50s %9s %11s  see errors below\n", p.name.c_str(), "failed", "-");
        return;
    }
    std::string runs;
    for (const auto& r : p.readings) {
        char b[32];
        std::snprintf(b, sizeof b, "%s%.2f", runs.empty() ? "" : " ", r.mpps);
        runs += b;
    }
    const double cyc = median_cycles(p);
    char cycles[32] = "-";
    if (!std::isnan(cyc)) std::snprintf(cycles, sizeof cycles, "%.1f", cyc);
    std::printf("%-50s %9.3f %11s  %s\n", p.name.c_str(), median_mpps(p), cycles, runs.c_str());
}

/// "a / b" of two rows' medians with its goal (0: none) and whether it is met.
void print_ratio(const char* label, const Path& a, const Path& b, double goal) {
    std::printf("  %-48s ", label);
    if (!a.error.empty() || !b.error.empty()) {
        std::printf("   n/a  (%s failed)\n", (!a.error.empty() ? a : b).name.c_str());
        return;
    }
    if (a.readings.empty() || b.readings.empty()) {
        std::printf("   n/a  (not run)\n");
        return;
    }
    const double r = median_mpps(a) / median_mpps(b);
    std::printf("%6.2fx", r);
    if (goal > 0) std::printf("  goal %.2fx or better: %s", goal, r >= goal ? "met" : "not met");
    std::printf("\n");
}

/// The peer's log, removed when the run gave a reading (kept for errors).
struct PeerLog {
    std::string path;
    ~PeerLog() {
        if (keep) return;
        std::error_code ec;
        fs::remove(path, ec);
    }
    bool keep = true;
};

int run_peer_table(const Options& o, const fs::path& dir) {
    const std::string fwd_pcap = (dir / "forward.pcap").string();
    const std::string local_pcap = (dir / "local.pcap").string();
    write_pcap(fwd_pcap, frames(true));
    write_pcap(local_pcap, frames(false));
    const L3fwdRules rules = write_l3fwd_rules(dir.string());
    std::printf(
        "workload: 1024 x 64-byte UDP/IPv6 frames, 40,000 routes, net_pcap infinite_rx -> "
        "net_null, one forwarding lcore, %.0f s per run, median of %u, %s\n",
        o.seconds, o.repeat, kEal[0] == "--no-huge" ? "4 KiB pages (--no-huge)" : "hugepages");

    // Each engine path's per-stage table, of its first run.
    std::string fwd_table, local_table, tx_table;
    const auto engine = [&](const std::string& pcap, bool histograms, uint64_t Ledger::*counter,
                            std::string* table) {
        return [&, pcap, histograms, counter, table](unsigned) {
            return run_engine(bench_config(pcap, o.seconds, histograms), counter,
                              table && table->empty() ? table : nullptr);
        };
    };
    const auto peer_log = [&](const std::string& name, unsigned run) {
        return PeerLog{(dir / (name + "-run" + std::to_string(run) + ".log")).string()};
    };
    const auto l3fwd = [&](const std::string& lookup) {
        return [&, lookup](unsigned run) {
            PeerLog log = peer_log("l3fwd-" + lookup, run);
            const L3fwdReading r = run_l3fwd(o.l3fwd, lookup, fwd_pcap, rules, o.seconds, log.path);
            log.keep = false;
            return Reading{r.mpps()};
        };
    };
    const auto testpmd = [&](const std::string& mode) {
        return [&, mode](unsigned run) {
            PeerLog log = peer_log("testpmd-" + mode, run);
            const double mpps =
                run_testpmd(o.testpmd, mode == "txonly" ? "" : fwd_pcap, mode, o.seconds, log.path);
            log.keep = false;
            return Reading{mpps};
        };
    };
    const auto transmit = [&](bool connect, bool cache, SocketSend send, std::string* table) {
        return [&, connect, cache, send, table](unsigned) {
            return run_transmit(o.seconds, connect, cache, send,
                                table && table->empty() ? table : nullptr);
        };
    };

    Path fwd{"engine forward (counters and histograms on)",
             engine(fwd_pcap, true, &Ledger::forwarded, &fwd_table)};
    Path bare{"engine forward, per-call histograms off",
              engine(fwd_pcap, false, &Ledger::forwarded, nullptr)};
    Path local{"engine receive to socket (sink)",
               engine(local_pcap, true, &Ledger::delivered, &local_table)};
    Path fib{"DPDK l3fwd --lookup=fib", l3fwd("fib")};
    Path lpm{"DPDK l3fwd --lookup=lpm", l3fwd("lpm")};
    Path io{"dpdk-testpmd io", testpmd("io")};
    Path swap{"dpdk-testpmd 5tswap", testpmd("5tswap")};
    Path tx_cached{"engine transmit, connected, route cache on",
                   transmit(true, true, SocketSend::single, &tx_table)};
    Path tx_lookup{"engine transmit, connected, route cache off",
                   transmit(true, false, SocketSend::single, nullptr)};
    Path tx_unconnected{"engine transmit, bound, unconnected",
                        transmit(false, true, SocketSend::single, nullptr)};
    Path tx_burst{"engine transmit, connected, cached, send_burst",
                  transmit(true, true, SocketSend::burst, nullptr)};
    Path txonly{"dpdk-testpmd txonly", testpmd("txonly")};

    // Engine, peer, engine, peer, ...
    run_all({&fwd, &fib, &bare, &lpm, &local, &io, &tx_cached, &txonly, &tx_lookup, &swap,
             &tx_unconnected, &tx_burst},
            o.repeat, o.only);

    for (const auto& [name, table] : {std::pair{fwd.name, fwd_table},
                                      {local.name, local_table},
                                      {tx_cached.name, tx_table}})
        if (!table.empty())
            std::printf("\n%s, per-stage cycles (first run)\n%s\n", name.c_str(), table.c_str());
    std::printf("\n%-50s %9s %11s  %s\n", "path", "Mpps", "cycles/pkt", "each run (Mpps)");
    for (const Path* p : {&fwd, &bare, &local, &fib, &lpm, &io, &swap}) print_row(*p);
    std::printf("\n");
    for (const Path* p : {&tx_cached, &tx_lookup, &tx_unconnected, &tx_burst, &txonly})
        print_row(*p);
    std::printf("\nratios (of the medians)\n");
    // The goals of the issue "The engine, correct with many workers and on
    // real NICs, and closer to l3fwd on any CPU".
    print_ratio("engine forward / l3fwd fib", fwd, fib, 0.85);
    print_ratio("engine forward, histograms off / l3fwd fib", bare, fib, 0);
    print_ratio("engine receive to socket / l3fwd fib", local, fib, 0.8);
    print_ratio("histograms on / off (engine forward)", fwd, bare, 0.98);
    print_ratio("engine transmit (connected, cached) / txonly", tx_cached, txonly, 0.4);
    // testpmd hands the device 32 packets a call; send_burst is the
    // engine's sendmmsg, 32 datagrams a call (engine.socket_send = burst).
    print_ratio("engine transmit (send_burst) / txonly", tx_burst, txonly, 0);
    print_ratio("engine forward / testpmd 5tswap", fwd, swap, 0);
    print_ratio("l3fwd lpm / l3fwd fib", lpm, fib, 0);
    print_ratio("route cache on / off (connected transmit)", tx_cached, tx_lookup, 0);

    bool failed = false;
    for (const Path* p : {&fwd, &bare, &local, &fib, &lpm, &io, &swap, &tx_cached, &tx_lookup,
                          &tx_unconnected, &tx_burst, &txonly}) {
        if (p->error.empty()) continue;
        if (!failed) std::printf("\nerrors\n");
        failed = true;
        std::printf("  %s: %s\n", p->name.c_str(), p->error.c_str());
    }
    return failed ? 1 : 0;
}

/// engine.workers = N on a net_pcap replay with one rx_pcap per receive queue
/// (2 queues) into net_null with 2 tx queues, the same for N = 1 and 2.
Reading run_workers(const std::string& pcap, double seconds, unsigned workers,
                    size_t* workers_reported) {
    static unsigned serial = 0;
    EngineConfig c = bench_config(pcap, seconds, true);
    c.workload.kind = WorkloadKind::none;
    PortConfig& in = c.ports[0];
    in.device = "net_pcap_scale" + std::to_string(serial++) + ",rx_pcap=" + pcap +
                ",rx_pcap=" + pcap + ",infinite_rx=1";
    in.promiscuous = true;
    in.rx_queues = 2;
    in.tx_queues = 2;  // replies would leave by it: one queue per worker
    c.ports[1].tx_queues = 2;
    c.workers = workers;
    auto r = capture::run_engine(c);
    if (!r.snapshot.ledger.balanced())
        throw std::runtime_error("the engine's ledger does not balance after the run");
    for (const auto& q : r.snapshot.queues)
        if (q.port == "in" && q.rx && q.packets == 0)
            throw std::runtime_error("receive queue " + std::to_string(q.queue) +
                                     " of the 2-queue net_pcap replay received nothing");
    *workers_reported = r.snapshot.workers.size();
    return {capture::rate_pps(r.window_start, r.window_end, &Ledger::forwarded) / 1e6};
}

int run_workers_scale(const Options& o, const fs::path& dir) {
    // Main lcore, then two workers: worker 1 alone on CPU 1 as in the peer
    // table, worker 2 on CPU 0 beside the (mostly sleeping) control thread.
    const std::string lcores = "0@0,1@1,2@0";
    kEal = eal_with_lcores("--lcores", lcores);
    const std::string pcap = (dir / "forward.pcap").string();
    write_pcap(pcap, frames(true));
    std::printf(
        "workers scale: 1024 x 64-byte UDP/IPv6 frames replayed by net_pcap on 2 receive "
        "queues (one rx_pcap each) -> engine -> net_null (2 tx queues), 40,000 routes, "
        "EAL --lcores %s, %.0f s per run, median of %u\n",
        lcores.c_str(), o.seconds, o.repeat);
    size_t reported[3] = {};
    const auto workers = [&](unsigned n) {
        return [&, n](unsigned) { return run_workers(pcap, o.seconds, n, &reported[n]); };
    };
    Path one{"engine forward, engine.workers = 1", workers(1)};
    Path two{"engine forward, engine.workers = 2", workers(2)};
    run_all({&one, &two}, o.repeat);
    std::printf("\n%-50s %9s %11s  %s\n", "path", "Mpps", "cycles/pkt", "each run (Mpps)");
    print_row(one);
    print_row(two);
    std::printf("\nratios (of the medians)\n");
    print_ratio("2 workers / 1 worker", two, one, 1.85);
    if (two.error.empty() && reported[2] < 2)
        std::printf(
            "note: the engine reported %zu worker(s) for engine.workers = 2: this build does "
            "not run several workers yet, so the ratio is about 1\n",
            reported[2]);
    for (const Path* p : {&one, &two})
        if (!p->error.empty()) std::printf("error: %s: %s\n", p->name.c_str(), p->error.c_str());
    return one.error.empty() && two.error.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--seconds" && has_value) {
            o.seconds = std::atof(argv[++i]);
        } else if (a == "--repeat" && has_value) {
            o.repeat = static_cast<unsigned>(std::atoi(argv[++i]));
        } else if (a == "--l3fwd" && has_value) {
            o.l3fwd = argv[++i];
        } else if (a == "--testpmd" && has_value) {
            o.testpmd = argv[++i];
        } else if (a == "--hugepages") {
            use_hugepages();
        } else if (a == "--only" && has_value) {
            o.only = argv[++i];
        } else if (a == "--workers-scale") {
            o.workers_scale = true;
        } else if (a == "--help" || a == "-h") {
            std::printf("%s", kUsage);
            return 0;
        } else {
            std::fprintf(stderr, "bench_forward: unknown option '%s'\n%s", a.c_str(), kUsage);
            return 2;
        }
    }
    if (!(o.seconds >= 1) || o.repeat < 1) {
        std::fprintf(stderr, "bench_forward: --seconds must be at least 1 and --repeat at least 1\n");
        return 2;
    }
    if (!o.workers_scale && o.l3fwd.empty()) {
        std::fprintf(stderr,
                     "bench_forward: no l3fwd peer: this build found no DPDK example sources "
                     "(/usr/share/dpdk/examples/l3fwd). Install them (apt-get install dpdk-doc, "
                     "or scripts/setup.sh), re-run cmake and build the target l3fwd_peer; or "
                     "give a patched l3fwd with --l3fwd PATH\n");
        return 2;
    }
    if (!o.workers_scale && access(o.l3fwd.c_str(), X_OK) != 0) {
        std::fprintf(stderr,
                     "bench_forward: %s is not an executable l3fwd: build it with "
                     "'cmake --build <build dir> --target l3fwd_peer' or give --l3fwd PATH\n",
                     o.l3fwd.c_str());
        return 2;
    }
    const fs::path dir = fs::temp_directory_path() / ("bench_forward-" + std::to_string(getpid()));
    int status = 1;
    try {
        fs::create_directories(dir);
        status = o.workers_scale ? run_workers_scale(o, dir) : run_peer_table(o, dir);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_forward: %s\n", e.what());
    }
    std::error_code ec;
    if (status == 0)
        fs::remove_all(dir, ec);
    else
        std::fprintf(stderr, "bench_forward: the peers' logs of failed runs are in %s\n",
                     dir.c_str());
    return status;
}
