// dpdk-testpmd as a peer of the benchmark: io or 5tswap forwarding of the
// bench pcap into net_null, or txonly into net_null, on one forwarding lcore.
#pragma once

#include <string>

namespace pathscope::bench {

/// Runs `testpmd` in `mode` ("io", "5tswap", "txonly"; `pcap` unused for
/// txonly) and returns port 0's median Rx-pps (Tx-pps for txonly) in Mpps
/// over `seconds` of forwarding, counted from its first statistics line so
/// that start-up is not in the window. Output goes to `log`. Throws
/// std::runtime_error saying why and naming the log when it gave no reading.
double run_testpmd(const std::string& testpmd, const std::string& pcap, const std::string& mode,
                   double seconds, const std::string& log);

}  // namespace pathscope::bench
