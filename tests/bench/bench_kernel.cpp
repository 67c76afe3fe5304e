// The Linux target's own cost: the kernel's UDP/IPv6 send and receive
// rates through pathscope (its sender and sink threads, perf_event sampling
// every CPU with call chains, the drop and route-lookup tracepoints, the
// namespaces' counters read every interval) against the same traffic from
// the bare loop (tests/bench/udp6_loop: a sendmmsg thread and a recvmmsg
// thread in two namespaces, nothing else), in one run, interleaved.
//
//   bench_kernel [--seconds S] [--repeat N] [--udp6-loop PATH] [--help]
//
// Both sides: 16-byte datagrams, sendmmsg 32 a call, the sender on CPU 0,
// the sink on CPU 1, rates over the window from 20% in to the end; the
// table shows each path's median and the ratios against the goal (0.95x).
// Needs root.
#include <sys/utsname.h>
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

#include "capture/kernel/kernel_rows.h"
#include "capture/recorder.h"
#include "capture/scenario.h"
#include "tests/bench/bench_table.h"

using namespace pathscope;
using pathscope::bench::BenchPath;
namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage =
    "usage: bench_kernel [--seconds S] [--repeat N] [--udp6-loop PATH] [--help]\n"
    "  --seconds S        length of each run (default 5)\n"
    "  --repeat N         runs of each path; the table shows the median (default 5)\n"
    "  --udp6-loop PATH   the bare loop (default: the build tree's udp6_loop)\n";

struct Reading {
    double send = 0, receive = 0;  ///< datagrams a second: sent, read by the sink
};

using Path = BenchPath<Reading>;

double median_of(const Path& p, double Reading::*field) { return p.median_of(field); }

std::string scenario_text(bool connect, uint32_t sample_hz, bool lookups) {
    return "[target]\nkind = \"linux\"\n[linux]\npath = \"send\"\nsender_cpu = 0\nreceiver_cpu = 1\n"
           "count_lookups = " + std::string(lookups ? "true" : "false") + "\n"
           "[capture]\ntrials = 1\nsample_hz = " + std::to_string(sample_hz) +
           "\n[source]\ndestination = \"2001:db8:1::2\"\nport = 9\npayload = 16\nbatch = 32\n"
           "[socket]\nconnect = " + (connect ? "true" : "false") + "\n";
}

/// One pathscope run of one trial into a fresh store.
Reading run_pathscope(const fs::path& dir, bool connect, uint32_t sample_hz, bool lookups, double seconds) {
    const fs::path sc_path = dir / "bench.toml";
    std::ofstream(sc_path) << scenario_text(connect, sample_hz, lookups);
    const capture::Scenario sc = capture::load_scenario(sc_path.string(), {"engine.duration=" + std::to_string(seconds)});
    capture::RecordOptions opt;
    opt.db_path = (dir / "bench.db").string();
    fs::remove(opt.db_path);
    opt.scenario_path = sc_path.string();
    const capture::RecordResult r = capture::record_run(sc, opt);
    if (!r.error.empty() || !r.setup_error.empty() || r.run.rows.trials.empty())
        throw std::runtime_error("pathscope run failed: " + r.error + r.setup_error);
    const db::TrialRow& t = r.run.rows.trials.front();
    Reading out{t.sent_pps, 0};
    for (const auto& e : r.run.rows.events)
        if (e.name == capture::kDatagramsRead && t.seconds > 0)
            out.receive = static_cast<double>(e.window_value) / t.seconds;
    return out;
}

Reading run_bare(const std::string& loop, bool connect, double seconds) {
    const std::string cmd = loop + " --seconds " + std::to_string(seconds) + (connect ? " --connect" : "");
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot start " + loop);
    Reading r;
    const int n = std::fscanf(p, "sent_pps %lf read_pps %lf", &r.send, &r.receive);
    if (pclose(p) != 0 || n != 2) throw std::runtime_error(loop + " gave no reading");
    return r;
}

std::string first_line_with(const char* file, const char* key) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key, 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

void print_ratio(const char* label, const Path& a, const Path& b, double Reading::*f) {
    if (!a.error.empty() || !b.error.empty()) {
        std::printf("  %-58s   n/a (a path failed)\n", label);
        return;
    }
    const double r = median_of(a, f) / median_of(b, f);
    std::printf("  %-58s %6.3fx  goal 0.95x or better: %s\n", label, r, r >= 0.95 ? "met" : "not met");
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 5;
    unsigned repeat = 5;
    std::string loop = PATHSCOPE_UDP6_LOOP;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
        else if (a == "--repeat" && i + 1 < argc) repeat = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (a == "--udp6-loop" && i + 1 < argc) loop = argv[++i];
        else {
            std::printf("%s", kUsage);
            return a == "--help" ? 0 : 2;
        }
    }
    if (geteuid() != 0) {
        std::fprintf(stderr, "bench_kernel: needs root (network namespaces, perf_event)\n");
        return 2;
    }
    const fs::path dir = fs::temp_directory_path() / ("bench_kernel_" + std::to_string(getpid()));
    fs::create_directories(dir);
    utsname u{};
    uname(&u);
    std::printf("CPU: %s, %ld CPUs online; Linux %s\n", first_line_with("/proc/cpuinfo", "model name").c_str(),
                sysconf(_SC_NPROCESSORS_ONLN), u.release);
    std::printf("workload: 16-byte UDP/IPv6 datagrams, sendmmsg 32 a call (CPU 0) -> veth -> recvmmsg sink "
                "(CPU 1), %.0f s a run, median of %u, interleaved\n", seconds, repeat);
    // Per socket kind: pathscope as a run is by default (sampling 999 Hz, drop
    // tracepoint), the bare loop, and pathscope with the lookup tracepoint
    // counted (linux.count_lookups) and without sampling, to split the cost.
    std::vector<Path> paths;
    for (const bool connect : {true, false}) {
        const std::string kind = connect ? "connected" : "unconnected";
        paths.emplace_back("pathscope, " + kind + ": sampling 999 Hz (default)",
                           [&, connect] { return run_pathscope(dir, connect, 999, false, seconds); });
        paths.emplace_back("bare loop, " + kind, [&, connect] { return run_bare(loop, connect, seconds); });
        paths.emplace_back("pathscope, " + kind + ": sampling + lookups counted",
                           [&, connect] { return run_pathscope(dir, connect, 999, true, seconds); });
        paths.emplace_back("pathscope, " + kind + ": no sampling",
                           [&, connect] { return run_pathscope(dir, connect, 0, false, seconds); });
    }
    for (unsigned run = 1; run <= repeat; ++run)
        for (auto& p : paths) {
            if (!p.error.empty()) continue;
            std::fprintf(stderr, "run %u/%u: %s ...\n", run, repeat, p.name.c_str());
            try {
                p.readings.push_back(p.measure());
            } catch (const std::exception& e) {
                p.error = e.what();
            }
        }
    std::printf("\n%-56s %12s %12s\n", "path", "send Mpps", "recv Mpps");
    for (const auto& p : paths) {
        if (!p.error.empty()) {
            std::printf("%-56s failed: %s\n", p.name.c_str(), p.error.c_str());
            continue;
        }
        std::printf("%-56s %12.4f %12.4f  each run (send):", p.name.c_str(),
                    median_of(p, &Reading::send) / 1e6, median_of(p, &Reading::receive) / 1e6);
        for (const auto& r : p.readings) std::printf(" %.4f", r.send / 1e6);
        std::printf("\n");
    }
    std::printf("\nratios (of the medians)\n");
    for (size_t k = 0; k < paths.size(); k += 4) {
        const std::string kind = k == 0 ? "connected" : "unconnected";
        print_ratio(("send, " + kind + ": pathscope / bare").c_str(), paths[k], paths[k + 1], &Reading::send);
        print_ratio(("receive, " + kind + ": pathscope / bare").c_str(), paths[k], paths[k + 1], &Reading::receive);
        print_ratio(("send, " + kind + ", lookups counted: pathscope / bare").c_str(), paths[k + 2],
                    paths[k + 1], &Reading::send);
        print_ratio(("send, " + kind + ", no sampling: pathscope / bare").c_str(), paths[k + 3],
                    paths[k + 1], &Reading::send);
    }
    fs::remove_all(dir);
    return 0;
}
