#include "tests/bench/testpmd_peer.h"

#include <algorithm>
#include <chrono>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/bench/bench_workload.h"
#include "tests/bench/peer_process.h"

namespace pathscope::bench {

namespace {
// A reading is a per-second rate, the first two after the first statistics
// line are warm-up: the first has no previous reading to differ from, the
// second may hold the end of start-up.
constexpr int kWarmupReadings = 2;
}  // namespace

double run_testpmd(const std::string& testpmd, const std::string& pcap, const std::string& mode,
                   double seconds, const std::string& log) {
    const std::string what = "dpdk-testpmd " + mode;
    const bool txonly = mode == "txonly";
    std::vector<std::string> argv = {testpmd};
    for (const auto& a : kEal) argv.push_back(a);
    if (txonly) {
        argv.insert(argv.end(), {"--vdev", "net_null0,no-rx=1"});
    } else {
        argv.insert(argv.end(), {"--vdev", "net_pcap0,rx_pcap=" + pcap + ",infinite_rx=1", "--vdev",
                                 "net_null1,no-rx=1"});
    }
    argv.insert(argv.end(), {"--", "--forward-mode=" + mode, "--nb-cores=1", "--stats-period=1",
                             "--rxq=1", "--txq=1"});
    PeerProcess peer(argv, log);
    peer.wait_for(std::regex(R"(NIC statistics for port)"), 120, what);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds + kWarmupReadings - 0.5));
    const int status = peer.stop(30);

    std::istringstream in(peer.output());
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
    if (pps.size() <= kWarmupReadings)
        throw std::runtime_error(what + " gave " + std::to_string(pps.size()) +
                                 " per-second readings of port 0, all warm-up (exit status " +
                                 std::to_string(status) + "); see " + log);
    pps.erase(pps.begin(), pps.begin() + kWarmupReadings);
    std::nth_element(pps.begin(), pps.begin() + pps.size() / 2, pps.end());
    const double median = pps[pps.size() / 2];
    if (median <= 0)
        throw std::runtime_error(what + ": port 0 " + (txonly ? "sent" : "received") +
                                 " nothing after warm-up; see " + log);
    return median / 1e6;
}

}  // namespace pathscope::bench
