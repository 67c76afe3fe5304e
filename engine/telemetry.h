// Live statistics on DPDK's telemetry socket, where DPDK users look for them
// (dpdk-telemetry.py, telegraf's dpdk input): /pathscope/stages,
// /pathscope/queues, /pathscope/ledger and /pathscope/workers, in the JSON
// that DPDK's telemetry library writes. The commands run on DPDK's telemetry
// thread and read the engine through Engine::snapshot(false), which only
// loads counters; a TelemetrySource says which engine they read.
#pragma once

#include <string>

namespace pathscope::engine {

class Engine;

/// While one lives, the /pathscope/ commands answer from `engine`; before the
/// first and after the last they answer {"error": "no pathscope engine is
/// running ..."}. Registers the commands the first time (once per process;
/// the EAL need not be up yet). The destructor waits for a command that is
/// reading the engine to finish, so the engine may be destroyed after it.
/// One at a time: a second replaces the first until it ends.
class TelemetrySource {
  public:
    explicit TelemetrySource(const Engine& engine);
    ~TelemetrySource();
    TelemetrySource(const TelemetrySource&) = delete;
    TelemetrySource& operator=(const TelemetrySource&) = delete;

  private:
    const Engine* previous_;
};

/// This process's telemetry socket (DPDK adds ":1", ":2" to the name when
/// another process of the same --file-prefix holds it), found by asking each
/// candidate socket for its pid; "" when the EAL is not up or runs with
/// --no-telemetry. Registers the commands too (once per process), so that
/// they are listed as soon as someone is told where to look.
std::string telemetry_socket_path();

/// How to read it: "dpdk-telemetry.py -f rte -i 1" for `socket_path`.
std::string telemetry_client_command(const std::string& socket_path);

}  // namespace pathscope::engine
