// The run driver: prepares the workload, builds the engine, runs it on its
// worker lcore for the scenario's duration and returns what it counted.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "engine/config.h"
#include "engine/engine.h"
#include "workload/generator.h"
#include "engine/snapshot.h"
#include "db/records.h"

namespace pathscope::capture {

struct RunResult {
    engine::EngineSnapshot snapshot;  ///< final totals, after the worker drained
    /// Steady-state window for rates: taken once the run is warm (20% in) and
    /// just before the workload stops.
    engine::EngineSnapshot window_start, window_end;
    double seconds = 0;            ///< measured wall time the worker ran
    /// Packets the built-in generator (or the rr workload's peers: requests) produced.
    uint64_t generated = 0;
    /// Packets the engine sent back to the generator's port (rr: responses and others).
    uint64_t returned = 0;
    /// The generator's packets by kind (good ones by destination, malformed
    /// ones by malformation); all 0 for other workloads.
    engine::GeneratedMix mix;
    int stop_signal = 0;           ///< SIGINT or SIGTERM that stopped it early, or 0
    /// What the machine gave the polling threads over the steady window
    /// (trial 0's rows: the recorder numbers them), and the window's wall
    /// time, steal and other processes' CPU time (in `conditions`).
    std::vector<db::ThreadRow> threads;
    db::TrialRow conditions;
};

/// While one lives, SIGINT (Ctrl-C) and SIGTERM (timeout, systemd, CI
/// runners) ask the run to stop instead of killing the process, so that its
/// summary is printed and what it recorded is kept. Guards nest: the
/// outermost one installs the handlers (clearing an earlier stop) and puts
/// the old ones back; a recorder holds one across all its trials, so a stop
/// between two trials (or during a trial's setup) is not lost.
class StopSignals {
  public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    /// The signal that asked to stop, or 0; kept after the guards are gone,
    /// until the next outermost guard.
    static int received();
};

/// How a stop is named in notes and printouts: "Ctrl-C", "SIGTERM".
std::string stop_name(int signal);

/// Turns a pcap workload into its port's net_pcap device (checking the file
/// first). Throws std::runtime_error on a capture that cannot be replayed.
void prepare_workload(engine::EngineConfig& cfg);

/// What a caller can do while a run goes on; every hook runs on the control thread.
struct RunHooks {
    double interval_s = 0.1;
    /// After the engine and the workload are set up, before the worker
    /// starts: what throws here ends the run before it began.
    std::function<void(engine::Engine&)> prepared;
    /// After the worker started (attach perf_event to engine.worker_tid() here).
    std::function<void(engine::Engine&)> started;
    /// Every interval with the seconds since start and a fresh snapshot;
    /// returning false ends the run early. The last one comes after the
    /// worker stopped, with the final counters: the packets taken after the
    /// last tick are in it, so that a trial's intervals sum to its totals.
    std::function<bool(double, const engine::EngineSnapshot&)> interval;
    /// After the worker stopped, before the engine is torn down.
    std::function<void(engine::Engine&)> stopped;
};

/// Runs `cfg` (EAL initialised from cfg.eal_args if it is not yet) for its
/// duration, or until Ctrl-C, SIGTERM or a hook says stop. Setting up the
/// engine throws std::runtime_error with the device's or the pool's reason.
RunResult run_engine(engine::EngineConfig cfg, const RunHooks& hooks = {});

}  // namespace pathscope::capture
