// A trial's condition from its stored rows: the workers' least share of the
// window on their CPUs against capture.max_disturbance.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/figures/trial_conditions.h"

namespace pathscope::analysis {
namespace {

db::TrialRow trial(int n, uint64_t window_ns, double max_disturbance) {
    db::TrialRow t;
    t.trial = n;
    t.window_ns = window_ns;
    t.max_disturbance = max_disturbance;
    t.steal_ns = window_ns / 10;
    t.others_ns = window_ns;
    return t;
}

db::ThreadRow thread(int n, const char* role, int index, uint64_t cpu_ns, uint64_t forced = 0) {
    db::ThreadRow r;
    r.trial = n;
    r.role = role;
    r.index = index;
    r.cpu_ns = cpu_ns;
    r.involuntary = forced;
    return r;
}

TEST(TrialConditions, TheLeastOnCpuWorkerDecides) {
    const std::vector<db::ThreadRow> threads = {
        thread(0, db::kWorkerThread, 0, 995'000'000),
        thread(0, db::kWorkerThread, 1, 210'000'000, 146),
        thread(0, db::kGeneratorThread, 0, 500'000'000),
    };
    const TrialCondition c = trial_condition(trial(0, 1'000'000'000, 0.02), threads);
    ASSERT_TRUE(c.measured);
    EXPECT_TRUE(c.disturbed);
    EXPECT_EQ(c.worker, 1);
    EXPECT_NEAR(c.worker_on_cpu, 0.21, 1e-12);
    EXPECT_NEAR(c.client_on_cpu, 0.5, 1e-12);
    EXPECT_NEAR(c.steal_cpus, 0.1, 1e-12);
    EXPECT_NEAR(c.others_cpus, 1.0, 1e-12);
    EXPECT_EQ(c.why(), "worker 1 on CPU 21.0% of the window (146 forced switches)");
}

TEST(TrialConditions, WithinTheLimitIsClean) {
    const TrialCondition c = trial_condition(trial(0, 1'000'000'000, 0.02),
                                             {thread(0, db::kWorkerThread, 0, 985'000'000)});
    EXPECT_FALSE(c.disturbed);
    EXPECT_EQ(c.why(), "");
    // The same loss with a limit of 1% is a disturbance.
    EXPECT_TRUE(trial_condition(trial(0, 1'000'000'000, 0.01),
                                {thread(0, db::kWorkerThread, 0, 985'000'000)})
                    .disturbed);
}

TEST(TrialConditions, InterruptedCallsKeepTheStageCyclesClean) {
    // The worker lost 8% of its window, 7% of it inside calls the engine
    // left out of its stage cycles: rates are disturbed, stage cycles not.
    db::ThreadRow w = thread(0, db::kWorkerThread, 0, 920'000'000, 40);
    w.interrupted_calls = 35;
    w.interrupted_ns = 70'000'000;
    const TrialCondition c = trial_condition(trial(0, 1'000'000'000, 0.02), {w});
    EXPECT_TRUE(c.disturbed);
    EXPECT_FALSE(c.cycles_disturbed);
    EXPECT_NEAR(c.interrupted, 0.07, 1e-12);
    EXPECT_EQ(c.why_cycles(), "");
    // Only 5% of it inside them: 3% beyond the limit of 2% is left.
    w.interrupted_ns = 50'000'000;
    const TrialCondition d = trial_condition(trial(0, 1'000'000'000, 0.02), {w});
    EXPECT_TRUE(d.cycles_disturbed);
    EXPECT_EQ(d.why_cycles(),
              "worker 0 on CPU 92.0% of the window (40 forced switches; 5.0% in 35 interrupted "
              "calls, left out)");
}

TEST(TrialConditions, ARunStoredBeforeTheMeasureIsNotJudged) {
    db::TrialRow old;
    old.trial = 2;
    const TrialCondition c = trial_condition(old, {});
    EXPECT_FALSE(c.measured);
    EXPECT_FALSE(c.disturbed);
    EXPECT_TRUE(std::isnan(c.worker_lost()));
    EXPECT_EQ(c.block, 2);  // no block stored: its own number
    EXPECT_EQ(c.on_cpu_text(), "-");
}

// A request/response run on the kernel has a server and a client, no worker:
// not judged, and said so, never "a run stored before".
TEST(TrialConditions, ARunWithoutAWorkerIsNotJudgedAndSaysWhy) {
    db::RunData run;
    run.rows.trials.push_back(trial(0, 1'000'000'000, 0.02));
    run.rows.threads = {thread(0, db::kRrServerThread, 0, 300'000'000),
                        thread(0, db::kKernelRrClientThread, 0, 400'000'000)};
    const auto conditions = trial_conditions(run);
    ASSERT_EQ(conditions.size(), 1u);
    EXPECT_FALSE(conditions[0].measured);
    EXPECT_TRUE(conditions[0].without_worker);
    const std::string line = disturbance_line(summarize_disturbance(conditions));
    EXPECT_EQ(line.rfind("disturbance: not judged (no thread of this run is a worker", 0), 0u) << line;
}

TEST(TrialConditions, TheSummaryCountsReplacedTrialsApart) {
    db::RunData run;
    for (int n = 0; n < 3; ++n) run.rows.trials.push_back(trial(n, 1'000'000'000, 0.02));
    run.rows.trials[1].replaced = true;
    run.rows.threads = {thread(0, db::kWorkerThread, 0, 999'000'000),
                        thread(1, db::kWorkerThread, 0, 500'000'000),
                        thread(2, db::kWorkerThread, 0, 970'000'000)};
    const DisturbanceSummary d = summarize_disturbance(trial_conditions(run));
    EXPECT_EQ(d.trials, 2u);
    EXPECT_EQ(d.replaced, 1u);
    EXPECT_EQ(d.disturbed, 1u);  // trial 2: 3% lost
    EXPECT_NEAR(d.least_on_cpu, 0.97, 1e-12);
}

}  // namespace
}  // namespace pathscope::analysis
