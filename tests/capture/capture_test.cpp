// Capture runs as users start them: the real pathscope binary, a real store.
// A killed capture keeps every committed batch; Ctrl-C ends a run as
// aborted; a full disk gives a clear error and an intact store; traces come
// out as pcapng that tshark reads, comments included. The captures that only
// need a store run twice: with --db an SQLite file and a PostgreSQL server
// store (tests/support/store_backends.h).
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "db/queries.h"
#include "db/schema.h"
#include "tests/support/setup_skip.h"
#include "tests/support/store_backends.h"
#include "tests/support/telemetry_client.h"
#include "tests/support/temp_dir.h"

extern char** environ;
namespace fs = std::filesystem;
using namespace pathscope::db;
using namespace std::chrono_literals;

namespace {

// Starting captures and watching their store, for both fixtures below.
class Captures {
  protected:

    /// Starts `pathscope ARGS` with its output in files; returns the pid.
    pid_t spawn(std::vector<std::string> args) {
        args.insert(args.begin(), PATHSCOPE_CLI);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, (dir_ / "stdout").c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, 2, (dir_ / "stderr").c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        pid_t pid = 0;
        const int rc = posix_spawn(&pid, PATHSCOPE_CLI, &fa, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        EXPECT_EQ(rc, 0) << "cannot start " << PATHSCOPE_CLI;
        return pid;
    }
    /// Waits for `pid`; returns its exit code, or 128 + signal.
    static int wait_for(pid_t pid) {
        int status = 0;
        waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::string output(const char* stream) const {
        std::ifstream in(dir_ / stream);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    /// Committed intervals of run 1, read the way any other reader would,
    /// while the capture writes. Each read also checks that every interval it
    /// sees is whole: its ledger row and one row per stage (torn_ counts not).
    int64_t committed_intervals(const std::string& db) {
        try {
            auto store = open_store(db, Database::Mode::read_only);
            auto q = store->prepare(
                "SELECT (SELECT count(*) FROM intervals WHERE run_id = 1), "
                "(SELECT count(*) FROM stage_counters WHERE run_id = 1 AND seq >= 0), "
                "(SELECT count(DISTINCT stage) FROM stage_counters WHERE run_id = 1)");
            if (!q.step()) return 0;
            ++reads_;
            if (q.i64(1) != q.i64(0) * q.i64(2)) ++torn_;
            return q.i64(0);
        } catch (const DbError&) {
            return 0;  // not created yet
        }
    }
    int reads_ = 0, torn_ = 0;
    /// Polls until run 1 has `n` committed intervals (or 60 s pass).
    int64_t wait_for_intervals(const std::string& db, int64_t n) {
        const auto deadline = std::chrono::steady_clock::now() + 60s;
        int64_t seen = 0;
        while ((seen = committed_intervals(db)) < n && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(20ms);
        return seen;
    }

    pathscope::test::TempDir tmp_{"capture"};
    const fs::path& dir_ = tmp_.path();
};

// What only a file store can show (a full disk, no file made).
class CaptureTest : public ::testing::Test, public Captures {
  protected:
    void TearDown() override {
        if (mounted_) umount2(mount_point_.c_str(), MNT_DETACH);
    }
    fs::path mount_point_;
    bool mounted_ = false;
};

// The rest: the same bodies with --db an SQLite file and a server store.
class CaptureAnyStore : public pathscope::test::StoreBackends, public Captures {
  protected:
    /// The store's own consistency check: PRAGMA integrity_check on a file;
    /// a server checks its own pages, so there every run's rows are read.
    void expect_intact(Database& store) {
        if (server()) {
            for (const auto& r : list_runs(store)) load_run(store, r.id);
            return;
        }
        auto check = store.prepare("PRAGMA integrity_check");
        ASSERT_TRUE(check.step());
        EXPECT_EQ(check.text(0), "ok");
    }
};
PATHSCOPE_ON_BOTH_BACKENDS(CaptureAnyStore);

}  // namespace

TEST_P(CaptureAnyStore, KillNineKeepsEveryCommittedBatch) {
    const std::string db = new_store("killed.db");
    const pid_t pid =
        spawn({"run", "--db", db, "--label", "victim", "--duration", "60", "--interval", "0.05"});
    const int64_t before = wait_for_intervals(db, 6);
    ASSERT_GE(before, 6) << output("stderr");
    EXPECT_GT(reads_, 0);
    EXPECT_EQ(torn_, 0) << "a reader saw half of a batch while the capture wrote";
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    EXPECT_EQ(wait_for(pid), 128 + SIGKILL);

    auto store = open_store(db, Database::Mode::read_write);  // reopens cleanly
    expect_intact(*store);
    const RunInfo run = find_run(*store, "victim");
    EXPECT_EQ(run.status, "aborted");
    EXPECT_NE(run.note.find("killed"), std::string::npos) << run.note;
    const RunData data = load_run(*store, run.id);
    EXPECT_GE(static_cast<int64_t>(data.rows.intervals.size()), before);
    // Every committed interval is whole: a ledger row and a row per stage.
    std::map<int, int> stages_per_interval;
    for (const auto& s : data.rows.stages) stages_per_interval[s.seq]++;
    for (const auto& iv : data.rows.intervals)
        EXPECT_EQ(stages_per_interval[iv.seq], stages_per_interval[0]) << "interval " << iv.seq;
    uint64_t received = 0;
    for (const auto& iv : data.rows.intervals) received += iv.received;
    EXPECT_GT(received, 0u);
}

TEST_P(CaptureAnyStore, CtrlCEndsTheRunAsAbortedWithItsTotals) {
    const std::string db = new_store("ctrlc.db");
    const pid_t pid = spawn({"run", "--db", db, "--label", "stopped", "--duration", "60"});
    ASSERT_GE(wait_for_intervals(db, 3), 3) << output("stderr");
    ASSERT_EQ(kill(pid, SIGINT), 0);
    EXPECT_EQ(wait_for(pid), 130) << output("stderr");  // as shells expect, after the summary
    EXPECT_NE(output("stdout").find("balanced]"), std::string::npos) << output("stdout");
    EXPECT_NE(output("stdout").find("marked aborted"), std::string::npos) << output("stdout");
    auto store = open_store(db, Database::Mode::read_only);
    const RunInfo run = find_run(*store, "stopped");
    EXPECT_EQ(run.status, "aborted");
    EXPECT_NE(run.note.find("Ctrl-C"), std::string::npos) << run.note;
    const RunData data = load_run(*store, run.id);
    ASSERT_EQ(data.rows.trials.size(), 1u);  // the interrupted trial's totals are kept
    const TrialRow& t = data.rows.trials[0];
    EXPECT_GT(t.received, 0u);
    EXPECT_EQ(t.received, t.delivered + t.forwarded + t.replied + t.dropped);
}

// SIGTERM (timeout, systemd, CI runners) stops a run as Ctrl-C does.
TEST_P(CaptureAnyStore, SigtermEndsTheRunLikeCtrlC) {
    const std::string db = new_store("sigterm.db");
    const pid_t pid = spawn({"run", "--db", db, "--label", "termed", "--duration", "60"});
    ASSERT_GE(wait_for_intervals(db, 3), 3) << output("stderr");
    ASSERT_EQ(kill(pid, SIGTERM), 0);
    EXPECT_EQ(wait_for(pid), 143) << output("stderr");  // 128 + SIGTERM, after the summary
    EXPECT_NE(output("stdout").find("balanced]"), std::string::npos) << output("stdout");
    EXPECT_NE(output("stdout").find("marked aborted (SIGTERM)"), std::string::npos)
        << output("stdout");
    auto store = open_store(db, Database::Mode::read_only);
    const RunInfo run = find_run(*store, "termed");
    EXPECT_EQ(run.status, "aborted");
    EXPECT_NE(run.note.find("stopped by SIGTERM"), std::string::npos) << run.note;
    const RunData data = load_run(*store, run.id);
    ASSERT_EQ(data.rows.trials.size(), 1u);
    EXPECT_GT(data.rows.trials[0].received, 0u);
}

// Ctrl-C while the next cell of a matrix is being set up: the cells that
// ran are printed, kept and marked aborted, and none is left half made.
TEST_P(CaptureAnyStore, CtrlCDuringAMatrixPrintsTheCellsThatRan) {
    const std::string db = new_store("matrix.db");
    const pid_t pid = spawn({"run", "--db", db, "--label", "mx", "--duration", "0.3", "--set",
                             "matrix.engine.burst=[16, 32, 64]"});
    // Run 1's trial row is committed once its engine stopped: the next
    // cell's engine (40,000 routes) is then being set up.
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    int64_t trials = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        try {
            trials = open_store(db, Database::Mode::read_only)->scalar("SELECT count(*) FROM trials");
        } catch (const DbError&) {
        }
        if (trials >= 1) break;
        std::this_thread::sleep_for(5ms);
    }
    ASSERT_GE(trials, 1) << output("stderr");
    ASSERT_EQ(kill(pid, SIGINT), 0);
    EXPECT_EQ(wait_for(pid), 130) << output("stderr");
    const std::string out = output("stdout");
    EXPECT_NE(out.find("    1  engine.burst=16       1"), std::string::npos) << out;
    EXPECT_NE(out.find("stored as experiment"), std::string::npos) << out;
    EXPECT_NE(out.find("stopped by Ctrl-C: "), std::string::npos) << out;
    EXPECT_NE(out.find(" of the 3 cells have trials"), std::string::npos) << out;
    auto store = open_store(db, Database::Mode::read_write);  // marks dead runs, if any
    const auto runs = list_runs(*store);
    ASSERT_GE(runs.size(), 1u);
    EXPECT_LT(runs.size(), 3u);
    for (const auto& r : runs) {
        EXPECT_NE(out.find(r.cell), std::string::npos) << "run " << r.id << " is not printed";
        // A cell whose one trial ran is complete; one the stop cut short is
        // aborted, saying so.
        if (r.status != "complete") {
            EXPECT_EQ(r.status, "aborted");
            EXPECT_NE(r.note.find("stopped by Ctrl-C"), std::string::npos) << r.note;
        }
    }
}

// `run` says how many packet traces it stored: the store's own count.
TEST_P(CaptureAnyStore, RunPrintsTheCountOfTracesItStored) {
    const std::string db = new_store("count.db");
    ASSERT_EQ(wait_for(spawn({"run", "--db", db, "--label", "counted", "--duration", "1", "--set",
                              "capture.traces_per_s=200"})),
              0)
        << output("stderr");
    auto store = open_store(db, Database::Mode::read_only);
    const int64_t stored = store->scalar("SELECT count(*) FROM packet_traces");
    ASSERT_GT(stored, 20);
    const std::string out = output("stdout");
    EXPECT_NE(out.find("\n" + std::to_string(stored) + " packet traces stored"), std::string::npos)
        << "the store has " << stored << " traces:\n"
        << out;
}

// A trial's intervals hold every packet and cycle of it: their rows sum to
// the trial's totals (the packets the worker took after the last tick go
// with the last interval), so that any time range adds up.
TEST_P(CaptureAnyStore, ATrialsIntervalsSumToItsTotals) {
    const std::string db = new_store("sums.db");
    ASSERT_EQ(wait_for(spawn({"run", "--db", db, "--label", "sums", "--duration", "0.5",
                              "--trials", "2", "--interval", "0.1"})),
              0)
        << output("stderr");
    auto store = open_store(db, Database::Mode::read_only);
    const RunData data = load_run(*store, find_run(*store, "sums").id);
    ASSERT_EQ(data.rows.trials.size(), 2u);
    for (const auto& t : data.rows.trials) {
        uint64_t received = 0, forwarded = 0;
        for (const auto& iv : data.rows.intervals)
            if (iv.trial == t.trial) received += iv.received, forwarded += iv.forwarded;
        EXPECT_GT(t.received, 0u);
        EXPECT_EQ(received, t.received) << "trial " << t.trial;
        EXPECT_EQ(forwarded, t.forwarded) << "trial " << t.trial;
        std::map<std::string, std::pair<uint64_t, uint64_t>> cycles;  // whole, intervals'
        for (const auto& s : data.rows.stages)
            if (s.trial == t.trial) (s.seq < 0 ? cycles[s.stage].first : cycles[s.stage].second) += s.cycles;
        for (const auto& [stage, c] : cycles) EXPECT_EQ(c.second, c.first) << stage;
    }
}

// A device that refuses the queue count stops the run before one is
// created: the device's reason, exit 1, and no store at all.
TEST_F(CaptureTest, SetupFailureStopsBeforeARunIsCreated) {
    const std::string db = (dir_ / "refused.db").string();
    EXPECT_EQ(wait_for(spawn({"run", "--db", db, "--set", "port.wire.rx_queues=1000"})), 1);
    const std::string err = output("stderr");
    EXPECT_NE(err.find("port 'wire'"), std::string::npos) << err;
    EXPECT_EQ(err.find("NOT NULL"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(db)) << "a refused setup touched the store";
}

// A matrix cell that cannot start stops the experiment: the cells that ran
// are aborted with its reason (not "killed?"), and it leaves no run.
TEST_P(CaptureAnyStore, MatrixCellThatCannotStartAbortsTheExperimentWithItsReason) {
    const std::string db = new_store("cell.db");
    EXPECT_EQ(wait_for(spawn({"run", "--db", db, "--duration", "0.3", "--set",
                              "matrix.port.wire.rx_queues=[1, 1000]"})),
              1);
    const std::string err = output("stderr");
    EXPECT_NE(err.find("cell port.wire.rx_queues=1000 could not start"), std::string::npos) << err;
    auto store = open_store(db, Database::Mode::read_write);  // marks dead runs, if any
    const auto runs = list_runs(*store);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, "aborted");
    EXPECT_NE(runs[0].note.find("could not start: port 'wire'"), std::string::npos)
        << runs[0].note;
    EXPECT_EQ(load_run(*store, runs[0].id).rows.trials.size(), 1u);
}

TEST_F(CaptureTest, FullDiskGivesAClearErrorAndAnIntactStore) {
    if (geteuid() != 0) PATHSCOPE_SKIP("mounting a small tmpfs needs root");
    mount_point_ = dir_ / "small";
    fs::create_directories(mount_point_);
    if (mount("pathscope-test", mount_point_.c_str(), "tmpfs", 0, "size=384k") != 0)
        PATHSCOPE_SKIP("cannot mount a tmpfs here: " << std::strerror(errno));
    mounted_ = true;
    const std::string db = (mount_point_ / "full.db").string();
    const pid_t pid = spawn({"run", "--db", db, "--label", "full", "--duration", "60", "--interval",
                             "0.02", "--set", "capture.traces_per_s=2000"});
    const int rc = wait_for(pid);
    const std::string err = output("stderr");
    EXPECT_EQ(rc, 1) << err;
    EXPECT_NE(err.find("disk is full"), std::string::npos) << err;
    EXPECT_NE(err.find("committed before it is kept"), std::string::npos) << err;
    EXPECT_NE(err.find("nothing more was stored"), std::string::npos) << err;
    EXPECT_EQ(output("stdout").find("stored as run"), std::string::npos) << output("stdout");
    // The store is intact and holds what was committed before the disk filled.
    auto store = open_store(db, Database::Mode::read_only);
    auto check = store->prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.text(0), "ok");
    EXPECT_EQ(list_runs(*store).size(), 1u);
    EXPECT_GT(store->scalar("SELECT count(*) FROM intervals"), 0);
}

TEST_F(CaptureTest, PcapngExportReadsBackInTshark) {
    if (system("command -v tshark >/dev/null 2>&1") != 0)
        PATHSCOPE_SKIP_UNLESS_SETUP("tshark is not installed");
    const std::string db = (dir_ / "traces.db").string();
    ASSERT_EQ(wait_for(spawn({"run", "--db", db, "--label", "traced", "--duration", "1", "--set",
                              "capture.traces_per_s=200"})),
              0)
        << output("stderr");
    const std::string pcapng = (dir_ / "traces.pcapng").string();
    ASSERT_EQ(wait_for(spawn({"export", "traced", "--db", db, "--format", "pcapng", "-o", pcapng})),
              0)
        << output("stderr");
    auto store = open_store(db, Database::Mode::read_only);
    const RunData data = load_run(*store, find_run(*store, "traced").id);
    ASSERT_GT(data.rows.traces.size(), 20u);

    const std::string cmd =
        "tshark -r '" + pcapng + "' -T fields -e frame.len -e frame.comment 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::vector<std::string> lines;
    char buf[4096];
    while (fgets(buf, sizeof buf, p)) lines.emplace_back(buf);
    EXPECT_EQ(pclose(p), 0);
    ASSERT_EQ(lines.size(), data.rows.traces.size());
    std::map<std::string, int> outcomes;
    for (size_t i = 0; i < lines.size(); ++i) {
        const auto& t = data.rows.traces[i];
        SCOPED_TRACE(lines[i]);
        EXPECT_EQ(std::stoul(lines[i]), t.wire_len);
        EXPECT_NE(lines[i].find("trace " + std::to_string(t.seq) + ":"), std::string::npos);
        ASSERT_FALSE(t.stage_cycles.empty());
        EXPECT_EQ(t.stage_cycles.front().first, "eth_rx");
        EXPECT_NE(lines[i].find("eth_rx "), std::string::npos);
        EXPECT_NE(lines[i].find(" cycles; "), std::string::npos);
        // Each trace says how the packet left the graph, as the store has it.
        ASSERT_FALSE(t.outcome.empty());
        EXPECT_NE(lines[i].find("; " + t.outcome), std::string::npos);
        outcomes[t.outcome.substr(0, t.outcome.find(':'))]++;
    }
    // The default generator's mix: mostly forwarded, a fifth to sockets, some malformed.
    EXPECT_GT(outcomes["forwarded"], outcomes["delivered"]);
    EXPECT_GT(outcomes["delivered"], 0);
}

TEST_F(CaptureTest, RunServesLiveStatisticsOnTheTelemetrySocket) {
    const std::string db = (dir_ / "live.db").string();
    const pid_t pid = spawn({"run", "--db", db, "--duration", "60"});
    ASSERT_GE(wait_for_intervals(db, 3), 3) << output("stderr");
    // One line at the start says where to look: "... (socket /var/run/dpdk/rte/dpdk_telemetry.v2)".
    const std::string err = output("stderr");
    const size_t at = err.find("(socket ");
    ASSERT_NE(at, std::string::npos) << err;
    EXPECT_NE(err.find("dpdk-telemetry.py -f "), std::string::npos) << err;
    const std::string socket = err.substr(at + 8, err.find(')', at) - at - 8);
    pathscope::test::TelemetryClient client(socket);
    EXPECT_EQ(client.info().at("pid").get<pid_t>(), pid);
    const uint64_t first = client.ask("/pathscope/ledger").at("received").get<uint64_t>();
    std::this_thread::sleep_for(300ms);
    const nlohmann::json ledger = client.ask("/pathscope/ledger");
    const nlohmann::json stages = client.ask("/pathscope/stages");
    ASSERT_EQ(kill(pid, SIGINT), 0);
    EXPECT_EQ(wait_for(pid), 130) << output("stderr");
    EXPECT_GT(first, 0u);
    EXPECT_GT(ledger.at("received").get<uint64_t>(), first) << ledger;
    EXPECT_GT(stages.at("ip6_lookup").at("packets").get<uint64_t>(), 0u) << stages;
}
