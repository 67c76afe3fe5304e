// Scenario files: TOML (read with toml++) describing EAL arguments, ports and
// queues, addresses, next hops and routes, applications and the workload.
// Unknown keys and wrong types are errors naming the file, line and key.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "capture/kernel/kernel_config.h"
#include "engine/config.h"

namespace pathscope::capture {

/// How a capture run records: the [capture] table.
struct CaptureSettings {
    unsigned trials = 1;      ///< repetitions, each on a fresh engine (auto: at most max_trials)
    /// trials = "auto": an experiment adds blocks of trials until its
    /// verdicts are decided (capture/sequential.h), at most max_trials.
    bool auto_trials = false;
    unsigned max_trials = 20;
    /// auto: a verdict is decided when its interval excludes 0 or is at most
    /// this wide on either side (% of the baseline mean).
    double target_half_width = 1.0;
    double interval_s = 0.1;  ///< snapshot interval
    /// Counted per trial on the worker thread; what the PMU lacks is recorded
    /// as unsupported, never an error.
    std::vector<std::string> perf_events{
        "perf::task-clock",   "perf::context-switches", "perf::page-faults",  "perf::cycles",
        "perf::instructions", "perf::cache-misses",     "perf::branch-misses"};
    std::string sample_event = "perf::cpu-clock";  ///< sampled with call chains
    uint32_t sample_hz = 199;                      ///< 0: no sampling
    uint32_t traces_per_s = 50;                    ///< packet traces per second; 0: none
    /// A trial whose worker lost more than this share of its steady window
    /// (to other threads, processes or the hypervisor) is disturbed, and a
    /// verdict that rests on it unreliable; 1 (100%): never.
    double max_disturbance = 0.02;
    /// Re-runs of a disturbed trial, so that a run rests on clean trials;
    /// the trial it replaces is kept, marked replaced.
    unsigned retry_disturbed = 0;
};

/// One [matrix] setting and the values its cells take (TOML text, as --set takes it).
struct MatrixAxis {
    std::string key;
    std::vector<std::string> values;
};

/// One cell of a matrix: a value for every axis, as "key=value" --set settings.
using MatrixCell = std::vector<std::string>;

/// What a scenario runs on: the embedded engine (the default), or the
/// running Linux kernel's own IPv6/UDP path ([target] kind = "linux").
enum class Target { engine, kernel };

struct Scenario {
    Target target = Target::engine;
    /// The engine's settings; a Linux run takes its duration, [source],
    /// [socket], [[route]] and [[rule]] from here.
    engine::EngineConfig engine;
    KernelConfig kernel;  ///< target = kernel: the [linux] table
    CaptureSettings capture;
    std::vector<MatrixAxis> matrix;  ///< empty: a single run
    std::string text;                    ///< the file as written (before --set)
    std::vector<std::string> overrides;  ///< the --set KEY=VALUE list applied
};

class ScenarioError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// Reads `path`; relative file names inside it are taken relative to the
/// scenario's own folder. `overrides` are "dotted.key=value" settings applied
/// over the file (`--set`): the value is TOML (64, 1.5, true, "text", [..])
/// or else a bare string; an array of tables is indexed by position or by
/// its name (port.uplink.rx_queues=2). Throws ScenarioError.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

/// The one range check of a numeric setting, whether it comes from the file,
/// from --set or from one of run's own options (--duration, --trials): ""
/// when `value` is in range (finite), else "'engine.duration' must be between
/// 0.01 and 86400 seconds, not inf". Keys of [[port]], [[nexthop]], [[route]]
/// and [[app]] are named by their table: "port.rx_queues". Throws
/// std::logic_error for a key that is not a numeric setting.
std::string check_setting(const std::string& key, double value);

/// The engine's variant switches as stored with a run and shown in its
/// header: "route_cache=on socket_send=single ifaddr_sync=rcu txq_hash=flow
/// send_accounting=local".
std::string describe_variants(const engine::EngineConfig& cfg);

/// A Linux run's settings as stored with it and shown in its header:
/// "path=send socket.bind=false socket.connect=true payload=16 flows=1
/// rules=1 sysctl.net.ipv4.udp_early_demux=1".
std::string describe_kernel_variants(const Scenario& sc);

/// Every combination of the matrix's values, the first axis varying slowest.
std::vector<MatrixCell> matrix_cells(const Scenario& scenario);

/// "engine.route_cache=on socket.bind=false": a cell as people read it
/// (strings without their quotes), joined by `sep`.
std::string describe_cell(const MatrixCell& cell, const std::string& sep = " ");

/// Same, from text (for tests); `name` is used in messages, `base_dir` for relative paths.
Scenario parse_scenario(const std::string& text, const std::string& name,
                        const std::string& base_dir,
                        const std::vector<std::string>& overrides = {});

}  // namespace pathscope::capture
