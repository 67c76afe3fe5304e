// perf_event through libpfm4 on a real thread: counting software events,
// recording what the PMU lacks, and sampling with call chains that elfutils
// symbolizes. Skips with the reason where perf_event_open is denied.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "capture/perf_events.h"
#include "capture/symbolize.h"
#include "capture/profile_text.h"
#include "capture/symbol_names.h"
#include "db/records.h"
#include "tests/support/setup_skip.h"
#include "tests/support/temp_dir.h"

using namespace pathscope::capture;

// Runs a require_*() helper and ends the test when it skipped or failed: a
// GTEST_SKIP inside a helper returns from the helper only.
#define REQUIRE(helper)                                                                  \
    do {                                                                                 \
        helper();                                                                        \
        if (::testing::Test::IsSkipped() || ::testing::Test::HasFatalFailure()) return;  \
    } while (0)

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
/// A skip in a helper only leaves the helper: callers go through REQUIRE.
void require_perf() {
    const std::string probe = probe_pmu({"perf::task-clock"});
    if (probe.find("perf::task-clock: supported") == std::string::npos)
        PATHSCOPE_SKIP("perf_event_open is not available here: " << probe);
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

// A root for `perf --symfs` that mirrors / without /usr/lib/debug: perf then
// finds every binary but none of the detached debug info (libc6-dbg), as on
// a machine without it, whatever is installed here.
std::string symfs_without_debug_info(const pathscope::test::TempDir& dir) {
    namespace fs = std::filesystem;
    const fs::path root = dir.path() / "symfs";
    // Each folder on the way to /usr/lib/debug is made, the rest linked.
    const std::vector<fs::path> made = {"/", "/usr", "/usr/lib"};
    for (const fs::path& folder : made) {
        fs::create_directories(root / folder.relative_path());
        for (const auto& e : fs::directory_iterator(folder)) {
            const fs::path p = e.path();
            if (p == "/usr/lib/debug" || std::find(made.begin(), made.end(), p) != made.end())
                continue;
            fs::create_symlink(p, root / p.relative_path());
        }
    }
    return root.string();
}

struct SharesChecked {
    unsigned functions = 0;  ///< perf report rows (summed by name) of 1% or more
    unsigned modules = 0;    ///< of which modules of frames perf left as addresses
};

// Records `pathscope routes` (its hot spot is glibc's memcmp, whose IFUNC
// variants are local symbols found only in libc6-dbg's debug info) and
// checks the importer's self share of every function against `perf report
// --no-children`. `perf_env` prefixes the perf script and report commands.
SharesChecked check_self_shares(const pathscope::test::TempDir& dir, const std::string& perf_env,
                                const std::string& perf_options) {
    const std::string data = dir.file("p.data"), script = dir.file("p.txt");
    const std::string record = "perf record -q -N -g -F 499 -o " + data + " -- " PATHSCOPE_CLI
                               " routes --count 1500000 -o /dev/null >/dev/null 2>&1";
    if (system(record.c_str()) != 0) {
        ADD_FAILURE() << "perf record cannot sample here (perf_event_paranoid?)";
        return {};
    }
    const std::string perf = perf_env + " perf ";
    EXPECT_EQ(system((perf + "script -i " + data + perf_options + " > " + script +
                      " 2>/dev/null")
                         .c_str()),
              0);
    std::ifstream in(script);
    const pathscope::analysis::FlameTree tree = parse_perf_script(in, script);
    std::map<std::string, double> self;  // leaf frame -> samples
    double total = 0;
    for (size_t i = 1; i < tree.size(); ++i) {
        self[tree.name(i)] += tree.self(i);
        total += tree.self(i);
    }
    EXPECT_GT(total, 50);
    FILE* report = popen((perf + "report -i " + data + perf_options +
                          " --stdio --no-children --sort dso,sym -q -g none 2>/dev/null")
                             .c_str(),
                         "r");
    if (!report) {
        ADD_FAILURE() << "cannot run perf report";
        return {};
    }
    const std::regex row(R"(^\s+([0-9.]+)%\s+(\S+)\s+\[[.k]\]\s+(.+?)\s*$)");
    char line[8192];
    // pathscope names a function without its parameter list, so overloads
    // (perf report's separate rows) add up under one name; and a frame perf
    // left unresolved under its module, where perf report has a row per
    // address ("0x0000000000152619"): compare sums.
    std::map<std::string, double> reported;
    std::map<std::string, int> rows;
    std::set<std::string> unresolved;
    while (fgets(line, sizeof line, report)) {
        std::cmatch m;
        if (!std::regex_match(line, m, row)) continue;
        const std::string sym = m[3].str();
        const bool address = sym.rfind("0x", 0) == 0;
        const std::string name = address ? module_frame(m[2].str()) : compact_symbol(sym);
        if (address) unresolved.insert(name);
        reported[name] += std::stod(m[1].str());
        ++rows[name];
    }
    pclose(report);
    SharesChecked checked;
    for (const auto& [name, share] : reported) {
        if (share < 1.0) continue;
        // perf report rounds each row to 0.01%.
        EXPECT_NEAR(100 * self[name] / total, share, 0.01 * rows[name] + 0.05) << name;
        std::printf("  %6.2f%% %s (%d perf report row%s%s)\n", share, name.c_str(), rows[name],
                    rows[name] == 1 ? "" : "s", unresolved.count(name) ? ", addresses" : "");
        ++checked.functions;
        checked.modules += unresolved.count(name);
    }
    EXPECT_GE(checked.functions, 3u);
    return checked;
}

/// Skips (fails under CI=true) where perf is missing or cannot record.
void require_perf_tool() {
    if (system("command -v perf >/dev/null 2>&1") != 0)
        PATHSCOPE_SKIP_UNLESS_SETUP("perf (Debian package linux-perf) is not installed");
    if (system("perf record -q -N -o /dev/null -- true >/dev/null 2>&1") != 0)
        PATHSCOPE_SKIP("perf record cannot sample here (perf_event_paranoid?)");
}

// An imported `perf script` profile gives every function the self share
// `perf report --no-children` gives it, on the same recording of a real
// program (pathscope writing a large route table), with whatever debug info
// this machine has.
TEST(PerfImport, SelfSharesMatchPerfReport) {
    REQUIRE(require_perf_tool);
    const pathscope::test::TempDir dir("perfimport");
    check_self_shares(dir, "", "");
}

// The same where perf finds no debug info (a machine without libc6-dbg):
// glibc's local memcmp variants are addresses in perf report, one row each,
// and the importer's frame for their module holds their sum. Neither the
// build-id cache nor debuginfod may supply what /usr/lib/debug would.
TEST(PerfImport, SelfSharesMatchPerfReportWithoutDebugInfo) {
    REQUIRE(require_perf_tool);
    const pathscope::test::TempDir dir("perfimport");
    const std::string symfs = symfs_without_debug_info(dir);
    std::filesystem::create_directories(dir.path() / "buildid");
    const SharesChecked checked =
        check_self_shares(dir, "env -u DEBUGINFOD_URLS PERF_BUILDID_DIR=" + dir.file("buildid"),
                          " --symfs " + symfs);
    EXPECT_GE(checked.modules, 1u)
        << "perf resolved every hot frame without debug info: the unresolved case went untested";
}

}  // namespace

// A frame without a symbol is its module's, named as perf names the module;
// perf's own pseudo-modules are bracketed already.
TEST(SymbolNames, UnresolvedFramesAreNamedByModule) {
    EXPECT_EQ(module_frame("/usr/lib/x86_64-linux-gnu/libc.so.6"), "[libc.so.6]");
    EXPECT_EQ(module_frame("[kernel.kallsyms]"), "[kernel.kallsyms]");
    EXPECT_EQ(module_frame("[unknown]"), "[unknown]");
    EXPECT_EQ(module_frame(""), "[unknown]");
}

// Sampled CPU time has one event name from any source; other events keep theirs.
TEST(SymbolNames, SampledCpuTimeHasOneEventName) {
    using pathscope::db::kCpuTimeEvent;
    using pathscope::db::stack_event_name;
    for (const char* cpu : {"perf::cpu-clock", "cpu-clock:ppp", "cycles:u", "perf::task-clock",
                            "samples", kCpuTimeEvent})
        EXPECT_EQ(stack_event_name(cpu), kCpuTimeEvent) << cpu;
    EXPECT_EQ(stack_event_name("perf::page-faults"), "perf::page-faults");
    EXPECT_EQ(stack_event_name("sched:sched_switch"), "sched:sched_switch");
}

// The importer keeps the samples' event (the fact of its source); a command
// name may hold colons; samples of two events do not add up and are refused.
TEST(PerfScriptText, NamesItsEventAndRefusesTwo) {
    std::istringstream one(
        "kworker/0:1 77 [000] 100.000001:     250000 cpu-clock:ppp: \n"
        "\t    7f0000001000 worker_thread+0x5 ([kernel.kallsyms])\n"
        "\n");
    std::string event;
    const auto tree = parse_perf_script(one, "p.txt", {"kworker/0:1", ""}, &event);
    EXPECT_EQ(event, "cpu-clock:ppp");
    EXPECT_EQ(tree.name(1), "kworker/0:1");
    std::istringstream two(
        "app 10/11 100.0: 1 cycles:u:\n\t    1000 main+0x1 (/bin/app)\n\n"
        "app 10/11 100.1: 1 instructions:u:\n\t    1000 main+0x1 (/bin/app)\n\n");
    try {
        parse_perf_script(two, "p.txt");
        FAIL() << "samples of two events were added up";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("'cycles:u' and of 'instructions:u'"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Perf, ProbeNamesEveryEventAndThePmus) {
    const std::string probe = probe_pmu({"perf::task-clock", "perf::cycles", "no::such-event"});
    EXPECT_NE(probe.find("pmus: "), std::string::npos) << probe;
    EXPECT_NE(probe.find("perf::cycles: "), std::string::npos) << probe;
    EXPECT_NE(probe.find("no::such-event: unsupported (libpfm4: "), std::string::npos) << probe;
}

TEST(Perf, CountsSoftwareEventsOnAnotherThread) {
    REQUIRE(require_perf);
    Busy busy;
    PerfCounters counters(
        {"perf::task-clock", "perf::context-switches", "perf::cycles", "not-an-event"}, busy.tid());
    // Waits for the event itself (the busy thread has had 50 ms on a CPU),
    // not for a time: a loaded machine may give it less of a fixed sleep.
    std::vector<pathscope::db::PerfCounterRow> rows = counters.read(3);
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (rows.size() == 4 && rows[0].value <= 50'000'000u &&
           std::chrono::steady_clock::now() < limit) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        rows = counters.read(3);
    }
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].event, "perf::task-clock");
    EXPECT_TRUE(rows[0].supported);
    EXPECT_EQ(rows[0].trial, 3);
    // task-clock counts nanoseconds on CPU: past 50 ms within the minute, and
    // not more than the wall time since the counters opened allows.
    EXPECT_GT(rows[0].value, 50'000'000u);
    EXPECT_LT(rows[0].value, 61'000'000'000u);
    // Hardware cycles: counted where the PMU has them, else a reason, never a failure.
    if (!rows[2].supported)
        EXPECT_FALSE(rows[2].note.empty());
    else
        EXPECT_GT(rows[2].value, 0u);
    EXPECT_FALSE(rows[3].supported);
    EXPECT_NE(rows[3].note.find("libpfm4"), std::string::npos) << rows[3].note;
}

TEST(Perf, SamplesCallChainsAndSymbolizesThem) {
    REQUIRE(require_perf);
    Busy busy;
    PerfSampler sampler("perf::cpu-clock", 1000, busy.tid());
    ASSERT_TRUE(sampler.ok()) << sampler.note();
    // Drains until more than 100 samples arrived (a minute at most), however
    // little CPU a loaded machine gives the busy thread.
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (sampler.samples() <= 100u && std::chrono::steady_clock::now() < limit) {
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
        EXPECT_EQ(r.event, pathscope::db::kCpuTimeEvent);  // a sampled clock is CPU time
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
