// A trial knows whether it was disturbed: a worker that shares its CPU
// with a spinning thread is flagged, one that has its CPU to itself is not.
// Real engine, real worker lcore, the sample forwarding replay; the test
// runs alone (RUN_SERIAL), since a neighbour test would disturb it too.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>

#include "analysis/trial_conditions.h"
#include "capture/run.h"
#include "capture/scenario.h"
#include "capture/snapshot_rows.h"
#include "engine/eal.h"

using namespace pathscope;

namespace {

capture::Scenario replay(double seconds) {
    capture::Scenario sc = capture::load_scenario(
        std::string(PATHSCOPE_SOURCE_DIR) + "/samples/forward-replay.toml",
        {"engine.duration=" + std::to_string(seconds)});
    return sc;
}

/// Runs one trial; its condition against `limit` (share of the window).
analysis::TrialCondition trial(const capture::Scenario& sc, double limit) {
    const capture::RunResult r = capture::run_engine(sc.engine);
    db::Batch b = capture::trial_rows(0, r);
    b.trials.at(0).max_disturbance = limit;
    return analysis::trial_condition(b.trials.at(0), b.threads);
}

/// A thread spinning on `cpu` while it lives.
class Spinner {
  public:
    explicit Spinner(int cpu) {
        thread_ = std::thread([this, cpu] {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            pthread_setaffinity_np(pthread_self(), sizeof set, &set);
            volatile uint64_t x = 0;
            while (!stop_.load(std::memory_order_relaxed)) x = x + 1;
        });
    }
    ~Spinner() {
        stop_ = true;
        thread_.join();
    }

  private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

class Disturbance : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { engine::eal_init(replay(1).engine.eal_args); }
};

TEST_F(Disturbance, AWorkerSharingItsCpuWithASpinningThreadIsFlagged) {
    const capture::Scenario sc = replay(1.0);
    // The sample's EAL runs its worker on lcore 1, CPU 1.
    const Spinner spinner(1);
    const analysis::TrialCondition c = trial(sc, 0.02);
    ASSERT_TRUE(c.measured);
    EXPECT_TRUE(c.disturbed) << "worker on CPU " << c.worker_on_cpu;
    // The spinner has the same weight: the worker gets about half its window.
    EXPECT_LT(c.worker_on_cpu, 0.8);
    EXPECT_GT(c.involuntary, 10u);
    EXPECT_NE(c.why().find("worker 0 on CPU"), std::string::npos) << c.why();
}

TEST_F(Disturbance, AWorkerWithItsCpuToItselfIsNot) {
    const capture::Scenario sc = replay(1.0);
    // The machine's own housekeeping takes about 1% here (kernel threads on
    // the worker's CPU); the limit of 5% leaves room for it, and a
    // neighbour that took the CPU would still be seen.
    const analysis::TrialCondition c = trial(sc, 0.05);
    ASSERT_TRUE(c.measured);
    EXPECT_FALSE(c.disturbed) << c.why();
    EXPECT_GT(c.worker_on_cpu, 0.95);
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
