// Engine throughput against dpdk-testpmd on the same virtual devices, in one
// run: a net_pcap replay (infinite_rx=1) of 64-byte UDP/IPv6 frames into
// net_null, one forwarding lcore each.
//
//   bench_forward [--seconds S] [--testpmd PATH] [--hugepages]
//
// Prints Mpps for the engine's forwarding path (40,000-route FIB), its
// receive-to-socket path (sink app), the forwarding path with per-call
// histograms off, testpmd io and 5tswap forwarding, the send path (source
// application, route cache on and off) against testpmd txonly, and the ratios.
#include <pcap/pcap.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/run_view.h"
#include "capture/run.h"
#include "capture/snapshot_rows.h"
#include "engine/routes.h"
#include "tests/bench/bench_workload.h"

using namespace pathscope;
using namespace pathscope::engine;
using namespace pathscope::bench;
namespace fs = std::filesystem;

namespace {

struct EngineFigures {
    double forwarded_mpps, delivered_mpps, received_mpps, cycles_per_packet;
};

EngineFigures run_engine(const std::string& pcap, double seconds, bool histograms,
                         bool print_table = false) {
    auto r = capture::run_engine(bench_config(pcap, seconds, histograms));
    if (print_table) {
        analysis::RunViewOptions opt;
        opt.histograms = false;
        opt.header = false;  // a benchmark's table has no stored run to name
        db::RunData run;
        run.rows = capture::trial_rows(0, r);
        std::printf("%s\n", analysis::render_run(run, opt).c_str());
    }
    EngineFigures f{};
    f.forwarded_mpps = capture::rate_pps(r.window_start, r.window_end, &Ledger::forwarded) / 1e6;
    f.delivered_mpps = capture::rate_pps(r.window_start, r.window_end, &Ledger::delivered) / 1e6;
    f.received_mpps = capture::rate_pps(r.window_start, r.window_end, &Ledger::received) / 1e6;
    uint64_t cycles = 0;
    for (const auto& st : r.snapshot.stages) cycles += st.cycles;
    f.cycles_per_packet =
        r.snapshot.ledger.received
            ? static_cast<double>(cycles) / static_cast<double>(r.snapshot.ledger.received)
            : 0;
    if (!r.snapshot.ledger.balanced()) std::fprintf(stderr, "warning: ledger not balanced\n");
    return f;
}

/// The send path: the source application on the worker, one socket sending
/// 18-byte datagrams flat out to a destination behind the 40k-route FIB,
/// through udp6_output, ip6_output, txq_select and eth_tx into net_null.
double run_transmit(double seconds, bool connect, bool route_cache) {
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
    auto r = capture::run_engine(c);
    if (!r.snapshot.ledger.send_balanced()) std::fprintf(stderr, "warning: send ledger not balanced\n");
    return capture::rate_pps(r.window_start, r.window_end, &Ledger::sent) / 1e6;
}

/// Runs testpmd for `seconds` and returns the median of port 0's Rx-pps
/// (Tx-pps for txonly) readings after the first two (warm-up), in Mpps; 0
/// when it did not run. txonly sends testpmd's own 64-byte UDP frames.
double run_testpmd(const std::string& testpmd, const std::string& pcap, const std::string& mode,
                   double seconds) {
    const std::string log =
        (fs::temp_directory_path() / ("bench_testpmd_" + mode + ".log")).string();
    std::ostringstream cmd;
    cmd << "timeout -s INT " << static_cast<int>(seconds + 3) << " " << testpmd;
    for (const auto& a : kEal) cmd << " '" << a << "'";
    const bool txonly = mode == "txonly";
    if (txonly)
        cmd << " --vdev net_null0,no-rx=1 -- ";
    else
        cmd << " --vdev net_pcap0,rx_pcap=" << pcap << ",infinite_rx=1 --vdev net_null1,no-rx=1 -- ";
    cmd << "--forward-mode=" << mode << " --nb-cores=1 --stats-period=1 --rxq=1 --txq=1 >" << log
        << " 2>&1";
    if (std::system(cmd.str().c_str()) == -1) return 0;
    std::ifstream in(log);
    std::string line;
    int port = -1;
    std::vector<double> pps;
    const std::regex header(R"(NIC statistics for port (\d+))"),
        rate(txonly ? R"(Tx-pps:\s+(\d+))" : R"(Rx-pps:\s+(\d+))");
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, header))
            port = std::stoi(m[1]);
        else if (port == 0 && std::regex_search(line, m, rate))
            pps.push_back(std::stod(m[1]));
    }
    if (pps.size() <= 2) {
        std::fprintf(stderr, "testpmd %s gave no rate readings; see %s\n", mode.c_str(),
                     log.c_str());
        return 0;
    }
    pps.erase(pps.begin(), pps.begin() + 2);
    std::nth_element(pps.begin(), pps.begin() + pps.size() / 2, pps.end());
    return pps[pps.size() / 2] / 1e6;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

}  // namespace

int main(int argc, char** argv) {
    double seconds = 5;
    std::string testpmd = "dpdk-testpmd";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--seconds" && i + 1 < argc)
            seconds = std::atof(argv[++i]);
        else if (a == "--testpmd" && i + 1 < argc)
            testpmd = argv[++i];
        else if (a == "--hugepages") {
            bench::use_hugepages();
        } else {
            std::fprintf(stderr,
                         "usage: bench_forward [--seconds S] [--testpmd PATH] [--hugepages]\n");
            return 2;
        }
    }
    try {
        const fs::path dir = fs::temp_directory_path();
        const std::string fwd_pcap = (dir / "bench_forward.pcap").string();
        const std::string local_pcap = (dir / "bench_local.pcap").string();
        write_pcap(fwd_pcap, frames(true));
        write_pcap(local_pcap, frames(false));
        std::printf(
            "workload: 1024 x 64-byte UDP/IPv6 frames, net_pcap infinite_rx -> net_null, "
            "%.0f s per run, %s\n",
            seconds, kEal[0] == "--no-huge" ? "4 KiB pages (--no-huge)" : "hugepages");
        const EngineFigures fwd = run_engine(fwd_pcap, seconds, true, true);
        const EngineFigures local = run_engine(local_pcap, seconds, true);
        const EngineFigures bare = run_engine(fwd_pcap, seconds, false);
        const double io = run_testpmd(testpmd, fwd_pcap, "io", seconds);
        const double swap = run_testpmd(testpmd, fwd_pcap, "5tswap", seconds);
        const double tx_cached = run_transmit(seconds, true, true);
        const double tx_lookup = run_transmit(seconds, true, false);
        const double tx_unconnected = run_transmit(seconds, false, true);
        const double txonly = run_testpmd(testpmd, "", "txonly", seconds);

        std::printf("\n%-46s %10s %12s\n", "path", "Mpps", "cycles/pkt");
        std::printf("%-46s %10.3f %12.1f\n", "engine forward (40k-route FIB, counters on)",
                    fwd.forwarded_mpps, fwd.cycles_per_packet);
        std::printf("%-46s %10.3f %12.1f\n", "engine forward, per-call histograms off",
                    bare.forwarded_mpps, bare.cycles_per_packet);
        std::printf("%-46s %10.3f %12.1f\n", "engine receive to socket (sink)",
                    local.delivered_mpps, local.cycles_per_packet);
        std::printf("%-46s %10.3f %12s\n", "dpdk-testpmd io", io, "-");
        std::printf("%-46s %10.3f %12s\n", "dpdk-testpmd 5tswap", swap, "-");
        std::printf("%-46s %10.3f %12s\n", "engine transmit, connected, route cache on", tx_cached, "-");
        std::printf("%-46s %10.3f %12s\n", "engine transmit, connected, route cache off", tx_lookup, "-");
        std::printf("%-46s %10.3f %12s\n", "engine transmit, bound, unconnected", tx_unconnected, "-");
        std::printf("%-46s %10.3f %12s\n", "dpdk-testpmd txonly", txonly, "-");
        std::printf("\nratios\n");
        std::printf("  engine forward / testpmd 5tswap        %6.2fx  (goal 0.80x or better)\n",
                    ratio(fwd.forwarded_mpps, swap));
        std::printf("  engine forward / testpmd io            %6.2fx\n",
                    ratio(fwd.forwarded_mpps, io));
        std::printf("  engine to socket / testpmd 5tswap      %6.2fx\n",
                    ratio(local.delivered_mpps, swap));
        std::printf("  histograms on / off (forward)          %6.2fx\n",
                    ratio(fwd.forwarded_mpps, bare.forwarded_mpps));
        std::printf("  engine transmit / testpmd txonly       %6.2fx  (connected, route cache on)\n",
                    ratio(tx_cached, txonly));
        std::printf("  route cache on / off (connected)       %6.2fx\n", ratio(tx_cached, tx_lookup));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_forward: %s\n", e.what());
        return 1;
    }
    return 0;
}
