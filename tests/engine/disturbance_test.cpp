// A trial knows whether it was disturbed: a worker that shares its CPU
// with a spinning thread is flagged, one that has its CPU to itself is not;
// the stage cycles of a preempted worker leave out the time it lost.
// Real engine, real worker lcore, the sample forwarding replay; the test
// runs alone (RUN_SERIAL), since a neighbour test would disturb it too.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

#include "analysis/figures/trial_conditions.h"
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

/// One trial's condition against a limit, and its busy cycles per received
/// packet over the steady window (all stages).
struct Trial {
    analysis::TrialCondition condition;
    double cycles_per_packet = 0;
};

/// Runs one trial; its condition against `limit` (share of the window).
Trial run_trial(const capture::Scenario& sc, double limit) {
    const capture::RunResult r = capture::run_engine(sc.engine);
    db::Batch b = capture::trial_rows(0, r);
    b.trials.at(0).max_disturbance = limit;
    Trial t;
    t.condition = analysis::trial_condition(b.trials.at(0), b.threads);
    uint64_t busy = 0;
    for (size_t i = 0; i < r.window_end.stages.size(); ++i) {
        const auto& a = r.window_start.stages.at(i);
        const auto& e = r.window_end.stages.at(i);
        busy += (e.cycles - e.idle_cycles) - (a.cycles - a.idle_cycles);
    }
    const uint64_t rx = r.window_end.ledger.received - r.window_start.ledger.received;
    t.cycles_per_packet = rx ? static_cast<double>(busy) / static_cast<double>(rx) : 0;
    return t;
}

analysis::TrialCondition trial(const capture::Scenario& sc, double limit) {
    return run_trial(sc, limit).condition;
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

// The spinner takes the worker's CPU for a time slice (milliseconds) at a
// time, mostly in the middle of a stage's call: the engine counts such a call
// (longer than engine.interrupted_call_us) apart and estimates its cycles, so
// the stage cycles stay what the code costs. Without it they grow by the
// time the worker lost.
//
// The limit here is 5%, not the default 2%: a preemption between two walks
// (the worker's loop outside any timed call) is lost time that no stage
// holds, and under ASan that loop takes a larger share of the worker (a CI
// run saw 50.0% lost, 47.9% in interrupted calls). Half the window lost
// is still far past it, for both trials.
TEST_F(Disturbance, APreemptedWorkersStageCyclesLeaveTheLostTimeOut) {
    constexpr double kLimit = 0.05;
#if defined(__SANITIZE_ADDRESS__)
    constexpr double kRefill = 0.45;
#else
    constexpr double kRefill = 0.25;
#endif
    capture::Scenario sc = replay(1.0);
    const double interrupted_us = sc.engine.interrupted_call_us;
    // One sequence: quiet, kept (the spinner beside it), quiet, raw (the
    // spinner, every call kept), quiet. With the packets' lines no longer
    // evicted stage to stage (engine/mbuf_pool.h), this VM's host moves a
    // quiet trial's cycles between about 130 and 230 a packet from one
    // second to the next (a neighbour on the core's caches, it seems), so
    // each disturbed trial has a quiet one on either side and is judged
    // against their range; and since a phase can still change within one
    // trial (runs saw quiet 198 and 186 around a kept 135, and quiet 132,
    // 139 and 145 around a kept 213), the sequence runs up to three times
    // and the first whose kept trial falls within the band is judged. An
    // engine that kept the lost time in, or took too much out, misses the
    // band every time.
    struct Sequence {
        Trial before, kept, between, raw, after;
        double quiet_low() const {
            return std::min({before.cycles_per_packet, between.cycles_per_packet,
                             after.cycles_per_packet});
        }
        double quiet_high() const {
            return std::max({before.cycles_per_packet, between.cycles_per_packet,
                             after.cycles_per_packet});
        }
        bool kept_in_band(double refill) const {
            return kept.cycles_per_packet > (1 - refill) * quiet_low() &&
                   kept.cycles_per_packet < (1 + refill) * quiet_high();
        }
    };
    const auto run_sequence = [&] {
        Sequence q;
        q.before = run_trial(sc, kLimit);
        {
            const Spinner spinner(1);
            q.kept = run_trial(sc, kLimit);
        }
        q.between = run_trial(sc, kLimit);
        {
            const Spinner spinner(1);
            sc.engine.interrupted_call_us = 0;
            q.raw = run_trial(sc, kLimit);
        }
        sc.engine.interrupted_call_us = interrupted_us;
        q.after = run_trial(sc, kLimit);
        std::printf("cycles a packet: quiet %.0f, %.0f and %.0f, kept %.0f, raw %.0f\n",
                    q.before.cycles_per_packet, q.between.cycles_per_packet,
                    q.after.cycles_per_packet, q.kept.cycles_per_packet, q.raw.cycles_per_packet);
        return q;
    };
    Sequence q = run_sequence();
    for (int again = 0; again < 2 && !q.kept_in_band(kRefill); ++again) q = run_sequence();
    const Trial& kept = q.kept;
    const Trial& raw = q.raw;
    const double quiet_low = q.quiet_low();
    const double quiet_high = q.quiet_high();
    ASSERT_GT(quiet_low, 0);
    const analysis::TrialCondition& c = kept.condition;
    ASSERT_TRUE(c.measured);
    ASSERT_TRUE(c.disturbed) << "worker on CPU " << c.worker_on_cpu;
    std::printf("lost %.1f%% of the window, %.1f%% in %llu interrupted calls\n",
                100 * c.worker_lost(), 100 * c.interrupted,
                static_cast<unsigned long long>(c.interrupted_calls));
    EXPECT_GT(c.interrupted_calls, 10u);
    // The interrupted calls' wall time is about what the worker lost.
    EXPECT_NEAR(c.interrupted, c.worker_lost(), 0.1)
        << c.interrupted_calls << " interrupted calls";
    EXPECT_FALSE(c.cycles_disturbed) << c.why_cycles();
    // What is left is the caches refilled after each of hundreds of
    // switches a second: under ASan, whose shadow memory the worker also
    // refills, a fresh Debian chroot saw 1.32x.
    EXPECT_GT(kept.cycles_per_packet, (1 - kRefill) * quiet_low)
        << kept.cycles_per_packet << " against " << quiet_low << " quiet";
    EXPECT_LT(kept.cycles_per_packet, (1 + kRefill) * quiet_high)
        << kept.cycles_per_packet << " against " << quiet_high << " quiet";
    // Every call kept: the lost time lands in the stages, well past that.
    EXPECT_EQ(raw.condition.interrupted_calls, 0u);
    EXPECT_TRUE(raw.condition.cycles_disturbed);
    EXPECT_GT(raw.cycles_per_packet / quiet_low, 1.4)
        << raw.cycles_per_packet << " against " << quiet_low << " quiet";
    EXPECT_LT(kept.cycles_per_packet, 0.8 * raw.cycles_per_packet)
        << kept.cycles_per_packet << " kept against " << raw.cycles_per_packet << " raw";
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
