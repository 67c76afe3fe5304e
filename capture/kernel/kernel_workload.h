// The traffic of a kernel run: threads of this process, each pinned to its
// CPU and living in its namespace, that use the kernel's own UDP sockets:
// a sendmmsg sender ([source], [socket]), a recvmmsg sink, and a
// request/response client and server (connected sockets, one a stream).
// They count what the kernel told them (datagrams accepted or refused by
// errno, datagrams read, transactions); the control thread reads the counts
// as relaxed atomics while they run.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "capture/disturbance.h"
#include "capture/kernel/kernel_config.h"
#include "capture/kernel/netns.h"
#include "common/histogram.h"
#include "engine/config.h"

namespace pathscope::capture {

/// errno values a send can be refused with that are counted apart (the rest share one slot).
inline constexpr int kErrnoSlots = 160;

/// What the workload's threads counted, at one moment.
struct WorkloadCounts {
    uint64_t sends = 0;     ///< datagrams offered to sendmmsg: accepted + refused
    uint64_t accepted = 0;  ///< ... that the kernel took
    std::array<uint64_t, kErrnoSlots> refused{};  ///< by errno
    uint64_t received = 0;  ///< datagrams the sink (or rr server) read
    uint64_t transactions = 0, timeouts = 0;  ///< request/response
};

class KernelWorkload {
  public:
    /// Starts the threads of `cfg.path` in `net`'s namespaces; each opens its
    /// sockets and waits. Throws std::runtime_error (socket, bind, connect,
    /// a CPU that cannot be had) naming the thread and the call.
    KernelWorkload(const KernelConfig& cfg, const engine::EngineConfig& engine,
                   const KernelNetwork& net);
    ~KernelWorkload();
    KernelWorkload(const KernelWorkload&) = delete;
    KernelWorkload& operator=(const KernelWorkload&) = delete;

    /// Lets the threads send (they are ready: their sockets are open).
    void go();
    /// Stops and joins the threads.
    void stop();
    WorkloadCounts counts() const;
    /// The threads, for the trial's disturbance rows: a sender that never
    /// waits is the run's worker; a sink or a request/response thread waits
    /// by design.
    std::vector<WatchedThread> threads() const;
    /// Request/response round trips in TSC cycles (after stop()).
    const analysis::Histogram& rr_latency() const { return rr_latency_; }

  private:
    struct Shared;
    /// Each loop opens its sockets, calls `ready`, waits for go() and runs until stop().
    /// `stop` is the thread's own flag: stop() raises them in reverse
    /// order, so that the receiving side reads until the sender is gone.
    using Loop = void (KernelWorkload::*)(const std::function<void()>& ready,
                                          const std::atomic<bool>& stop);
    void launch(const char* role, int cpu, const NetSide& side, Loop body);
    bool wait_for_go(const std::atomic<bool>& stop) const;
    void sender_loop(const std::function<void()>& ready, const std::atomic<bool>& stop);
    void sink_loop(const std::function<void()>& ready, const std::atomic<bool>& stop);
    void rr_client_loop(const std::function<void()>& ready, const std::atomic<bool>& stop);
    void rr_server_loop(const std::function<void()>& ready, const std::atomic<bool>& stop);

    const KernelConfig& cfg_;
    const engine::EngineConfig& engine_;
    const KernelNetwork& net_;
    std::unique_ptr<Shared> shared_;
    std::vector<std::thread> threads_;
    std::vector<WatchedThread> watched_;
    analysis::Histogram rr_latency_;
};

/// Pins the calling thread to `cpu` (-1: leaves it). Throws naming the CPU.
void pin_thread(int cpu);

}  // namespace pathscope::capture
