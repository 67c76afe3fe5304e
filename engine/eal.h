// DPDK's EAL can be initialised once per process: this wrapper does it once,
// with defaults that work without hugepages or PCI, and passes real EAL
// arguments through unchanged.
#pragma once

#include <string>
#include <vector>

namespace pathscope::engine {

/// Initialises the EAL with `args` (not including argv[0]) the first time it
/// is called; later calls return the outcome of the first. Throws
/// std::runtime_error with DPDK's reason on failure.
void eal_init(const std::vector<std::string>& args);

bool eal_ready();

}  // namespace pathscope::engine
