// perf_event through libpfm4 on a real thread: counting software events,
// recording what the PMU lacks, and sampling with call chains that elfutils
// symbolizes. Skips with the reason where perf_event_open is denied.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <thread>

#include "capture/perf_events.h"
#include "capture/symbolize.h"
#include "capture/profile_text.h"
#include "capture/symbol_names.h"
#include "tests/support/setup_skip.h"
#include "tests/support/temp_dir.h"

using namespace pathscope::capture;

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_tid{0};

// Named so the test can find it in the sampled stacks.
__attribute__((noinline)) uint64_t spin_for_the_sampler(uint64_t n) {
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < n; ++i) x = x + i * 7;
    return x;
}

__attribute__((noinline)) void busy_thread() {
    g_tid = static_cast<int>(gettid());
    while (!g_stop) spin_for_the_sampler(100000);
}

/// Skips the test when this machine refuses perf_event_open for software events.
void require_perf() {
    const std::string probe = probe_pmu({"perf::task-clock"});
    if (probe.find("perf::task-clock: supported") == std::string::npos)
        GTEST_SKIP() << "perf_event_open is not available here: " << probe;
}

class Busy {
  public:
    Busy() : t_(busy_thread) {
        while (g_tid == 0) std::this_thread::yield();
    }
    ~Busy() {
        g_stop = true;
        t_.join();
        g_stop = false;
        g_tid = 0;
    }
    int tid() const { return g_tid; }

  private:
    std::thread t_;
};

// An imported `perf script` profile gives every function the self share
// `perf report --no-children` gives it, on the same recording of a real
// program (pathscope writing a large route table).
TEST(PerfImport, SelfSharesMatchPerfReport) {
    if (system("command -v perf >/dev/null 2>&1") != 0)
        PATHSCOPE_SKIP_UNLESS_SETUP("perf is not installed (scripts/setup.sh installs linux-perf)");
    const pathscope::test::TempDir dir("perfimport");
    const std::string data = dir.file("p.data"), script = dir.file("p.txt");
    const std::string record = "perf record -q -g -F 499 -o " + data + " -- " PATHSCOPE_CLI
                               " routes --count 1500000 -o /dev/null >/dev/null 2>&1";
    if (system(record.c_str()) != 0)
        GTEST_SKIP() << "perf record cannot sample here (perf_event_paranoid?)";
    ASSERT_EQ(system(("perf script -i " + data + " > " + script + " 2>/dev/null").c_str()), 0);
    std::ifstream in(script);
    const pathscope::analysis::FlameTree tree = parse_perf_script(in, script);
    std::map<std::string, double> self;  // leaf frame -> samples
    double total = 0;
    for (size_t i = 1; i < tree.size(); ++i) {
        self[tree.name(i)] += tree.self(i);
        total += tree.self(i);
    }
    ASSERT_GT(total, 50);
    FILE* report = popen(("perf report -i " + data +
                          " --stdio --no-children --sort sym -q 2>/dev/null")
                             .c_str(),
                         "r");
    ASSERT_NE(report, nullptr);
    const std::regex row(R"(^\s+([0-9.]+)%\s+\[[.k]\]\s+(.+?)\s*$)");
    char line[8192];
    // pathscope names a function without its parameter list, so overloads
    // (perf report's separate rows) add up under one name: compare sums.
    std::map<std::string, double> reported;
    std::map<std::string, int> rows;
    while (fgets(line, sizeof line, report)) {
        std::cmatch m;
        if (!std::regex_match(line, m, row)) continue;
        const std::string name = compact_symbol(m[2].str());
        reported[name] += std::stod(m[1].str());
        ++rows[name];
    }
    pclose(report);
    unsigned checked = 0;
    for (const auto& [name, share] : reported) {
        if (share < 1.0) continue;
        // perf report rounds each row to 0.01%.
        EXPECT_NEAR(100 * self[name] / total, share, 0.01 * rows[name] + 0.05) << name;
        ++checked;
    }
    EXPECT_GE(checked, 3u);
}

}  // namespace

TEST(Perf, ProbeNamesEveryEventAndThePmus) {
    const std::string probe = probe_pmu({"perf::task-clock", "perf::cycles", "no::such-event"});
    EXPECT_NE(probe.find("pmus: "), std::string::npos) << probe;
    EXPECT_NE(probe.find("perf::cycles: "), std::string::npos) << probe;
    EXPECT_NE(probe.find("no::such-event: unsupported (libpfm4: "), std::string::npos) << probe;
}

TEST(Perf, CountsSoftwareEventsOnAnotherThread) {
    require_perf();
    Busy busy;
    PerfCounters counters(
        {"perf::task-clock", "perf::context-switches", "perf::cycles", "not-an-event"}, busy.tid());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto rows = counters.read(3);
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].event, "perf::task-clock");
    EXPECT_TRUE(rows[0].supported);
    EXPECT_EQ(rows[0].trial, 3);
    // The busy thread ran most of 200 ms: task-clock counts nanoseconds on CPU.
    EXPECT_GT(rows[0].value, 50'000'000u);
    EXPECT_LT(rows[0].value, 2'000'000'000u);
    // Hardware cycles: counted where the PMU has them, else a reason, never a failure.
    if (!rows[2].supported)
        EXPECT_FALSE(rows[2].note.empty());
    else
        EXPECT_GT(rows[2].value, 0u);
    EXPECT_FALSE(rows[3].supported);
    EXPECT_NE(rows[3].note.find("libpfm4"), std::string::npos) << rows[3].note;
}

TEST(Perf, SamplesCallChainsAndSymbolizesThem) {
    require_perf();
    Busy busy;
    PerfSampler sampler("perf::cpu-clock", 1000, busy.tid());
    ASSERT_TRUE(sampler.ok()) << sampler.note();
    for (int i = 0; i < 6; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        sampler.drain();
    }
    EXPECT_GT(sampler.samples(), 100u);
    Symbolizer sym;
    const auto rows = sym.stacks(0, sampler.event(), sampler.stacks());
    ASSERT_FALSE(rows.empty());
    uint64_t in_spin = 0, total = 0, with_caller = 0;
    for (const auto& r : rows) {
        total += r.weight;
        EXPECT_EQ(r.event, "perf::cpu-clock");
        for (size_t i = 0; i < r.frames.size(); ++i)
            if (r.frames[i].symbol.find("spin_for_the_sampler") != std::string::npos) {
                in_spin += r.weight;
                // The caller is there too: frame pointers walk out of the leaf.
                if (i > 0 && r.frames[i - 1].symbol.find("busy_thread") != std::string::npos)
                    with_caller += r.weight;
                EXPECT_EQ(r.frames[i].module, "perf_test");
            }
    }
    EXPECT_EQ(total, sampler.samples());
    EXPECT_GT(in_spin, total * 8 / 10) << "most samples land in the spinning function";
    EXPECT_GT(with_caller, in_spin / 2) << "call chains reach the caller";
}
