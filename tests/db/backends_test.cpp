// The same store tests on both back ends: an SQLite file and a database of
// a real PostgreSQL cluster (tests/support/pg_cluster.h). Writing and
// reading runs, labels, live reads of a growing run, dead captures, merges
// between any two stores, many writers at once, refusals, and a server
// URL's password kept out of every message.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "db/merge.h"
#include "db/queries.h"
#include "db/schema.h"
#include "db/writer.h"
#include "tests/support/pg_cluster.h"
#include "tests/support/setup_skip.h"
#include "tests/support/store_backends.h"
#include "tests/support/temp_dir.h"

using namespace pathscope::db;
using pathscope::test::PgCluster;

namespace {

RunInfo sample_run(const std::string& label) {
    RunInfo r;
    r.label = label;
    r.host = host_name();
    r.pid = getpid();
    r.trials = 2;
    return r;
}

Batch sample_batch(int trial) {
    Batch b;
    b.trials.push_back({trial, 1.5, 100, 20, 70, 5, 5, 0, 66.7, 46.7, 13.3});
    b.intervals.push_back({trial, 0, 0.5, 60, 10, 45, 3, 2, 0});
    b.stages.push_back({trial, -1, "eth_rx", 0, 10, 100, 5000});
    b.stages.push_back({trial, -1, "ip6_input", 1, 9, 100, 1500});
    b.stages.push_back({trial, 0, "eth_rx", 0, 6, 60, 3000});
    b.edges.push_back({trial, -1, "eth_rx", "ip6_input", 100});
    b.queues.push_back({trial, -1, "wire", 0, "rx", 100, 6400, 10, 3, 0});
    b.drops.push_back({trial, "ip6_bad_version", "ip6_input", "receive", 5});
    b.histograms.push_back(
        {trial, "stage_call_cycles", "eth_rx", "cycles", 10, 5000, 300, 700, {{70, 4}, {75, 6}}});
    b.perf.push_back({trial, "perf::task-clock", true, 123456, 1000, 1000, ""});
    // The largest counters a run can hold, and a double that needs all 17 digits.
    b.perf.push_back({trial, "perf::big", true, UINT64_MAX - 1, UINT64_MAX, 1, "edge"});
    b.stacks.push_back({trial, "cpu-clock", {{"main", "pathscope"}, {"walk", "pathscope"}}, 7});
    b.stacks.push_back({trial, "cpu-clock", {{"main", "pathscope"}, {"poll", "libfoo.so"}}, 3});
    b.traces.push_back({trial, 1, 0.1 + 0.2, "wire", 64, std::vector<uint8_t>{0, 1, 0xff, 0x5c, 0x78},
                        {{"eth_rx", 40.5}, {"ip6_input", 12.0}}, "dropped: ip6_bad_version"});
    b.facts.emplace_back("packets", "100");
    b.events.push_back({trial, "demux_hits", 40, 30});
    return b;
}

std::unique_ptr<Database> open_existing_or_throw(const std::string& store) {
    return open_store(store, Database::Mode::read_write, Create::never);
}

int64_t write_run(const std::string& store, const std::string& label, int trials = 2) {
    RunWriter w(store, sample_run(label));
    for (int t = 0; t < trials; ++t) w.submit(sample_batch(t));
    w.finish("complete");
    return w.run_id();
}

class Backends : public pathscope::test::StoreBackends {};

}  // namespace

PATHSCOPE_ON_BOTH_BACKENDS(Backends);

TEST_P(Backends, ARunReadsBackAsItWasWritten) {
    const std::string store = new_store();
    const int64_t id = write_run(store, "round");
    auto db = open_store(store, Database::Mode::read_only, Create::never);
    EXPECT_EQ(db->backend(), GetParam());
    const RunData d = load_run(*db, id);
    EXPECT_EQ(d.info.label, "round");
    EXPECT_EQ(d.info.status, "complete");
    ASSERT_EQ(d.rows.trials.size(), 2u);
    EXPECT_EQ(d.rows.trials[1].received, 100u);
    EXPECT_DOUBLE_EQ(d.rows.trials[0].rx_pps, 66.7);
    ASSERT_EQ(d.rows.perf.size(), 4u);
    bool big = false;
    for (const auto& p : d.rows.perf)
        if (p.event == "perf::big") {
            big = true;
            EXPECT_EQ(p.value, UINT64_MAX - 1);
            EXPECT_EQ(p.time_enabled, UINT64_MAX);
        }
    EXPECT_TRUE(big);
    ASSERT_EQ(d.rows.traces.size(), 2u);
    EXPECT_EQ(d.rows.traces[0].t, 0.1 + 0.2);  // every bit of a double
    EXPECT_EQ(d.rows.traces[0].data, (std::vector<uint8_t>{0, 1, 0xff, 0x5c, 0x78}));
    ASSERT_EQ(d.rows.histograms.size(), 2u);
    EXPECT_EQ(d.rows.histograms[0].buckets.size(), 2u);
    uint64_t weight = 0;
    for (const auto& s : d.rows.stacks) weight += s.weight;
    EXPECT_EQ(weight, 20u);
    ASSERT_EQ(d.rows.facts.size(), 1u);
    EXPECT_EQ(d.rows.facts[0].second, "100");
}

TEST_P(Backends, LabelsAndListsNameTheSameRuns) {
    const std::string store = new_store();
    write_run(store, "a");
    const int64_t second = write_run(store, "b");
    const int64_t latest = write_run(store, "a");
    auto db = open_store(store, Database::Mode::read_only, Create::never);
    const auto runs = list_runs(*db);
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[1].id, second);
    EXPECT_EQ(find_run(*db, "a").id, latest);
    EXPECT_EQ(find_run(*db, "a@1").id, runs[0].id);
    EXPECT_EQ(trials_recorded(*db).at(second), 2);
    EXPECT_THROW(find_run(*db, "nosuch"), DbError);
}

TEST_P(Backends, AReaderOfAGrowingRunSeesWholeBatchesAndDataVersionMoves) {
    const std::string store = new_store();
    RunWriter w(store, sample_run("live"));
    auto db = open_store(store, Database::Mode::read_only, Create::never);
    const int64_t v0 = data_version(*db);
    w.submit(sample_batch(0));
    w.flush();
    EXPECT_NE(data_version(*db), v0);
    RunCursor cursor;
    RunData seen = load_run_since(*db, w.run_id(), cursor).data;
    EXPECT_EQ(seen.rows.trials.size(), 1u);
    EXPECT_EQ(seen.info.status, "running");
    w.submit(sample_batch(1));
    w.finish("complete");
    RunDelta more = load_run_since(*db, w.run_id(), cursor);
    EXPECT_EQ(more.data.rows.trials.size(), 1u);
    merge_run_rows(seen, std::move(more));
    const RunData whole = load_run(*db, w.run_id());
    EXPECT_EQ(seen.rows.trials.size(), whole.rows.trials.size());
    EXPECT_EQ(seen.rows.intervals.size(), whole.rows.intervals.size());
    EXPECT_EQ(seen.info.status, "complete");
}

TEST_P(Backends, ARunOfADeadCaptureIsMarkedAbortedByTheNextWrite) {
    const std::string store = new_store();
    {
        auto db = open_store(store, Database::Mode::read_write);
        BatchWriter bw(*db);
        RunInfo r = sample_run("dead");
        r.pid = 999'999'999;  // no such process
        r.status = "running";
        bw.insert_run(r);
    }
    write_run(store, "next");
    auto db = open_store(store, Database::Mode::read_only, Create::never);
    const RunInfo dead = find_run(*db, "dead");
    EXPECT_EQ(dead.status, "aborted");
    EXPECT_NE(dead.note.find("killed?"), std::string::npos);
}

TEST_P(Backends, MergeCopiesToAndFromEitherKindOnce) {
    pathscope::test::TempDir files{"merge"};
    const std::string file = files.file("local.db");
    write_run(file, "from-file");
    const std::string store = new_store();
    write_run(store, "from-store");
    MergeResult r = merge_stores({file}, store);
    EXPECT_EQ(r.copied, 1);
    r = merge_stores({file}, store);
    EXPECT_EQ(r.copied, 0);
    EXPECT_EQ(r.skipped, 1);
    // And back into a new file: every row the same.
    const std::string back = files.file("back.db");
    r = merge_stores({store}, back);
    EXPECT_EQ(r.copied, 2);
    auto a = open_store(file, Database::Mode::read_only, Create::never);
    auto b = open_store(back, Database::Mode::read_only, Create::never);
    const RunData x = load_run(*a, find_run(*a, "from-file").id);
    const RunData y = load_run(*b, find_run(*b, "from-file").id);
    EXPECT_EQ(x.info.uuid, y.info.uuid);
    EXPECT_EQ(x.rows.rows(), y.rows.rows());
    ASSERT_EQ(x.rows.stacks.size(), y.rows.stacks.size());
    for (size_t i = 0; i < x.rows.stacks.size(); ++i) {
        EXPECT_EQ(x.rows.stacks[i].weight, y.rows.stacks[i].weight);
        EXPECT_EQ(x.rows.stacks[i].frames.size(), y.rows.stacks[i].frames.size());
    }
}

TEST_P(Backends, FourWritersAtOnceLoseNothing) {
    const std::string store = new_store();
    write_run(store, "first");  // the store exists before they start
    std::vector<std::thread> writers;
    std::atomic<int> failed{0};
    for (int i = 0; i < 4; ++i)
        writers.emplace_back([&, i] {
            try {
                RunWriter w(store, sample_run("w" + std::to_string(i)));
                for (int t = 0; t < 20; ++t) w.submit(sample_batch(t));
                w.finish("complete");
            } catch (const std::exception& e) {
                ADD_FAILURE() << e.what();
                failed++;
            }
        });
    for (auto& t : writers) t.join();
    ASSERT_EQ(failed, 0);
    auto db = open_store(store, Database::Mode::read_only, Create::never);
    const auto runs = list_runs(*db);
    ASSERT_EQ(runs.size(), 5u);
    const auto trials = trials_recorded(*db);
    for (const auto& r : runs) {
        EXPECT_EQ(r.status, "complete");
        EXPECT_EQ(trials.at(r.id), r.label == "first" ? 2 : 20) << r.label;
    }
}

TEST_P(Backends, ReadingNeverMakesAStoreOfAnEmptyOne) {
    const std::string store = new_store();
    if (GetParam() == Backend::sqlite) std::ofstream(store).flush();  // an empty file
    try {
        open_store(store, Database::Mode::read_only, Create::never);
        FAIL() << "an empty store opened to read";
    } catch (const DbError& e) {
        EXPECT_NE(std::string(e.what()).find("not a pathscope store yet"), std::string::npos)
            << e.what();
    }
}

// Server stores only: what a file cannot have.

// A capture on another host cannot be looked for by its pid: its run's lock
// says whether it lives. Alive while its connection is, aborted by the next
// write once that connection ends, whatever host and pid it names.
TEST(ServerStore, ACaptureOfAnotherHostLivesAsLongAsItsConnection) {
    if (!PgCluster::shared().why_not().empty())
        PATHSCOPE_SKIP("no PostgreSQL test cluster: " + PgCluster::shared().why_not());
    const std::string store = PgCluster::shared().new_database();
    write_run(store, "first");
    auto capture = open_store(store, Database::Mode::read_write);
    RunInfo r = sample_run("elsewhere");
    r.host = "another-host";
    r.pid = 1;
    BatchWriter(*capture).insert_run(r);
    const auto status = [&] {
        auto db = open_store(store, Database::Mode::read_write);  // a write's open marks the dead
        return find_run(*db, "elsewhere").status;
    };
    write_run(store, "next");
    EXPECT_EQ(status(), "running");
    capture.reset();  // the capture's process ends, and its server session with it
    // (the server ends the session a moment after the client goes)
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::string now = status();
    while (now == "running" && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        now = status();
    }
    EXPECT_EQ(now, "aborted");
}
TEST(ServerStore, RefusesADatabaseOfAnotherApplication) {
    auto& pg = PgCluster::shared();
    if (!pg.why_not().empty()) PATHSCOPE_SKIP("no PostgreSQL test cluster: " + pg.why_not());
    const std::string url = pg.new_database("foreign");
    const size_t at = url.find("///") + 3;
    const std::string db = url.substr(at, url.find('?') - at);
    ASSERT_EQ(pg.psql(db, "CREATE TABLE orders (id int)"), 0);
    try {
        open_store(url, Database::Mode::read_write);
        FAIL() << "opened a foreign database";
    } catch (const DbError& e) {
        EXPECT_NE(std::string(e.what()).find("not a pathscope store (the database holds 1 tables "
                                             "of another application)"),
                  std::string::npos)
            << e.what();
    }
}

TEST(ServerStore, APasswordNeverShowsInAMessage) {
    auto& pg = PgCluster::shared();
    if (!pg.why_not().empty()) PATHSCOPE_SKIP("no PostgreSQL test cluster: " + pg.why_not());
    const std::string secret = "s3cret-Pa55";
    EXPECT_EQ(redacted("postgresql://writer:" + secret + "@lab/pathscope"),
              "postgresql://writer:***@lab/pathscope");
    EXPECT_EQ(redacted("postgres:///p?host=/tmp&password=" + secret + "&user=x"),
              "postgres:///p?host=/tmp&password=***&user=x");
    // What the GUI keeps to reconnect: no password at all (~/.pgpass has it).
    EXPECT_EQ(without_password("postgresql://writer:" + secret + "@lab/pathscope"),
              "postgresql://writer@lab/pathscope");
    EXPECT_EQ(without_password("postgres:///p?password=" + secret + "&host=/tmp"),
              "postgres:///p?host=/tmp");
    EXPECT_EQ(without_password("postgres:///p?host=/tmp&password=" + secret),
              "postgres:///p?host=/tmp");
    // A wrong database and a refused connection: the message names the
    // store, never the password.
    const std::string bad = "postgresql://nobody:" + secret + "@/nosuchdb?host=" + pg.socket_dir();
    for (auto mode : {Database::Mode::read_only, Database::Mode::read_write}) {
        try {
            open_store(bad, mode);
            FAIL() << "connected to a missing database";
        } catch (const DbError& e) {
            const std::string m = e.what();
            EXPECT_EQ(m.find(secret), std::string::npos) << m;
            EXPECT_NE(m.find("postgresql://nobody:***@/nosuchdb"), std::string::npos) << m;
        }
    }
}

// The README's roles, made by scripts/team_store.sql: the writer captures
// and makes the tables; the reader lists and loads, and cannot write.
TEST(ServerStore, TheWriterWritesAndTheReaderOnlyReads) {
    auto& pg = PgCluster::shared();
    if (!pg.why_not().empty()) PATHSCOPE_SKIP("no PostgreSQL test cluster: " + pg.why_not());
    const std::string db = "team_" + std::to_string(getpid());
    const std::string script = std::string(PATHSCOPE_SOURCE_DIR) + "/scripts/team_store.sql";
    ASSERT_EQ(std::system(("psql -X -q -v ON_ERROR_STOP=1 -h " + pg.socket_dir() +
                           " -U postgres -d postgres -v db=" + db +
                           " -v writer_password=\"'w-secret'\" -v reader_password=\"'r-secret'\""
                           " -f " + script + " >/dev/null")
                              .c_str()),
              0);
    auto url = [&](const std::string& role) {
        return "postgresql://" + role + "@/" + db + "?host=" + pg.socket_dir();
    };
    const int64_t id = write_run(url("pathscope_writer"), "by-writer");
    {
        // A reader's read-write open (list's) neither fails nor writes.
        auto r = open_existing_or_throw(url("pathscope_reader"));
        EXPECT_EQ(load_run(*r, id).info.label, "by-writer");
        EXPECT_NE(data_version(*r), 0);
    }
    try {
        write_run(url("pathscope_reader"), "by-reader");
        FAIL() << "the reader wrote a run";
    } catch (const DbError& e) {
        EXPECT_EQ(e.code(), SQLITE_READONLY) << e.what();
        EXPECT_NE(std::string(e.what()).find("capture with the store's writer role"),
                  std::string::npos)
            << e.what();
    }
}

// A server store announces every committed write (LISTEN/NOTIFY): a reader
// waiting on the socket wakes without polling, and a file store has none.
TEST(ServerStore, AReaderIsToldOfEachCommit) {
    auto& pg = PgCluster::shared();
    if (!pg.why_not().empty()) PATHSCOPE_SKIP("no PostgreSQL test cluster: " + pg.why_not());
    const std::string url = pg.new_database("listen");
    write_run(url, "first");
    auto reader = open_store(url, Database::Mode::read_only, Create::never);
    const int fd = reader->listen_for_changes();
    ASSERT_GE(fd, 0);
    EXPECT_EQ(reader->take_changes(), 0);
    RunWriter w(url, sample_run("live"));  // its run row: a commit
    w.submit(sample_batch(0));
    w.flush();  // and a batch: another
    int told = 0;
    for (int waited = 0; told < 2 && waited < 30'000; waited += 100) {
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, 100);  // the socket wakes the reader; nothing is polled
        told += reader->take_changes();
    }
    EXPECT_GE(told, 2);
    w.finish("complete");
    pathscope::test::TempDir files{"listen"};
    auto file = open_store(files.file("f.db"), Database::Mode::read_write);
    EXPECT_EQ(file->listen_for_changes(), -1);
}
