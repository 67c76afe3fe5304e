// The run driver: prepares the workload, builds the engine, runs it on its
// worker lcore for the scenario's duration and returns what it counted.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "engine/config.h"
#include "engine/snapshot.h"

namespace pathscope::capture {

struct RunResult {
    engine::EngineSnapshot snapshot;  ///< final totals, after the worker drained
    /// Steady-state window for rates: taken once the run is warm (20% in) and
    /// just before the workload stops.
    engine::EngineSnapshot window_start, window_end;
    double seconds = 0;        ///< measured wall time the worker ran
    uint64_t generated = 0;    ///< packets the built-in generator produced
    uint64_t returned = 0;     ///< packets the engine sent back to the generator's port
    bool interrupted = false;  ///< stopped early by Ctrl-C
};

/// Turns a pcap workload into its port's net_pcap device (checking the file
/// first). Throws std::runtime_error on a capture that cannot be replayed.
void prepare_workload(engine::EngineConfig& cfg);

/// Runs `cfg` (EAL initialised from cfg.eal_args if it is not yet). `progress`
/// is called about every 100 ms with the elapsed seconds and a snapshot.
RunResult run_engine(
    engine::EngineConfig cfg,
    const std::function<void(double, const engine::EngineSnapshot&)>& progress = {});

}  // namespace pathscope::capture
