// Store fault injection (issue 19): the real pathscope binary on real store
// files, against what kills, races and broken disks do to a store.
//  - kill -9 at random points of many capture starts: the store reopens and
//    passes PRAGMA quick_check, no row seen committed goes missing, no batch
//    is torn, and the next write marks the dead run aborted;
//  - two processes writing one store: both complete, or one is refused with
//    a clear "busy" message and leaves nothing half done;
//  - a store cut short, random bytes, another application's SQLite file and
//    a store of a newer schema: every verb that takes a store refuses each
//    with one clear line, exits non-zero, and leaves the file as it was;
//  - I/O errors mid-write (tests/support/fail_writes.c, LD_PRELOAD): a clear
//    error naming the store, and the store intact.
// The full-disk case is tests/capture/capture_test.cpp's.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "db/queries.h"
#include "db/schema.h"
#include "tests/support/bad_stores.h"
#include "tests/support/temp_dir.h"

extern char** environ;
namespace fs = std::filesystem;
using namespace pathscope;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// A capture that starts fast and commits often: a few routes, small pools
// in 160 MB of EAL memory (the FIB's tables take most of it), two short
// trials, a snapshot every 20 ms.
constexpr const char* kTinyScenario = R"(
[eal]
args = ["--no-huge", "-m", "160", "--no-pci", "--no-shconf", "--no-telemetry", "-l", "0-1",
        "--log-level", "lib.*:error"]

[engine]
burst = 32
duration = 0.15
mbufs = 2047

[[port]]
name = "wire"
device = "ring"
mac = "02:00:00:00:00:01"
addresses = ["2001:db8:1::1/64"]

[[port]]
name = "uplink"
device = "net_null0,no-rx=1"
poll = false
mac = "02:00:00:00:00:02"
addresses = ["2001:db8:2::1/64"]

[[nexthop]]
id = 1
port = "uplink"
mac = "02:00:00:00:00:fe"

[[nexthop]]
id = 2
port = "wire"
mac = "02:00:00:00:00:10"

[[route]]
prefix = "2001:db8:100::/48"
nexthop = 2

[[route]]
prefix = "::/0"
nexthop = 1

[[app]]
kind = "sink"
port = 9

[[app]]
kind = "echo"
port = 7

[workload]
kind = "generator"
port = "wire"
flows = 16
frame_size = 64
sink_percent = 20
echo_percent = 5
malformed_percent = 5
source_prefix = "2001:db8:100::/48"

[capture]
trials = 2
interval = 0.02
sample_hz = 0
traces_per_s = 200
)";

// Every table a capture fills, for "no committed row goes missing".
constexpr const char* kTables[] = {
    "runs",          "trials",         "intervals",         "stage_counters", "edge_counters",
    "queue_counters", "drops",         "histograms",        "histogram_buckets",
    "perf_counters", "packet_traces",  "facts",             "trial_events",   "worker_trials"};

using Counts = std::map<std::string, int64_t>;

/// Row counts of every table, read in one snapshot as any reader would;
/// nothing while the store has no tables yet.
std::optional<Counts> table_counts(const std::string& path) {
    try {
        if (!fs::exists(path)) return std::nullopt;
        db::Database db(path, db::Database::Mode::read_only);
        std::string sql = "SELECT ";
        for (const char* t : kTables)
            sql += std::string(t == kTables[0] ? "" : ", ") + "(SELECT count(*) FROM " + t + ")";
        auto q = db.prepare(sql);
        if (!q.step()) return std::nullopt;
        Counts c;
        int i = 0;
        for (const char* t : kTables) c[t] = q.i64(i++);
        return c;
    } catch (const db::DbError&) {
        return std::nullopt;  // not made yet, or its schema not committed yet
    }
}

/// Intervals whose batch is not whole: a stage row count other than the run's
/// stages, or stage rows of an interval that has no ledger row.
int64_t torn_intervals(const db::Database& db) {
    return db.scalar(
               "SELECT count(*) FROM intervals i WHERE (SELECT count(*) FROM stage_counters s "
               "WHERE s.run_id = i.run_id AND s.trial = i.trial AND s.seq = i.seq) != "
               "(SELECT count(DISTINCT stage) FROM stage_counters s WHERE s.run_id = i.run_id)") +
           db.scalar(
               "SELECT count(*) FROM (SELECT DISTINCT run_id, trial, seq FROM stage_counters s "
               "WHERE seq >= 0 AND NOT EXISTS (SELECT 1 FROM intervals i WHERE i.run_id = "
               "s.run_id AND i.trial = s.trial AND i.seq = s.seq))");
}

std::string quick_check(const std::string& path) {
    db::Database db(path, db::Database::Mode::read_only);
    auto q = db.prepare("PRAGMA quick_check");
    return q.step() ? q.text(0) : "no answer";
}

struct Exit {
    int status = -1;  ///< exit code, or 128 + signal
    std::string out, err;
};

class StoreFaultsTest : public ::testing::Test {
  protected:
    /// Starts `pathscope ARGS` with `env` added to this process's environment;
    /// its output goes to files named after `tag`.
    pid_t start(std::vector<std::string> args, const std::string& tag,
                const std::map<std::string, std::string>& env = {}) {
        args.insert(args.begin(), PATHSCOPE_CLI);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        std::vector<std::string> vars;
        for (char** e = environ; *e; ++e) {
            const std::string v = *e;
            if (!env.count(v.substr(0, v.find('=')))) vars.push_back(v);
        }
        for (const auto& [k, v] : env) vars.push_back(k + "=" + v);
        std::vector<char*> envp;
        for (auto& v : vars) envp.push_back(v.data());
        envp.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, dir_file(tag + ".out").c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, 2, dir_file(tag + ".err").c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        pid_t pid = 0;
        const int rc = posix_spawn(&pid, PATHSCOPE_CLI, &fa, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&fa);
        EXPECT_EQ(rc, 0) << "cannot start " << PATHSCOPE_CLI;
        return pid;
    }
    /// Waits for `pid` (killing it after `limit`, which fails the test).
    Exit finish(pid_t pid, const std::string& tag, std::chrono::seconds limit = 120s) {
        const auto deadline = Clock::now() + limit;
        int status = 0;
        while (waitpid(pid, &status, WNOHANG) == 0) {
            if (Clock::now() > deadline) {
                ADD_FAILURE() << "pathscope (" << tag << ") still running after "
                              << limit.count() << " s; killed";
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                break;
            }
            std::this_thread::sleep_for(5ms);
        }
        Exit e;
        e.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        e.out = test::file_bytes(dir_file(tag + ".out"));
        e.err = test::file_bytes(dir_file(tag + ".err"));
        return e;
    }
    Exit cli(const std::vector<std::string>& args, const std::string& tag = "cli",
             const std::map<std::string, std::string>& env = {}) {
        return finish(start(args, tag, env), tag);
    }

    std::string dir_file(const std::string& name) const { return tmp_.file(name); }
    std::string scenario() {
        const std::string path = dir_file("tiny.toml");
        if (!fs::exists(path)) std::ofstream(path) << kTinyScenario;
        return path;
    }
    /// A small profile as a folded-stacks file (an import needs no EAL).
    std::string folded(int lines = 400) {
        const std::string path = dir_file("profile.folded");
        std::ofstream f(path);
        for (int i = 0; i < lines; ++i)
            f << "main;loop_" << i % 7 << ";work_" << i << ";leaf_" << i % 13 << " " << 1 + i % 5
              << "\n";
        return path;
    }
    /// A closed store holding one imported run labelled "earlier".
    std::string store_with_a_run(const std::string& name) {
        const std::string db = dir_file(name);
        const Exit e = cli({"import", "folded", folded(), "--db", db, "--label", "earlier"},
                           "import-" + name);
        EXPECT_EQ(e.status, 0) << e.err;
        return db;
    }

    test::TempDir tmp_{"faults"};
};

uint64_t env_number(const char* name, uint64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// ---- kill -9 -------------------------------------------------------------

/// What a poller saw committed while a capture ran.
struct Seen {
    Counts counts;            ///< the last snapshot read
    int64_t run_intervals = 0;  ///< this start's run's intervals in it
    std::optional<Clock::duration> first_interval;  ///< when its first batch was seen
};

/// Reads the store every few milliseconds on its own thread until stopped.
class Poller {
  public:
    Poller(std::string db, std::string label, Clock::time_point t0)
        : db_(std::move(db)), label_(std::move(label)), t0_(t0), thread_([this] { loop(); }) {}
    ~Poller() { stop(); }
    /// What it has seen committed so far.
    Seen snapshot() {
        std::lock_guard lk(mu_);
        return seen_;
    }
    /// Stops; returns what it saw committed in all.
    Seen stop() {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
        std::lock_guard lk(mu_);
        return seen_;
    }

  private:
    void loop() {
        while (!stop_) {
            if (auto c = table_counts(db_)) {
                int64_t mine = 0;
                try {
                    db::Database db(db_, db::Database::Mode::read_only);
                    auto q = db.prepare(
                        "SELECT count(*) FROM intervals WHERE run_id = (SELECT id FROM runs "
                        "WHERE label = ?1)");
                    q.bind(1, label_);
                    if (q.step()) mine = q.i64(0);
                } catch (const db::DbError&) {
                }
                std::lock_guard lk(mu_);
                // Counts only grow in a capture: keep the largest seen of each.
                for (const auto& [t, n] : *c) seen_.counts[t] = std::max(seen_.counts[t], n);
                seen_.run_intervals = std::max(seen_.run_intervals, mine);
                if (mine > 0 && !seen_.first_interval) seen_.first_interval = Clock::now() - t0_;
            }
            std::this_thread::sleep_for(3ms);
        }
    }
    std::string db_, label_;
    Clock::time_point t0_;
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    Seen seen_;
    std::thread thread_;
};

// kill -9 at random points over many capture starts (short trials), from
// before the store exists to after its first batches: each time the store
// reopens and passes quick_check, every row a reader saw committed is still
// there, no interval is torn, and the next write (here `list`; for the last
// kill, the next capture) marks the dead run aborted. The seed is printed;
// PATHSCOPE_KILL_SEED=N replays it, PATHSCOPE_KILL_STARTS=N changes the count
// (100 in the dev build, 30 under the sanitizers: tests/CMakeLists.txt).
TEST_F(StoreFaultsTest, KillNineAtRandomPointsLosesNoCommittedRow) {
    const uint64_t seed = env_number("PATHSCOPE_KILL_SEED", std::random_device{}());
    const int starts = static_cast<int>(env_number("PATHSCOPE_KILL_STARTS", PATHSCOPE_KILL_STARTS));
    std::printf("kill -9: seed %llu, %d starts (replay with PATHSCOPE_KILL_SEED=%llu)\n",
                static_cast<unsigned long long>(seed), starts,
                static_cast<unsigned long long>(seed));
    RecordProperty("seed", std::to_string(seed));
    std::mt19937_64 rng(seed);
    const std::string sc = scenario();

    // One whole run first: how long a start takes to commit its first batch.
    Clock::duration first_batch{};
    {
        const std::string db = dir_file("calibrate.db");
        const auto t0 = Clock::now();
        Poller poll(db, "whole", t0);
        const Exit e = finish(start({"run", sc, "--db", db, "--label", "whole"}, "whole"), "whole");
        const Seen seen = poll.stop();
        ASSERT_EQ(e.status, 0) << e.err;
        ASSERT_TRUE(seen.first_interval) << "no interval seen committed during the run";
        first_batch = *seen.first_interval;
    }
    std::printf("kill -9: a whole run committed its first batch %.0f ms after its start\n",
                std::chrono::duration<double, std::milli>(first_batch).count());

    struct Figures {
        int killed = 0, finished = 0;
        int no_store = 0, no_run_row = 0, no_interval = 0, after_first = 0;
        int reopen_ok = 0, marked_aborted = 0, blind = 0;
        int64_t rows_seen = 0, max_rows_lost = 0, rows_after_last_look = 0;
    } f;

    for (int i = 0; i < starts; ++i) {
        // A fresh store every 10 starts, so that kills also land while one is made.
        const std::string db = dir_file("killed" + std::to_string(i / 10) + ".db");
        const std::string label = "k" + std::to_string(i);
        // Half the starts are killed blind, 0 to `first_batch` (as last seen)
        // after the start: mostly while the EAL starts, the store is made or
        // the engine is set up. The other half wait for their own first batch
        // to be seen committed (the event, not a guess of its time) and are
        // killed 0 to first_batch / 2 after it, while the capture writes.
        const bool blind = rng() % 2 == 0;
        const auto us = [](Clock::duration d) {
            return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
        };
        const auto delay = std::chrono::microseconds(std::uniform_int_distribution<int64_t>(
            0, blind ? us(first_batch) : us(first_batch) / 2)(rng));
        SCOPED_TRACE("start " + std::to_string(i) + " (" + label + "), kill " +
                     std::to_string(delay.count() / 1000) + " ms after " +
                     (blind ? "the start" : "its first batch") + ", seed " + std::to_string(seed));
        const auto t0 = Clock::now();
        const pid_t pid = start({"run", sc, "--db", db, "--label", label}, "victim");
        Poller poll(db, label, t0);
        if (blind) {
            ++f.blind;
            std::this_thread::sleep_until(t0 + delay);
        } else {
            const auto deadline = Clock::now() + 60s;
            for (;;) {
                if (const auto seen = poll.snapshot().first_interval) {
                    first_batch = *seen;
                    break;
                }
                siginfo_t info{};
                waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
                if (info.si_pid == pid) {
                    ADD_FAILURE() << "the run ended before a batch was seen committed";
                    break;
                }
                if (Clock::now() > deadline) {
                    ADD_FAILURE() << "no batch committed within 60 s";
                    break;
                }
                std::this_thread::sleep_for(2ms);
            }
            std::this_thread::sleep_for(delay);
        }
        const Seen before_kill = poll.snapshot();
        ASSERT_EQ(kill(pid, SIGKILL), 0);
        const Exit e = finish(pid, "victim");
        const Seen seen = poll.stop();  // before and just after the kill
        const bool killed = e.status == 128 + SIGKILL;
        ASSERT_TRUE(killed || e.status == 0) << "exit " << e.status << ": " << e.err;
        killed ? ++f.killed : ++f.finished;

        // The store reopens and is sound.
        if (!fs::exists(db)) {
            ++f.no_store;
            continue;
        }
        ASSERT_EQ(quick_check(db), "ok");
        ++f.reopen_ok;
        const auto after = table_counts(db);
        if (!after) {  // killed while the store was being made: it holds no schema
            ++f.no_store;
            EXPECT_TRUE(seen.counts.empty()) << "tables seen committed are gone";
            continue;
        }
        // No row seen committed is gone.
        int64_t lost = 0, seen_rows = 0, new_rows = 0;
        for (const auto& [t, n] : seen.counts) {
            const int64_t now = after->at(t);
            EXPECT_GE(now, n) << "table " << t << ": " << n << " rows seen committed, " << now
                              << " after the kill";
            lost += std::max<int64_t>(0, n - now);
        }
        for (const auto& [t, n] : before_kill.counts) {
            seen_rows += n;
            new_rows += std::max<int64_t>(0, after->at(t) - n);
        }
        f.max_rows_lost = std::max(f.max_rows_lost, lost);
        f.rows_seen += seen_rows;
        f.rows_after_last_look += new_rows;
        {
            db::Database raw(db, db::Database::Mode::read_only);
            EXPECT_EQ(torn_intervals(raw), 0) << "an interval's batch is stored in part";
        }

        // `list` shows the dead run as aborted and writes nothing (a read
        // verb never changes a store); the next capture into the store marks
        // it: the next start here, and for the last kill a run of its own.
        const bool last = i == starts - 1;
        if (!last) {
            const Exit l = cli({"list", "--db", db}, "list");
            ASSERT_EQ(l.status, 0) << l.err;
            EXPECT_EQ(l.out.find(" running "), std::string::npos) << l.out;
        } else {
            const Exit next = cli({"run", sc, "--db", db, "--label", "next"}, "next");
            ASSERT_EQ(next.status, 0) << next.err;
        }
        // What the store holds, not what a reader makes of it (read_run shows a
        // dead capture's run as aborted before any write has marked it).
        auto store = db::open_store(db, db::Database::Mode::read_only);
        std::optional<db::RunInfo> mine;
        {
            auto q = store->prepare("SELECT id, label, status, note, trials FROM runs");
            while (q.step()) {
                // Only list has read the store since this one died: it is as
                // the dead capture left it (a later capture marks it).
                if (!last && q.text(1) == label) {
                    EXPECT_NE(q.text(2), "aborted") << "list wrote the store";
                }
                if (q.text(1) != label) continue;
                mine.emplace();
                mine->id = q.i64(0);
                mine->status = q.text(2);
                mine->note = q.text(3);
                mine->trials = static_cast<int>(q.i64(4));
            }
        }
        if (!mine) {
            ++f.no_run_row;
            ASSERT_TRUE(killed) << "a run that finished is not in the store";
            continue;
        }
        const int64_t stored = store->scalar("SELECT count(*) FROM intervals WHERE run_id = " +
                                             std::to_string(mine->id));
        (stored > 0 ? f.after_first : f.no_interval)++;
        // A reader sees a dead capture's run as aborted before a writer marks
        // it, and no run as running once its process is gone.
        for (const auto& r : db::list_runs(*store))
            EXPECT_NE(r.status, "running") << "run " << r.id << " (" << r.label << ")";
        if (mine->status == "running") {
            const db::RunInfo seen = db::load_run(*store, mine->id).info;
            mine->status = seen.status;
            mine->note = seen.note;
        }
        if (killed && mine->status == "aborted") {
            ++f.marked_aborted;
            EXPECT_NE(mine->note.find("killed?"), std::string::npos) << mine->note;
        }
        if (killed) {
            // Killed after its last status was committed is the only way to be complete.
            if (mine->status == "complete") {
                EXPECT_EQ(static_cast<int>(db::load_run(*store, mine->id).rows.trials.size()),
                          mine->trials);
            }
        } else {
            EXPECT_EQ(mine->status, "complete");
        }
        // A killed run reads back in a read verb, whatever it holds.
        if (i % 10 == 9) {
            const Exit s = cli({"show", std::to_string(mine->id), "--db", db}, "show");
            EXPECT_EQ(s.status, 0) << s.err;
        }
    }
    std::printf(
        "kill -9 figures: %d starts (%d killed blind, %d after their first batch was seen), "
        "%d killed, %d finished before the kill; killed before the "
        "store had its tables: %d, before the run's row: %d, before the run's first interval "
        "batch: %d, after it: %d; reopen checks passed (quick_check ok): %d; dead runs marked "
        "aborted by the next write: %d; rows seen committed before the kills: %lld, rows lost "
        "at most: %lld; rows committed between the last look and the kill: %lld\n",
        starts, f.blind, starts - f.blind, f.killed, f.finished, f.no_store, f.no_run_row, f.no_interval, f.after_first,
        f.reopen_ok, f.marked_aborted, static_cast<long long>(f.rows_seen),
        static_cast<long long>(f.max_rows_lost), static_cast<long long>(f.rows_after_last_look));
    EXPECT_EQ(f.max_rows_lost, 0);
    // The delays must reach both sides of the first commit, or the test proved less.
    EXPECT_GT(f.no_store + f.no_run_row + f.no_interval, 0);
    EXPECT_GT(f.after_first, 0);
}

// ---- two writers -----------------------------------------------------------

// Two captures into one store at once: each writes its batches between the
// other's (WAL, short BEGIN IMMEDIATE batches, a busy timeout). Both
// complete with every trial, or one is refused with the busy message and
// leaves nothing half done.
TEST_F(StoreFaultsTest, TwoCapturesIntoOneStoreBothCompleteOrOneIsClearlyRefused) {
    const std::string db = dir_file("shared.db");
    const std::string sc = scenario();
    const std::vector<std::string> common = {"--db", db, "--trials", "3", "--duration", "0.4"};
    auto args = [&](const std::string& label) {
        std::vector<std::string> a = {"run", sc, "--label", label};
        a.insert(a.end(), common.begin(), common.end());
        return a;
    };
    const pid_t a = start(args("left"), "left");
    const pid_t b = start(args("right"), "right");
    const Exit ea = finish(a, "left"), eb = finish(b, "right");
    ASSERT_EQ(quick_check(db), "ok");
    auto store = db::open_store(db, db::Database::Mode::read_write);
    int complete = 0;
    for (const auto& [label, e] : {std::pair{"left", ea}, std::pair{"right", eb}}) {
        SCOPED_TRACE(label);
        std::optional<db::RunInfo> run;
        for (const auto& r : db::list_runs(*store))
            if (r.label == label) run = r;
        if (e.status == 0) {
            ++complete;
            ASSERT_TRUE(run);
            EXPECT_EQ(run->status, "complete");
            const db::RunData data = db::load_run(*store, run->id);
            EXPECT_EQ(data.rows.trials.size(), 3u);
            EXPECT_NE(e.out.find("stored as run " + std::to_string(run->id)), std::string::npos)
                << e.out;
        } else {
            EXPECT_EQ(e.status, 1) << e.err;
            EXPECT_NE(e.err.find(db), std::string::npos) << e.err;
            EXPECT_NE(e.err.find("write lock"), std::string::npos) << e.err;
            if (run) {  // marked by this read-write open at the latest
                EXPECT_EQ(store->scalar("SELECT count(*) FROM runs WHERE status = 'running'"), 0);
            }
        }
    }
    std::printf("two writers: %d of 2 captures complete\n", complete);
    EXPECT_GE(complete, 1);
    EXPECT_EQ(torn_intervals(*store), 0);
}

// A writer that keeps the store's write lock (a long merge, a stuck tool):
// a capture waits its busy timeout, then stops with one message naming the
// store and saying what to do, and adds nothing to it.
TEST_F(StoreFaultsTest, AHeldWriteLockGivesAClearBusyMessageAndWritesNothing) {
    const std::string db = store_with_a_run("locked.db");
    const auto before = table_counts(db);
    ASSERT_TRUE(before);
    db::Database holder(db, db::Database::Mode::read_write);
    holder.exec("BEGIN IMMEDIATE");
    holder.exec("UPDATE runs SET note = 'held' WHERE label = 'earlier'");
    const Exit e = cli({"run", scenario(), "--db", db, "--label", "refused"}, "refused");
    holder.exec("ROLLBACK");
    EXPECT_EQ(e.status, 1) << e.err;
    EXPECT_NE(e.err.find("pathscope run: " + db + ": database is locked"), std::string::npos)
        << e.err;
    EXPECT_NE(e.err.find("held the store's write lock for over 5 s: let it finish"),
              std::string::npos)
        << e.err;
    EXPECT_EQ(quick_check(db), "ok");
    EXPECT_EQ(table_counts(db), before) << "the refused capture wrote to the store";
}

// ---- files that are not a store you can use ---------------------------------

class BadStoreTest : public StoreFaultsTest,
                     public ::testing::WithParamInterface<test::BadStoreKind> {};

// Every verb that takes a store, given this file: one line naming the file
// and what is wrong with it, exit status 1, no crash, the file untouched.
TEST_P(BadStoreTest, EveryVerbRefusesItWithOneClearLine) {
    const test::BadStoreKind& kind = GetParam();
    const std::string good = store_with_a_run("good.db");
    const std::string bad = dir_file(std::string(kind.name) + ".db");
    test::make_bad_store(kind.kind, good, bad);
    const std::string bytes = test::file_bytes(bad);
    const std::string out = dir_file("out.txt"), merged = dir_file("merged.db");
    const std::vector<std::vector<std::string>> verbs = {
        {"list", "--db", bad},
        {"show", "1", "--db", bad},
        {"compare", "1", "2", "--db", bad},
        {"report", "1", "--db", bad},
        {"export", "1", "--db", bad, "--format", "csv", "-o", out},
        {"import", "folded", folded(), "--db", bad},
        {"run", scenario(), "--db", bad},
        {"bench", "route-output", "--routes", "100", "--calls", "100", "--db", bad},
        {"merge", bad, "-o", merged},
        {"merge", good, "-o", bad},
    };
    for (const auto& args : verbs) {
        std::string what;
        for (const auto& a : args) what += a + " ";
        SCOPED_TRACE("pathscope " + what);
        const Exit e = cli(args, "verb");
        EXPECT_EQ(e.status, 1) << e.err;
        // One line: the verb, the file, and what is wrong with it.
        EXPECT_EQ(e.err.rfind("pathscope " + args[0] + ": " + bad + ": ", 0), 0u) << e.err;
        EXPECT_NE(e.err.find(kind.reason), std::string::npos) << e.err;
        EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
        EXPECT_TRUE(test::file_bytes(bad) == bytes) << "the refused file was written to";
        for (const char* suffix : {"-wal", "-journal"})
            EXPECT_TRUE(!fs::exists(bad + suffix) || fs::file_size(bad + suffix) == 0)
                << bad + suffix << " left behind";
        EXPECT_FALSE(fs::exists(merged)) << "merge left a half-made output";
        EXPECT_FALSE(fs::exists(out)) << "export wrote output";
    }
}

INSTANTIATE_TEST_SUITE_P(Files, BadStoreTest, ::testing::ValuesIn(test::kBadStores),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- I/O errors ------------------------------------------------------------

struct FailedWrites {
    std::map<std::string, std::string> env;
    std::string report;
};

FailedWrites fail_writes_after(const std::string& store, int n, const std::string& report) {
    fs::remove(report);
    std::string asan = std::getenv("ASAN_OPTIONS") ? std::getenv("ASAN_OPTIONS") : "";
    // The shim comes before the sanitizer runtime in the library list.
    asan += (asan.empty() ? "" : ":") + std::string("verify_asan_link_order=0");
    return {{{"LD_PRELOAD", PATHSCOPE_FAIL_WRITES},
             {"FAIL_WRITES_PATH", fs::absolute(store).string()},
             {"FAIL_WRITES_AFTER", std::to_string(n)},
             {"FAIL_WRITES_REPORT", report},
             {"ASAN_OPTIONS", asan}},
            report};
}

class IoErrorTest : public StoreFaultsTest, public ::testing::WithParamInterface<int> {
  protected:
    /// After a failed write: the store passes quick_check, the earlier run
    /// reads back with show, list shows what the failure left running as
    /// aborted (writing nothing), and the next writer marks it so.
    void expect_intact(const std::string& db) {
        EXPECT_EQ(quick_check(db), "ok");
        const Exit show = cli({"show", "earlier", "--db", db}, "show");
        EXPECT_EQ(show.status, 0) << show.err;
        EXPECT_NE(show.out.find("earlier"), std::string::npos) << show.out;
        const Exit list = cli({"list", "--db", db}, "list");
        EXPECT_EQ(list.status, 0) << list.err;
        EXPECT_EQ(list.out.find(" running "), std::string::npos) << list.out;
        db::open_store(db, db::Database::Mode::read_write);  // as the next capture opens it
        db::Database raw(db, db::Database::Mode::read_only);
        EXPECT_EQ(raw.scalar("SELECT count(*) FROM runs WHERE status = 'running'"), 0)
            << "the next writer left the failed run marked running";
    }
};

// A capture whose store starts failing writes after N of them: here 0 fails
// the check of --db before the engine starts, 10 the writer's open, 20 the
// run's row, 40 and 120 batches in the trials (or the last copy of the WAL
// into the file). A whole capture makes 330-400 writes on an idle machine,
// but only about 160 under ASan beside a fuzzer, where the writer groups the
// batches that queue into fewer commits. Exit 1 with the store named and the
// disk's error, and the store intact.
TEST_P(IoErrorTest, DuringACapture) {
    const int n = GetParam();
    const std::string db = store_with_a_run("eio.db");
    const auto failing = fail_writes_after(db, n, dir_file("failed.txt"));
    const Exit e = cli({"run", scenario(), "--db", db, "--label", "failing"}, "failing", failing.env);
    const std::string failed = test::file_bytes(failing.report);
    ASSERT_FALSE(failed.empty()) << "no write failed after " << n << ": raise nothing, lower N";
    std::printf("after %d writes: first failure %s", n, failed.substr(0, failed.find('\n') + 1).c_str());
    EXPECT_EQ(e.status, 1) << e.err;
    EXPECT_NE(e.err.find(db + ": disk I/O error"), std::string::npos) << e.err;
    EXPECT_NE(e.err.find("check the device"), std::string::npos) << e.err;
    expect_intact(db);
}

// An import whose store starts failing after N writes.
TEST_P(IoErrorTest, DuringAnImport) {
    const int n = GetParam() / 4;
    const std::string db = store_with_a_run("eio.db");
    const auto failing = fail_writes_after(db, n, dir_file("failed.txt"));
    const Exit e = cli({"import", "folded", folded(3000), "--db", db, "--label", "failing"},
                       "failing", failing.env);
    const std::string failed = test::file_bytes(failing.report);
    ASSERT_FALSE(failed.empty()) << "no write failed after " << n;
    EXPECT_EQ(e.status, 1) << e.err;
    EXPECT_NE(e.err.find(db + ": disk I/O error"), std::string::npos) << e.err;
    expect_intact(db);
}

INSTANTIATE_TEST_SUITE_P(AfterWrites, IoErrorTest, ::testing::Values(0, 10, 20, 40, 120),
                         [](const auto& info) { return std::to_string(info.param); });

}  // namespace
