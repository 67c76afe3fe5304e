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

/// `args` set to use reserved hugepages: --no-huge dropped, --in-memory
/// added (hugetlbfs memory that leaves no files behind). -m stays: the
/// megabytes of hugepages taken at start.
std::vector<std::string> with_hugepages(std::vector<std::string> args);

/// Why EAL arguments without --no-huge cannot start here ("" when they can):
/// no hugepages reserved (any size), or no hugetlbfs mounted when the EAL is
/// not `in_memory` (--in-memory takes its pages from memfd), with the
/// commands that fix it. eal_init checks it first.
std::string hugepage_problem(bool in_memory);

}  // namespace pathscope::engine
