// The store: schema and migrations, refusal of foreign and newer files on
// real SQLite files; batch round trips, labels, dead runs, merge and readers
// during a capture on both back ends (an SQLite file and a PostgreSQL
// database, tests/support/store_backends.h).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <tuple>
#include <thread>

#include "analysis/figures/run_metrics.h"
#include "analysis/trees/flame_tree.h"
#include "db/merge.h"
#include "db/queries.h"
#include "db/schema.h"
#include "db/tables.h"
#include "db/writer.h"
#include "tests/support/german_locale.h"
#include "tests/support/setup_skip.h"
#include "tests/support/store_backends.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace pathscope::db;

namespace {

// What only an SQLite file has: its header, migrations, WAL and damage.
class StoreTest : public ::testing::Test {
  protected:
    std::string file(const std::string& name) const { return dir_.file(name); }
    pathscope::test::TempDir dir_{"store"};
};

// The rest: the same bodies on a file and on a server store.
class AnyStore : public pathscope::test::StoreBackends {};
PATHSCOPE_ON_BOTH_BACKENDS(AnyStore);

RunInfo sample_run(const std::string& label) {
    RunInfo r;
    r.label = label;
    r.host = host_name();
    r.pid = getpid();
    r.trials = 1;
    return r;
}

Batch sample_batch(int trial) {
    Batch b;
    b.trials.push_back({trial, 1.5, 100, 20, 70, 5, 5, 0, 66.7, 46.7, 13.3});
    b.stages.push_back({trial, -1, "eth_rx", 0, 10, 100, 5000});
    b.stages.push_back({trial, -1, "ip6_input", 1, 9, 100, 1500});
    b.edges.push_back({trial, -1, "eth_rx", "ip6_input", 100});
    b.edges.push_back({trial, -1, "ip6_input", "drop", 5});
    b.edges.push_back({trial, 0, "eth_rx", "ip6_input", 60});
    b.queues.push_back({trial, -1, "wire", 0, "rx", 100, 6400, 10, 3, 0});
    b.drops.push_back({trial, "ip6_bad_version", "ip6_input", "receive", 5});
    b.histograms.push_back(
        {trial, "stage_call_cycles", "eth_rx", "cycles", 10, 5000, 300, 700, {{70, 4}, {75, 6}}});
    b.perf.push_back({trial, "perf::task-clock", true, 123456, 1000, 1000, ""});
    b.perf.push_back({trial, "perf::cycles", false, 0, 0, 0, "not supported by this PMU"});
    b.stacks.push_back({trial, "cpu-clock", {{"main", "pathscope"}, {"walk", "pathscope"}}, 7});
    b.stacks.push_back({trial, "cpu-clock", {{"main", "pathscope"}, {"poll", "libfoo.so"}}, 3});
    b.traces.push_back({trial,
                        1,
                        0.25,
                        "wire",
                        64,
                        std::vector<uint8_t>(64, 0xab),
                        {{"eth_rx", 40.5}, {"ip6_input", 12.0}},
                        "dropped: ip6_bad_version"});
    b.facts.emplace_back("packets", "100");
    b.events.push_back({trial, "demux_hits", 40, 30});
    return b;
}

}  // namespace

TEST_F(StoreTest, NewStoreHasApplicationIdVersionAndWal) {
    const auto path = file("new.db");
    { auto db = open_store(path, Database::Mode::read_write); }
    Database raw(path, Database::Mode::read_only);
    EXPECT_EQ(raw.scalar("PRAGMA application_id"), kApplicationId);
    EXPECT_EQ(raw.scalar("PRAGMA user_version"), kSchemaVersion);
    auto s = raw.prepare("PRAGMA journal_mode");
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.text(0), "wal");
}

TEST_F(StoreTest, MigratesAnOlderVersionForward) {
    // An empty SQLite file is schema version 0: opening it read-write applies
    // every migration; read-only asks for that first.
    const auto path = file("old.db");
    {
        Database raw(path, Database::Mode::read_write);
        raw.exec("PRAGMA user_version = 0");
    }
    EXPECT_THROW(open_store(path, Database::Mode::read_only), DbError);
    { auto db = open_store(path, Database::Mode::read_write); }
    auto db = open_store(path, Database::Mode::read_only);
    EXPECT_EQ(db->scalar("PRAGMA user_version"), kSchemaVersion);
    EXPECT_EQ(db->scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'runs'"), 1);
}

// Writes and reads name their columns: a later migration that adds a column
// (with a default) to every table must not break either.
TEST_F(StoreTest, AnAddedColumnBreaksNeitherWritesNorReads) {
    const auto path = file("future.db");
    {
        auto db = open_store(path, Database::Mode::read_write);
        for (const char* t : {"runs", "trials", "intervals", "stage_counters", "queue_counters",
                              "drops", "histograms", "histogram_buckets", "perf_counters",
                              "frames", "stacks", "stack_samples", "packet_traces", "facts",
                              "trial_events", "edge_counters"})
            db->exec(std::string("ALTER TABLE ") + t + " ADD COLUMN future INTEGER NOT NULL DEFAULT 7");
    }
    Batch b = sample_batch(0);
    b.stages[0].idle_calls = 4;
    b.stages[0].idle_cycles = 1200;
    b.trials[0].window_received = 90;
    b.trials[0].walks = 11;
    b.trials[0].idle_walks = 5;
    int64_t id = 0;
    {
        RunWriter w(path, sample_run("future"));
        id = w.run().id;
        w.submit(b);
        w.finish("complete");
    }
    auto db = open_store(path, Database::Mode::read_only);
    const RunData d = load_run(*db, id);
    ASSERT_EQ(d.rows.trials.size(), 1u);
    EXPECT_EQ(d.rows.trials[0].received, 100u);
    EXPECT_EQ(d.rows.trials[0].window_received, 90u);
    EXPECT_EQ(d.rows.trials[0].idle_walks, 5u);
    ASSERT_EQ(d.rows.stages.size(), 2u);
    EXPECT_EQ(d.rows.stages[0].cycles, 5000u);
    EXPECT_EQ(d.rows.stages[0].idle_cycles, 1200u);
    EXPECT_EQ(d.rows.stacks.size(), 2u);
    EXPECT_EQ(d.rows.traces.size(), 1u);
    ASSERT_EQ(d.rows.events.size(), 1u);
    EXPECT_EQ(d.rows.events[0].name, "demux_hits");
    EXPECT_EQ(d.rows.events[0].value, 40u);
    EXPECT_EQ(d.rows.events[0].window_value, 30u);
}

// A v2 store (stacks for whole trials) opens as v3 with its stacks kept,
// marked as belonging to no interval.
/// A complete run of one sample trial in the store at `path`; returns its id.
int64_t write_sample_run(const std::string& path, const std::string& label) {
    RunWriter w(path, sample_run(label));
    w.submit(sample_batch(0));
    w.finish("complete");
    return w.run().id;
}

/// Takes a store written now back to schema v3: without the path events
/// table of migration 4 -> 5, the experiment and send-path columns that
/// migration 3 -> 4 adds, the queue cycles of migration 7 -> 8 and the
/// trial conditions of migration 8 -> 9.
void downgrade_to_v3(Database& raw) {
    raw.exec(
        "DROP TABLE edge_counters; DROP TABLE trial_events; DROP INDEX runs_experiment; ALTER TABLE runs DROP COLUMN experiment; "
        "ALTER TABLE runs DROP COLUMN cell; ALTER TABLE trials DROP COLUMN sends; "
        "ALTER TABLE trials DROP COLUMN sent_pps; ALTER TABLE trials DROP COLUMN window_sent; "
        "ALTER TABLE trials DROP COLUMN route_lookups; "
        "ALTER TABLE trials DROP COLUMN source_selections; ALTER TABLE intervals DROP COLUMN sent; "
        "ALTER TABLE queue_counters DROP COLUMN calls; ALTER TABLE queue_counters DROP COLUMN cycles; "
        "ALTER TABLE queue_counters DROP COLUMN idle_calls; "
        "ALTER TABLE queue_counters DROP COLUMN idle_cycles; "
        "ALTER TABLE queue_counters DROP COLUMN worker; "
        "DROP TABLE trial_threads; ALTER TABLE trials DROP COLUMN block; "
        "ALTER TABLE trials DROP COLUMN replaced; ALTER TABLE trials DROP COLUMN window_ns; "
        "ALTER TABLE trials DROP COLUMN steal_ns; ALTER TABLE trials DROP COLUMN others_ns; "
        "ALTER TABLE trials DROP COLUMN max_disturbance; "
        "ALTER TABLE trials DROP COLUMN timer_cycles; "
        "ALTER TABLE trials DROP COLUMN timing_period; "
        "PRAGMA user_version = 3");
}

TEST_F(StoreTest, VersionThreeRunsReadAsOutsideAnyExperimentWithNoSends) {
    const auto path = file("v3.db");
    const int64_t id = write_sample_run(path, "old");
    {
        Database raw(path, Database::Mode::read_write);
        downgrade_to_v3(raw);
    }
    auto db = open_store(path, Database::Mode::read_write);
    EXPECT_EQ(db->scalar("PRAGMA user_version"), kSchemaVersion);
    const RunData d = load_run(*db, id);
    EXPECT_EQ(d.info.experiment, "");
    EXPECT_EQ(d.info.cell, "");
    ASSERT_EQ(d.rows.trials.size(), 1u);
    EXPECT_EQ(d.rows.trials[0].sends, 0u);
    EXPECT_EQ(d.rows.trials[0].received, 100u);
    // New runs in the migrated store carry their experiment.
    RunInfo cell = sample_run("cell");
    cell.experiment = "abc123";
    cell.cell = "engine.route_cache=on";
    int64_t cid = 0;
    {
        RunWriter w(path, cell);
        cid = w.run().id;
        w.finish("complete");
    }
    const auto runs = experiment_runs(*db, "abc1");
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].id, cid);
    EXPECT_EQ(experiment_runs(*db, std::to_string(cid))[0].cell, "engine.route_cache=on");
    EXPECT_THROW(experiment_runs(*db, std::to_string(id)), DbError);  // not in an experiment
}

// A store someone mailed, of an older schema: reading it (list, show,
// report) leaves every byte as it was, so their older pathscope still reads
// it; the reader sees it migrated.
TEST_F(StoreTest, ReadingAnOlderStoreNeverWritesIt) {
    const auto path = file("mailed.db");
    const int64_t id = write_sample_run(path, "old");
    {
        Database raw(path, Database::Mode::read_write);
        downgrade_to_v3(raw);
        raw.exec("PRAGMA journal_mode = DELETE");
    }
    auto bytes = [&] {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const std::string before = bytes();
    {
        auto db = open_store(path, Database::Mode::read_only, Create::never);
        EXPECT_EQ(db->scalar("PRAGMA user_version"), kSchemaVersion);
        const RunData d = load_run(*db, id);
        ASSERT_EQ(d.rows.trials.size(), 1u);
        EXPECT_EQ(d.rows.trials[0].received, 100u);
        EXPECT_EQ(list_runs(*db).size(), 1u);
    }
    EXPECT_EQ(bytes(), before) << "reading the store changed it";
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
    Database raw(path, Database::Mode::read_only);
    EXPECT_EQ(raw.scalar("PRAGMA user_version"), 3);
}

TEST_F(StoreTest, VersionTwoStacksSurviveTheMigration) {
    const auto path = file("v2.db");
    const int64_t id = write_sample_run(path, "old");
    {
        Database raw(path, Database::Mode::read_write);
        raw.exec(
            "CREATE TABLE old_samples (run_id INTEGER NOT NULL, trial INTEGER NOT NULL, event TEXT "
            "NOT NULL, stack INTEGER NOT NULL, weight INTEGER NOT NULL, PRIMARY KEY (run_id, trial, "
            "event, stack)) WITHOUT ROWID;"
            "INSERT INTO old_samples SELECT run_id, trial, event, stack, weight FROM stack_samples;"
            "DROP TABLE stack_samples; ALTER TABLE old_samples RENAME TO stack_samples;");
        downgrade_to_v3(raw);
        raw.exec("PRAGMA user_version = 2");
    }
    auto db = open_store(path, Database::Mode::read_write);
    EXPECT_EQ(db->scalar("PRAGMA user_version"), kSchemaVersion);
    const RunData d = load_run(*db, id);
    ASSERT_EQ(d.rows.stacks.size(), 2u);
    EXPECT_EQ(d.rows.stacks[0].seq, -1);
    EXPECT_EQ(d.rows.stacks[0].weight + d.rows.stacks[1].weight, 10u);
}

/// Everything SQLite says about a store's tables: each column (type, NOT
/// NULL, default, key place), each index and its columns, each foreign key,
/// and whether the table has a rowid. Not the CREATE text: a migrated
/// table's text is what ALTER TABLE made of it.
std::string table_shapes(const std::string& path) {
    Database raw(path, Database::Mode::read_only);
    std::string out;
    auto dump = [&](const std::string& what, const char* sql, int columns) {
        Statement s = raw.prepare(sql);
        while (s.step()) {
            out += what;
            for (int c = 0; c < columns; ++c) out += "|" + s.text(c);
            out += "\n";
        }
    };
    dump("table",
         "SELECT name, type, wr, strict FROM pragma_table_list WHERE schema = 'main' AND name "
         "NOT LIKE 'sqlite_%' ORDER BY name",
         4);
    dump("column",
         "SELECT m.name, p.cid, p.name, p.type, p.\"notnull\", p.dflt_value, p.pk FROM "
         "sqlite_schema m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' ORDER BY "
         "m.name, p.cid",
         7);
    dump("index",
         "SELECT m.name, il.name, il.\"unique\", il.origin, il.partial, ii.seqno, ii.name FROM "
         "sqlite_schema m JOIN pragma_index_list(m.name) il JOIN pragma_index_info(il.name) ii "
         "WHERE m.type = 'table' ORDER BY m.name, il.name, ii.seqno",
         7);
    dump("foreign key",
         "SELECT m.name, f.\"table\", f.\"from\", f.\"to\", f.on_delete FROM sqlite_schema m "
         "JOIN pragma_foreign_key_list(m.name) f WHERE m.type = 'table' ORDER BY m.name, f.id",
         5);
    return out;
}

// A fresh store is made from the column lists (db/tables.cpp) at this
// version; an old one is upgraded by the shipped migrations. The two must
// be the same store, or a migrated store reads and writes differently.
TEST_F(StoreTest, AFreshStoreAndOneMigratedFromVersionOneAreTheSame) {
    const auto fresh = file("fresh.db"), old = file("from-v1.db");
    { auto db = open_store(fresh, Database::Mode::read_write); }
    {
        Database raw(old, Database::Mode::read_write);
        migrate(raw, 1);
        EXPECT_EQ(raw.scalar("PRAGMA user_version"), 1);
        EXPECT_EQ(raw.scalar("SELECT count(*) FROM pragma_table_info('trials') WHERE name = "
                             "'window_received'"),
                  0);  // really version 1
    }
    { auto db = open_store(old, Database::Mode::read_write); }
    const std::string a = table_shapes(fresh), b = table_shapes(old);
    EXPECT_NE(a.find("column|trials|19|source_selections|INTEGER|1|0|0"), std::string::npos) << a;
    EXPECT_NE(a.find("index|runs|runs_experiment"), std::string::npos) << a;
    // Lines of one that the other lacks (the whole dumps are long).
    auto lacking = [](const std::string& x, const std::string& y) {
        std::istringstream in(x);
        std::string line, out;
        while (std::getline(in, line))
            if (("\n" + y).find("\n" + line + "\n") == std::string::npos) out += line + "\n";
        return out;
    };
    EXPECT_EQ(lacking(a, b), "") << "the fresh store has these, the migrated one not";
    EXPECT_EQ(lacking(b, a), "") << "the migrated store has these, the fresh one not";
    // And both hold the same rows through the same writer and reader.
    const int64_t fa = write_sample_run(fresh, "a"), fb = write_sample_run(old, "a");
    auto da = open_store(fresh, Database::Mode::read_only);
    auto db = open_store(old, Database::Mode::read_only);
    EXPECT_EQ(load_run(*da, fa).rows.rows(), load_run(*db, fb).rows.rows());
}

// Each column holds its own field: checked by column name in SQL, not
// through the same list that wrote it.
TEST_P(AnyStore, EachColumnHoldsItsField) {
    const auto path = new_store("fields.db");
    Batch b;
    TrialRow t;
    t.trial = 2;
    t.seconds = 0.8;
    t.received = 101, t.delivered = 102, t.forwarded = 103, t.replied = 104, t.dropped = 105;
    t.sent = 106, t.rx_pps = 107.5, t.forwarded_pps = 108.5, t.delivered_pps = 109.5;
    t.window_received = 110, t.walks = 111, t.idle_walks = 112, t.sends = 113;
    t.sent_pps = 114.5, t.window_sent = 115, t.route_lookups = 116, t.source_selections = 117;
    b.trials.push_back(t);
    b.stages.push_back({2, 3, "udp6_input", 9, 201, 202, 203, 204, 205});
    b.drops.push_back({2, "udp_no_socket", "udp6_input", "send", 301});
    b.perf.push_back({2, "perf::task-clock", true, 401, 402, 403, "multiplexed"});
    b.facts.emplace_back("k", "v");
    RunInfo info = sample_run("fields");
    info.experiment = "e1";
    info.cell = "engine.burst=32";
    info.tsc_hz = 2'000'000'000;
    int64_t id = 0;
    {
        RunWriter w(path, info);
        id = w.run_id();
        w.submit(b);
        w.finish("complete");
    }
    Database raw(path, Database::Mode::read_only);
    auto row = [&](const std::string& sql) {
        Statement s = raw.prepare(sql);
        EXPECT_TRUE(s.step()) << sql;
        return s.text(0);
    };
    EXPECT_EQ(row("SELECT trial || ',' || seconds || ',' || received || ',' || "
                  "delivered || ',' || forwarded || ',' || replied || ',' || dropped || ',' || "
                  "sent || ',' || rx_pps || ',' || forwarded_pps || ',' || delivered_pps || ',' "
                  "|| window_received || ',' || walks || ',' || idle_walks || ',' || sends || "
                  "',' || sent_pps || ',' || window_sent || ',' || route_lookups || ',' || "
                  "source_selections FROM trials"),
              "2,0.8,101,102,103,104,105,106,107.5,108.5,109.5,110,111,112,113,114.5,115,116,117");
    EXPECT_EQ(row("SELECT trial || ',' || seq || ',' || stage || ',' || ord || ',' || calls || "
                  "',' || packets || ',' || cycles || ',' || idle_calls || ',' || idle_cycles "
                  "FROM stage_counters"),
              "2,3,udp6_input,9,201,202,203,204,205");
    EXPECT_EQ(row("SELECT reason || ',' || stage || ',' || path || ',' || packets FROM drops"),
              "udp_no_socket,udp6_input,send,301");
    EXPECT_EQ(row("SELECT event || ',' || supported || ',' || value || ',' || time_enabled || "
                  "',' || time_running || ',' || note FROM perf_counters"),
              "perf::task-clock,1,401,402,403,multiplexed");
    EXPECT_EQ(row("SELECT label || ',' || status || ',' || tsc_hz || ',' || experiment || ',' "
                  "|| cell FROM runs"),
              "fields,complete,2000000000,e1,engine.burst=32");
    EXPECT_EQ(raw.scalar("SELECT id FROM runs"), id);
    EXPECT_EQ(row("SELECT key || '=' || value FROM facts"), "k=v");
}

// Read verbs open stores with Create::never: a missing or empty file stays
// as it was, refused with the message the GUI gives (read-only opens).
TEST_F(StoreTest, OpeningToReadMakesNoStoreOfAnEmptyOrMissingFile) {
    const auto empty = file("empty.db"), missing = file("missing.db"), text = file("text.db");
    std::ofstream(empty).close();
    std::ofstream(text) << "not a database at all, only text that is long enough to have a "
                           "header.............................................................";
    auto message = [](const std::string& path, Database::Mode mode, Create create) {
        try {
            open_store(path, mode, create);
        } catch (const DbError& e) {
            return std::string(e.what());
        }
        return std::string("opened");
    };
    const std::string gui = message(empty, Database::Mode::read_only, Create::if_new);
    EXPECT_EQ(gui, empty + ": empty file, not a pathscope store yet (capture into it first)");
    EXPECT_EQ(message(empty, Database::Mode::read_write, Create::never), gui);
    EXPECT_EQ(fs::file_size(empty), 0u);
    EXPECT_FALSE(fs::exists(empty + "-wal"));
    for (auto mode : {Database::Mode::read_only, Database::Mode::read_write}) {
        const std::string m = message(missing, mode, Create::never);
        EXPECT_EQ(m.find(missing + ": no such store"), 0u) << m;
        EXPECT_FALSE(fs::exists(missing));
        const std::string t = message(text, mode, Create::never);
        EXPECT_EQ(t, text + ": not a pathscope store (not an SQLite database); give --db a "
                            "pathscope store or a new file name");
    }
    // Writers still make a store of an empty file.
    EXPECT_EQ(message(empty, Database::Mode::read_write, Create::if_new), "opened");
    EXPECT_EQ(message(empty, Database::Mode::read_only, Create::never), "opened");
}

// The GUI's live view polls data_version: it moves when another connection
// commits, and stays while nothing is written.
TEST_P(AnyStore, DataVersionMovesWhenAnotherConnectionCommits) {
    const auto path = new_store("live.db");
    write_sample_run(path, "first");
    auto reader = open_store(path, Database::Mode::read_only);
    const int64_t before = data_version(*reader);
    EXPECT_EQ(data_version(*reader), before);
    write_sample_run(path, "second");
    EXPECT_NE(data_version(*reader), before);
}

TEST_F(StoreTest, RefusesAForeignApplicationId) {
    const auto path = file("foreign.db");
    {
        Database raw(path, Database::Mode::read_write);
        raw.exec("PRAGMA application_id = 1234; CREATE TABLE t (x)");
    }
    try {
        open_store(path, Database::Mode::read_write);
        FAIL() << "a foreign store was opened";
    } catch (const DbError& e) {
        EXPECT_NE(std::string(e.what()).find("not a pathscope store"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    Database raw(path, Database::Mode::read_only);  // and it is left as it was
    EXPECT_EQ(raw.scalar("PRAGMA application_id"), 1234);
}

TEST_F(StoreTest, RefusesANewerSchemaVersion) {
    const auto path = file("newer.db");
    {
        auto db = open_store(path, Database::Mode::read_write);
        db->exec("PRAGMA user_version = 99");
    }
    try {
        open_store(path, Database::Mode::read_write);
        FAIL() << "a newer store was opened";
    } catch (const DbError& e) {
        EXPECT_NE(std::string(e.what()).find("newer pathscope"), std::string::npos) << e.what();
    }
}

TEST_F(StoreTest, RefusesAFileThatIsNotSqlite) {
    const auto path = file("text.db");
    std::ofstream(path) << "this is not a database, just some text that is long enough......\n"
                        << std::string(200, 'x');
    EXPECT_THROW(open_store(path, Database::Mode::read_write), DbError);
    EXPECT_THROW(open_store(file("missing.db"), Database::Mode::read_only), DbError);
}

TEST_P(AnyStore, BatchRoundTrip) {
    const auto path = new_store("rt.db");
    int64_t id = 0;
    {
        RunWriter w(path, sample_run("base"));
        id = w.run_id();
        w.submit(sample_batch(0));
        w.finish("complete");
        EXPECT_EQ(w.batches_written(), 1u);
    }
    auto db = open_store(path, Database::Mode::read_only);
    const RunData d = load_run(*db, id);
    EXPECT_EQ(d.info.label, "base");
    EXPECT_EQ(d.info.status, "complete");
    EXPECT_FALSE(d.info.ended_at.empty());
    ASSERT_EQ(d.rows.trials.size(), 1u);
    EXPECT_EQ(d.rows.trials[0].forwarded, 70u);
    ASSERT_EQ(d.rows.stages.size(), 2u);
    EXPECT_EQ(d.rows.stages[0].stage, "eth_rx");  // graph order, not alphabetical
    // Edges: the trial totals, then the interval's delta.
    ASSERT_EQ(d.rows.edges.size(), 3u);
    EXPECT_EQ(d.rows.edges[0].seq, -1);
    EXPECT_EQ(d.rows.edges[0].from, "eth_rx");
    EXPECT_EQ(d.rows.edges[0].to, "ip6_input");
    EXPECT_EQ(d.rows.edges[0].packets, 100u);
    EXPECT_EQ(d.rows.edges[2].seq, 0);
    EXPECT_EQ(d.rows.edges[2].packets, 60u);
    ASSERT_EQ(d.rows.histograms.size(), 1u);
    EXPECT_EQ(d.rows.histograms[0].buckets.size(), 2u);
    EXPECT_EQ(d.rows.histograms[0].max, 700u);
    ASSERT_EQ(d.rows.stacks.size(), 2u);
    EXPECT_EQ(d.rows.stacks[0].weight, 7u);
    ASSERT_EQ(d.rows.stacks[0].frames.size(), 2u);
    EXPECT_EQ(d.rows.stacks[0].frames[0].symbol, "main");
    EXPECT_EQ(d.rows.stacks[0].frames[1].symbol, "walk");
    EXPECT_EQ(db->scalar("SELECT count(*) FROM frames"), 3);  // "main" interned once
    ASSERT_EQ(d.rows.traces.size(), 1u);
    EXPECT_EQ(d.rows.traces[0].data.size(), 64u);
    ASSERT_EQ(d.rows.traces[0].stage_cycles.size(), 2u);
    EXPECT_DOUBLE_EQ(d.rows.traces[0].stage_cycles[0].second, 40.5);
    EXPECT_EQ(d.rows.traces[0].outcome, "dropped: ip6_bad_version");
    EXPECT_EQ(d.rows.perf.size(), 2u);
    EXPECT_EQ(find_run(*db, "base").id, id);
    EXPECT_EQ(find_run(*db, std::to_string(id)).label, "base");
    EXPECT_THROW(find_run(*db, "nope"), DbError);
}

// A label means its latest run, and says which it took; label@N and ids
// pick older ones (the README's sections record the same labels twice).
// A store written and read under a locale whose decimal point is a comma
// (the GUI's, set by Qt from the environment) holds and gives the same
// numbers as under "C": every REAL column of a server store (sent as text)
// and a packet trace's stage cycles ("eth_rx=40.5").
TEST_P(AnyStore, NumbersReadTheSameUnderAGermanLocale) {
    const auto path = new_store("de.db");
    int64_t id = 0;
    {
        RunWriter w(path, sample_run("de"));
        id = w.run_id();
        Batch b = sample_batch(0);
        b.trials[0].max_disturbance = 0.025;
        b.trials[0].timer_cycles = 47.75;
        w.submit(std::move(b));
        w.finish("complete");
    }
    RunData in_c;
    {
        auto db = open_store(path, Database::Mode::read_only);
        in_c = load_run(*db, id);
    }
    PATHSCOPE_GERMAN_LOCALE(de);
    int64_t written_de = 0;
    {
        RunWriter w(path, sample_run("written under de_DE"));
        written_de = w.run_id();
        w.submit(sample_batch(0));
        w.finish("complete");
    }
    auto db = open_store(path, Database::Mode::read_only);
    for (const int64_t run : {id, written_de}) {
        const RunData d = load_run(*db, run);
        ASSERT_EQ(d.rows.trials.size(), 1u);
        EXPECT_DOUBLE_EQ(d.rows.trials[0].seconds, 1.5);
        EXPECT_DOUBLE_EQ(d.rows.trials[0].rx_pps, 66.7);
        EXPECT_DOUBLE_EQ(d.rows.trials[0].forwarded_pps, 46.7);
        ASSERT_EQ(d.rows.traces.size(), 1u);
        ASSERT_EQ(d.rows.traces[0].stage_cycles.size(), 2u) << "a stage's cycles were dropped";
        EXPECT_DOUBLE_EQ(d.rows.traces[0].stage_cycles[0].second, 40.5);
        EXPECT_DOUBLE_EQ(d.rows.traces[0].stage_cycles[1].second, 12.0);
        EXPECT_DOUBLE_EQ(d.rows.traces[0].t, 0.25);
    }
    const RunData again = load_run(*db, id);
    EXPECT_DOUBLE_EQ(again.rows.trials[0].max_disturbance, in_c.rows.trials[0].max_disturbance);
    EXPECT_DOUBLE_EQ(again.rows.trials[0].timer_cycles, 47.75);
}

TEST_P(AnyStore, ALabelMeansItsLatestRunAndSaysSo) {
    const auto path = new_store("amb.db");
    for (int i = 0; i < 2; ++i) {
        RunWriter w(path, sample_run("same"));
        w.finish("complete");
    }
    auto db = open_store(path, Database::Mode::read_only);
    std::string note;
    EXPECT_EQ(find_run(*db, "same", &note).id, 2);
    EXPECT_NE(note.find("names runs 1, 2; taking the latest, run 2"), std::string::npos) << note;
    EXPECT_EQ(find_run(*db, "same@1").id, 1);
    EXPECT_EQ(find_run(*db, "same@2").id, 2);
    EXPECT_EQ(find_run(*db, "1").label, "same");
    try {
        find_run(*db, "same@3");
        FAIL();
    } catch (const DbError& e) {
        EXPECT_NE(std::string(e.what()).find("names 2 run(s), so there is no same@3"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(find_run(*db, "7"), DbError);
    // The same rule over a listed store, without a connection (the GUI's run list).
    const auto runs = list_runs(*db);
    EXPECT_EQ(pick_run(runs, parse_run_ref("same")), 1);
    EXPECT_EQ(pick_run(runs, parse_run_ref("same@1")), 0);
    EXPECT_EQ(pick_run(runs, parse_run_ref("2")), 1);
    EXPECT_EQ(pick_run(runs, parse_run_ref("same@3")), -1);
    EXPECT_EQ(pick_run(runs, parse_run_ref("7")), -1);
    EXPECT_THROW(parse_run_ref("same@0"), DbError);
}

TEST_P(AnyStore, RunOfADeadProcessReopensAsAborted) {
    const auto path = new_store("dead.db");
    {
        auto db = open_store(path, Database::Mode::read_write);
        BatchWriter w(*db);
        RunInfo r = sample_run("ghost");
        r.pid = 999999999;  // no such process
        w.insert_run(r);
    }
    {  // a reader shows it as aborted before anyone stores that
        auto ro = open_store(path, Database::Mode::read_only);
        EXPECT_EQ(list_runs(*ro).at(0).status, "aborted");
        EXPECT_EQ(ro->scalar("SELECT count(*) FROM runs WHERE status = 'running'"), 1);
    }
    auto db = open_store(path, Database::Mode::read_write);
    EXPECT_EQ(db->scalar("SELECT count(*) FROM runs WHERE status = 'aborted'"), 1);
    EXPECT_EQ(list_runs(*db).at(0).status, "aborted");
}

TEST_P(AnyStore, MergeCopiesEachRunOnceAndReinternsStacks) {
    const auto a = new_store("a.db"), b = new_store("b.db"), out = new_store("out.db");
    {
        RunWriter w(a, sample_run("from-a"));
        w.submit(sample_batch(0));
        w.finish("complete");
    }
    {
        RunWriter w(b, sample_run("from-b"));
        Batch extra;  // interns frames in another order than a.db
        extra.stacks.push_back({0, "cpu-clock", {{"other", "x"}, {"main", "pathscope"}}, 1});
        w.submit(std::move(extra));
        w.submit(sample_batch(0));
        w.finish("complete");
    }
    auto r1 = merge_stores({a, b}, out);
    EXPECT_EQ(r1.copied, 2);
    auto r2 = merge_stores({a, b}, out);  // again: nothing new
    EXPECT_EQ(r2.copied, 0);
    EXPECT_EQ(r2.skipped, 2);
    auto db = open_store(out, Database::Mode::read_only);
    const auto runs = list_runs(*db);
    ASSERT_EQ(runs.size(), 2u);
    const RunData d = load_run(*db, find_run(*db, "from-b").id);
    ASSERT_EQ(d.rows.stacks.size(), 3u);
    bool found_walk = false;
    for (const auto& s : d.rows.stacks)
        if (s.frames.size() == 2 && s.frames[0].symbol == "main" && s.frames[1].symbol == "walk") {
            found_walk = true;
            EXPECT_EQ(s.weight, 7u);
        }
    EXPECT_TRUE(found_walk);
    EXPECT_EQ(d.rows.stages.size(), 2u);
    EXPECT_EQ(d.rows.edges.size(), 3u);  // merge copies the edge counters too
    EXPECT_EQ(d.rows.traces.size(), 1u);
}

TEST_F(StoreTest, MergeRefusesAForeignInput) {
    const auto bad = file("bad.db");
    {
        Database raw(bad, Database::Mode::read_write);
        raw.exec("PRAGMA application_id = 7; CREATE TABLE t(x)");
    }
    EXPECT_THROW(merge_stores({bad}, file("out.db")), DbError);
}

// A reader sees whole batches only: every interval it can see has all of its
// stage rows, while a writer commits batch after batch.
TEST_P(AnyStore, ReaderSeesWholeBatchesDuringWrites) {
    const auto path = new_store("concurrent.db");
    RunWriter w(path, sample_run("live"));
    const int64_t id = w.run_id();
    constexpr int kStages = 8, kBatches = 200;
    std::atomic<bool> done{false};
    std::atomic<int> checks{0}, torn{0};
    std::thread reader([&] {
        auto db = open_store(path, Database::Mode::read_only);
        auto q = db->prepare(
            "SELECT (SELECT count(*) FROM intervals WHERE run_id = ?1), "
            "(SELECT count(*) FROM stage_counters WHERE run_id = ?1 AND seq >= 0)");
        while (!done) {
            q.bind(1, id);
            ASSERT_TRUE(q.step());
            if (q.i64(1) != q.i64(0) * kStages) torn++;
            q.reset();
            checks++;
        }
    });
    // The reader must overlap the writes: wait for its first check, and
    // every 20 batches for it to look again, so a busy machine that starts
    // the thread late cannot make the test pass vacuously.
    const auto wait_for_check = [&](int seen) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (checks.load() <= seen && std::chrono::steady_clock::now() < until)
            std::this_thread::yield();
    };
    wait_for_check(0);
    for (int seq = 0; seq < kBatches; ++seq) {
        if (seq % 20 == 0) wait_for_check(checks.load());
        Batch b;
        b.intervals.push_back({0, seq, seq * 0.1, 10, 10, 0, 0, 0});
        for (int s = 0; s < kStages; ++s)
            b.stages.push_back({0, seq, "stage" + std::to_string(s), s, 1, 10, 100});
        w.submit(std::move(b));
    }
    w.finish("complete");
    done = true;
    reader.join();
    EXPECT_GT(checks.load(), kBatches / 20);
    EXPECT_EQ(torn.load(), 0);
    auto db = open_store(path, Database::Mode::read_only);
    EXPECT_EQ(db->scalar("SELECT count(*) FROM intervals"), kBatches);
}

// A damaged store gives an error naming the file, never a crash or garbage.
TEST_F(StoreTest, DamagedStoreGivesAClearError) {
    const auto path = file("damaged.db");
    int64_t id = 0;
    {
        RunWriter w(path, sample_run("soon-damaged"));
        id = w.run_id();
        for (int i = 0; i < 50; ++i) w.submit(sample_batch(i));
        w.finish("complete");
    }
    {  // fold the WAL back in, so the damage lands in the main file
        auto db = open_store(path, Database::Mode::read_write);
        db->exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    const auto size = fs::file_size(path);
    ASSERT_GT(size, 8 * 4096u);
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        // Scribble over every page but the first (the header and schema).
        for (std::streamoff page = 1; page * 4096 < static_cast<std::streamoff>(size); ++page) {
            f.seekp(page * 4096 + 100);
            const std::string junk(600, '\xa5');
            f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
        }
    }
    try {
        auto db = open_store(path, Database::Mode::read_only);
        load_run(*db, id);
        FAIL() << "a damaged store read without an error";
    } catch (const DbError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(path), std::string::npos) << msg;
        EXPECT_TRUE(msg.find("malformed") != std::string::npos ||
                    msg.find("not a database") != std::string::npos)
            << msg;
    }
}

// A live view reads a growing run a piece at a time (load_run_since): the
// pieces, merged, must be the run as one whole read gives it, including a
// trial's last samples, which the recorder adds to its last interval's rows
// when the trial ends, and the stacks re-pointed into one index.
TEST_P(AnyStore, ReadingWhatIsNewAddsUpToTheWholeRun) {
    const auto path = new_store("growing.db");
    RunWriter w(path, sample_run("growing"));
    const int64_t id = w.run_id();
    auto reader = open_store(path, Database::Mode::read_only);
    RunCursor cursor;
    RunData seen;
    int pieces = 0;
    // The live view's stack tree, grown by each piece, is the tree of the
    // whole run so far each time (a trial's re-read stacks build it anew).
    pathscope::analysis::GrowingStackTree growing;
    int trees = 0;
    const auto read_new = [&] {
        w.flush();
        RunDelta d = load_run_since(*reader, id, cursor);
        if (!d.empty()) ++pieces;
        if (!d.replace_stack_trials.empty()) growing.reset();
        merge_run_rows(seen, std::move(d));
        const pathscope::analysis::FlameTree* grown = growing.update(seen);
        if (seen.rows.stacks.empty()) return;
        ASSERT_NE(grown, nullptr);
        const pathscope::analysis::FlameTree built = pathscope::analysis::stack_tree(seen);
        EXPECT_EQ(pathscope::analysis::to_folded(*grown), pathscope::analysis::to_folded(built)) << "piece " << pieces;
        EXPECT_EQ(grown->counted_trials(), built.counted_trials()) << "piece " << pieces;
        EXPECT_EQ(growing.event(), pathscope::analysis::main_stack_event(seen));
        uint64_t samples = 0;
        for (const auto& s : seen.rows.stacks) samples += s.event == growing.event() ? s.weight : 0;
        EXPECT_EQ(growing.samples(), samples);
        ++trees;
    };
    const auto stack = [](int trial, int seq, std::vector<std::string> names, uint64_t weight) {
        StackRow s;
        s.trial = trial;
        s.seq = seq;
        s.event = kCpuTimeEvent;
        s.weight = weight;
        for (auto& n : names) s.frames.push_back({n, "m"});
        return s;
    };
    for (int trial = 0; trial < 2; ++trial) {
        for (int seq = 0; seq < 3; ++seq) {
            Batch b;
            b.intervals.push_back({trial, seq, 0.1 * (seq + 1), 10, 10, 0, 0, 0});
            b.stages.push_back({trial, seq, "eth_rx", 0, 1, 10, 100});
            b.stacks.push_back(stack(trial, seq, {"main", "walk", "rx"}, 2));
            b.stacks.push_back(stack(trial, seq, {"main", "walk", "tx" + std::to_string(seq)}, 1));
            w.submit(std::move(b));
            read_new();
        }
        Batch end;  // what only the end of a trial gives
        TrialRow t;
        t.trial = trial;
        t.received = 30;
        end.trials.push_back(t);
        end.stages.push_back({trial, -1, "eth_rx", 0, 3, 30, 300});
        end.drops.push_back({trial, "ip6_hop_limit", "ip6_input", "receive", 4});
        end.stacks.push_back(stack(trial, 2, {"main", "walk", "rx"}, 5));  // the tail
        end.facts.emplace_back("trial" + std::to_string(trial) + ".samples", "12");
        w.submit(std::move(end));
        read_new();
        read_new();  // nothing new: nothing changes
    }
    w.finish("complete");
    read_new();
    EXPECT_EQ(pieces, 8);  // 6 intervals, 2 trial ends (the status comes with the info)
    EXPECT_EQ(trees, 11);   // every read, the empty ones too

    const RunData whole = load_run(*reader, id);
    EXPECT_EQ(seen.info.status, "complete");
    EXPECT_EQ(seen.rows.trials.size(), whole.rows.trials.size());
    EXPECT_EQ(seen.rows.intervals.size(), 6u);
    EXPECT_EQ(seen.rows.stages.size(), whole.rows.stages.size());
    EXPECT_EQ(seen.rows.drops.size(), 2u);
    EXPECT_EQ(seen.rows.facts, whole.rows.facts);
    // Each sampled stack with its weight, by its frames through the index.
    const auto stacks_of = [](const RunData& r) {
        std::multiset<std::tuple<int, int, std::string, uint64_t>> out;
        for (const auto& s : r.rows.stacks) {
            std::string path;
            for (int32_t n = s.node; n >= 0; n = r.stack_index.nodes[static_cast<size_t>(n)].parent)
                path = r.stack_index.frames[static_cast<size_t>(r.stack_index.nodes[static_cast<size_t>(n)].frame)].symbol +
                       (path.empty() ? "" : ";") + path;
            out.emplace(s.trial, s.seq, path, s.weight);
        }
        return out;
    };
    EXPECT_EQ(stacks_of(seen), stacks_of(whole));
    EXPECT_EQ(stacks_of(seen).count({1, 2, "main;walk;rx", 7}), 1u);  // 2 + the tail's 5
    EXPECT_EQ(seen.stack_index.nodes.size(), whole.stack_index.nodes.size());
    // Each row's own frames (expand_stacks) are its path in the index, for
    // the stacks a later piece found placed already too.
    std::multiset<std::tuple<int, int, std::string, uint64_t>> expanded;
    for (const auto& s : seen.rows.stacks) {
        std::string path;
        for (const auto& f : s.frames) path += (path.empty() ? "" : ";") + f.symbol;
        expanded.emplace(s.trial, s.seq, path, s.weight);
    }
    EXPECT_EQ(expanded, stacks_of(whole));
    // A piece read with another cursor does not follow these rows.
    RunCursor other;
    EXPECT_THROW(merge_run_rows(seen, load_run_since(*reader, id, other)), std::logic_error);
}

// The Experiments page reads each cell for its figures alone: no stack or
// trace rows (most of a sampled cell's rows), and every figure the same.
TEST_P(AnyStore, AFiguresOnlyReadLeavesOutStacksAndTracesAndNoFigure) {
    const auto path = new_store("figures.db");
    int64_t id = 0;
    {
        RunWriter w(path, sample_run("sampled"));
        id = w.run_id();
        for (int trial = 0; trial < 2; ++trial) {
            Batch b;
            TrialRow t;
            t.trial = trial;
            t.seconds = 1;
            t.received = t.window_received = 1000 + 100 * static_cast<uint64_t>(trial);
            t.rx_pps = static_cast<double>(t.received);
            b.trials.push_back(t);
            b.stages.push_back({trial, -1, "eth_rx", 0, 10, t.received, 50'000 + 7'000 * static_cast<uint64_t>(trial)});
            for (int k = 0; k < 50; ++k) {
                StackRow s;
                s.trial = trial;
                s.seq = 0;
                s.event = kCpuTimeEvent;
                s.weight = 1;
                s.frames = {{"main", "m"}, {"f" + std::to_string(k), "m"}};
                b.stacks.push_back(std::move(s));
            }
            PacketTraceRow tr;
            tr.trial = trial;
            tr.port = "p0";
            tr.outcome = "forwarded";
            b.traces.push_back(tr);
            w.submit(std::move(b));
        }
        w.finish("complete");
    }
    auto db = open_store(path, Database::Mode::read_only);
    const RunData whole = load_run(*db, id);
    const RunData figures = load_run(*db, id, {.expand_stacks = false, .stacks_and_traces = false});
    ASSERT_EQ(whole.rows.stacks.size(), 100u);
    ASSERT_EQ(whole.rows.traces.size(), 2u);
    EXPECT_TRUE(figures.rows.stacks.empty());
    EXPECT_TRUE(figures.rows.traces.empty());
    EXPECT_EQ(figures.rows.trials.size(), whole.rows.trials.size());
    EXPECT_EQ(figures.rows.stages.size(), whole.rows.stages.size());
    const auto a = pathscope::analysis::run_metrics(whole), b = pathscope::analysis::run_metrics(figures);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].name, b[i].name);
        EXPECT_EQ(a[i].values, b[i].values) << a[i].name;
    }
}

// A store is hostile input: one whose runs are an endless view stops with an
// error naming it once a statement has used its budget, instead of hanging
// the verb (or the GUI) that reads it.
TEST_F(StoreTest, AnEndlessQueryEndsInAnErrorNamingTheStore) {
    const auto path = file("endless.db");
    {
        auto db = open_store(path, Database::Mode::read_write);
        db->exec(
            "ALTER TABLE runs RENAME TO runs_real; CREATE VIEW runs AS WITH RECURSIVE c(x) AS "
            "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT r.* FROM (SELECT count(*) AS n "
            "FROM c) AS k CROSS JOIN runs_real AS r WHERE k.n < 0");
    }
    auto db = open_store(path, Database::Mode::read_only);
    db->set_query_budget(20'000'000);  // a fraction of a second, not the default minute
    try {
        list_runs(*db);
        FAIL() << "an endless view was read to its end";
    } catch (const DbError& e) {
        EXPECT_EQ(e.code(), SQLITE_INTERRUPT);
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("budget"), std::string::npos) << e.what();
    }
    // The connection stays usable: the next statement has its own budget.
    EXPECT_EQ(db->scalar("SELECT count(*) FROM runs_real"), 0);
}

// SQLite's defensive mode is on for every connection: SQL cannot rewrite the
// schema of a store it reads (a hostile store's own statements neither).
TEST_F(StoreTest, ConnectionsAreDefensive) {
    const auto path = file("defensive.db");
    auto db = open_store(path, Database::Mode::read_write);
    db->exec("PRAGMA writable_schema = ON");
    EXPECT_THROW(db->exec("UPDATE sqlite_schema SET sql = 'CREATE TABLE runs (x)' WHERE name = 'runs'"),
                 DbError);
    EXPECT_EQ(db->scalar("SELECT count(*) FROM pragma_trusted_schema WHERE trusted_schema = 0"), 1);
    EXPECT_EQ(db->scalar("PRAGMA cell_size_check"), 1);
}
