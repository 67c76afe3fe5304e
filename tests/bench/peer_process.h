// A peer program (dpdk-testpmd, dpdk-l3fwd) run beside the benchmark: started
// with its stdout and stderr in a log file, watched until it says it is
// forwarding, then stopped with SIGINT so it prints its final counts.
#pragma once

#include <sys/types.h>

#include <regex>
#include <string>
#include <vector>

namespace pathscope::bench {

class PeerProcess {
  public:
    /// Starts argv[0] (looked up on PATH) with `argv` and its output in `log`.
    /// Throws std::runtime_error when it cannot be started.
    PeerProcess(const std::vector<std::string>& argv, std::string log);
    /// Kills (SIGKILL) and reaps the peer if it still runs.
    ~PeerProcess();
    PeerProcess(const PeerProcess&) = delete;
    PeerProcess& operator=(const PeerProcess&) = delete;

    /// Waits until a line of the log matches `ready`. Throws
    /// std::runtime_error naming `what`, the reason and the log when the peer
    /// exits first or `timeout_s` passes.
    void wait_for(const std::regex& ready, double timeout_s, const std::string& what);
    /// SIGINT, then up to `timeout_s` for it to exit (SIGKILL after that).
    /// Returns its exit status as the shell shows it (128 + signal if killed).
    int stop(double timeout_s);
    /// The log as written so far.
    std::string output() const;
    const std::string& log() const { return log_; }

  private:
    bool exited(int* status);  ///< reaps the peer if it has exited
    pid_t pid_ = -1;
    std::string log_;
};

}  // namespace pathscope::bench
