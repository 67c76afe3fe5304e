// What in a scenario runs code or writes files, and whether the command line
// allowed it. A scenario is input that people pass around; a shared object
// it names (a [[stage]] plugin, an EAL -d driver) runs with the user's
// rights, and a device's tx_pcap= writes any file the user may write. Such
// things run only when the user said so on the command line.
#pragma once

#include "capture/scenario.h"

namespace pathscope::capture {

struct CodePermissions {
    bool plugins = false;      ///< --allow-plugins: the scenario's [[stage]] plugins
    bool eal_drivers = false;  ///< --allow-eal-drivers: [eal] args -d (DPDK loads the shared object)
    bool file_writes = false;  ///< --allow-file-writes: tx_pcap= devices, EAL --trace/--trace-dir
};

/// Throws ScenarioError for the first thing in `sc` that needs a permission
/// `allowed` lacks, saying what it is, where, and the option that allows it.
/// Stages given with run --stage need none: the command line named them.
void check_permissions(const Scenario& sc, const CodePermissions& allowed);

}  // namespace pathscope::capture
