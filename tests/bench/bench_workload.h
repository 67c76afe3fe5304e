// The benchmark workload shared by the bench programs: 64-byte UDP/IPv6
// frames in a pcap that net_pcap replays forever into the engine, which
// forwards them over a 40,000-route FIB to net_null.
#pragma once

#include <string>
#include <vector>

#include "engine/config.h"

namespace pathscope::bench {

/// EAL arguments for the engine and its peers. --hugepages swaps --no-huge
/// for hugetlbfs memory (pages must be reserved and mounted).
extern std::vector<std::string> kEal;
void use_hugepages();

/// kEal with its lcore option ("-l 0-1") replaced by `option value`, e.g.
/// {"-l", "1"} for l3fwd or {"--lcores", "0@0,1@1,2@0"} for several workers.
std::vector<std::string> eal_with_lcores(const std::string& option, const std::string& value);

/// The 40,000-route table the engine and the peers forward over.
const std::string& routes_file();

void write_pcap(const std::string& path, const std::vector<std::vector<uint8_t>>& frames);

/// 1024 frames: to random routes of the 40k table (`forward`) or to the sink app.
std::vector<std::vector<uint8_t>> frames(bool forward);

/// net_pcap replay of `pcap` on port "in" -> engine -> net_null port "out".
engine::EngineConfig bench_config(const std::string& pcap, double seconds, bool histograms);

}  // namespace pathscope::bench
