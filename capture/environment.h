// What a run ran on, as pyperf records it: the kernel, the CPUs and their
// clock (TSC rate, whether it is invariant, the frequency governor, SMT,
// isolated CPUs), hugepages, DPDK's version and SIMD width, and the load
// average when the run started and ended. Stored as the run's "env.*"
// facts; reports print them in their Environment section, and compare warns
// when two runs differ in any but the load.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pathscope::capture {

using Facts = std::vector<std::pair<std::string, std::string>>;

/// The machine's facts at the run's start: `tsc_hz` as the run measured it,
/// and for an engine run (`engine`) its memory (`hugepages`: the EAL
/// arguments use reserved hugepages) and DPDK's version.
Facts environment_facts(uint64_t tsc_hz, bool engine, bool hugepages);
/// The DPDK SIMD width the engine runs with (after an Engine was made).
std::pair<std::string, std::string> simd_fact();
/// "env.load_end" and the load average now.
std::pair<std::string, std::string> load_fact(const char* key);

}  // namespace pathscope::capture
