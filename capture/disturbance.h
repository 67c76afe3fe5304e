// What the machine gave a trial's polling threads over its steady window:
// each thread's CPU time (its thread CPU clock: exact, read while it runs),
// its run-queue wait and context switches (/proc/self/task/TID), and what
// the hypervisor stole and other processes used (/proc/stat, 10 ms ticks).
// A polling thread is on its CPU the whole window unless something else
// takes it, so the CPU time it lacks is what the machine took from it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "db/records.h"

namespace pathscope::capture {

/// One thread to watch: its role (db::kWorkerThread, ...), index and tid.
struct WatchedThread {
    std::string role;
    int index = 0;
    int tid = 0;
};

/// A thread's counters at one moment.
struct ThreadClock {
    bool ok = false;  ///< false: the thread was gone or /proc unreadable
    uint64_t cpu_ns = 0, wait_ns = 0, involuntary = 0, voluntary = 0;
    int cpu = -1;
};
ThreadClock read_thread_clock(int tid);

/// The machine's counters at one moment (/proc/stat, every CPU).
struct MachineClock {
    uint64_t busy_ns = 0;   ///< user, nice, system, irq and softirq time of every CPU
    uint64_t steal_ns = 0;  ///< time the hypervisor ran something else on them
    uint64_t own_ns = 0;    ///< this process's CPU time (exact)
};
MachineClock read_machine_clock();

/// Reads the watched threads and the machine at the window's start and
/// end; gives a trial's rows.
class DisturbanceProbe {
  public:
    explicit DisturbanceProbe(std::vector<WatchedThread> threads);
    void start();
    void stop();
    /// Each thread's deltas over the window (threads that could not be read
    /// are left out).
    std::vector<db::ThreadRow> threads(int trial) const;
    /// Fills the trial's window, steal and others' CPU time.
    void fill(db::TrialRow& t) const;

  private:
    std::vector<WatchedThread> watched_;
    std::vector<ThreadClock> begin_, end_;
    MachineClock machine_begin_, machine_end_;
    std::chrono::steady_clock::time_point t0_, t1_;
    bool started_ = false, stopped_ = false;
};

}  // namespace pathscope::capture
