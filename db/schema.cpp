#include "db/schema.h"
#include "db/server_store.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <vector>

#include "db/tables.h"

namespace pathscope::db {

namespace {

// migrations[v] takes a store from user_version v to v + 1. Never edit one
// that has shipped: add the next, and change the tables (db/tables.cpp) to
// match what it leaves; a fresh store is made from those at kSchemaVersion.
const std::vector<const char*> kMigrations = {
    // 0 -> 1: the first schema.
    R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  label TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'capture',
  status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'aborted')),
  scenario_path TEXT NOT NULL DEFAULT '',
  scenario_text TEXT NOT NULL DEFAULT '',
  settings TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  cpu_model TEXT NOT NULL DEFAULT '',
  tsc_hz INTEGER NOT NULL DEFAULT 0,
  engine_version TEXT NOT NULL DEFAULT '',
  git_revision TEXT NOT NULL DEFAULT '',
  pid INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL,
  ended_at TEXT NOT NULL DEFAULT '',
  trials INTEGER NOT NULL DEFAULT 0,
  trial_seconds REAL NOT NULL DEFAULT 0,
  interval_seconds REAL NOT NULL DEFAULT 0,
  pmu TEXT NOT NULL DEFAULT '',
  note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_label ON runs(label);
CREATE TABLE trials (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  seconds REAL NOT NULL,
  received INTEGER NOT NULL, delivered INTEGER NOT NULL, forwarded INTEGER NOT NULL,
  replied INTEGER NOT NULL, dropped INTEGER NOT NULL, sent INTEGER NOT NULL,
  rx_pps REAL NOT NULL, forwarded_pps REAL NOT NULL, delivered_pps REAL NOT NULL,
  PRIMARY KEY (run_id, trial)
) WITHOUT ROWID;
CREATE TABLE intervals (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL, seq INTEGER NOT NULL, t REAL NOT NULL,
  received INTEGER NOT NULL, delivered INTEGER NOT NULL, forwarded INTEGER NOT NULL,
  replied INTEGER NOT NULL, dropped INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, seq)
) WITHOUT ROWID;
CREATE TABLE stage_counters (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  seq INTEGER NOT NULL,  -- -1: trial total; otherwise the interval's delta
  stage TEXT NOT NULL,
  ord INTEGER NOT NULL,  -- the stage's place in the engine's graph
  calls INTEGER NOT NULL, packets INTEGER NOT NULL, cycles INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, seq, stage)
) WITHOUT ROWID;
CREATE TABLE queue_counters (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  seq INTEGER NOT NULL,  -- -1: trial total; otherwise the interval's delta
  port TEXT NOT NULL, queue INTEGER NOT NULL, dir TEXT NOT NULL CHECK (dir IN ('rx', 'tx')),
  packets INTEGER NOT NULL, bytes INTEGER NOT NULL, bursts INTEGER NOT NULL,
  empty_polls INTEGER NOT NULL, full INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, seq, port, queue, dir)
) WITHOUT ROWID;
CREATE TABLE drops (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL, path TEXT NOT NULL, reason TEXT NOT NULL, stage TEXT NOT NULL,
  packets INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, path, reason)
) WITHOUT ROWID;
-- One log-linear bucket layout everywhere (common/histogram.h).
CREATE TABLE histograms (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL, unit TEXT NOT NULL,
  count INTEGER NOT NULL, sum INTEGER NOT NULL, min INTEGER NOT NULL, max INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, kind, subject)
) WITHOUT ROWID;
CREATE TABLE histogram_buckets (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL,
  bucket INTEGER NOT NULL, count INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, kind, subject, bucket)
) WITHOUT ROWID;
CREATE TABLE perf_counters (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL, event TEXT NOT NULL, supported INTEGER NOT NULL,
  value INTEGER NOT NULL, time_enabled INTEGER NOT NULL, time_running INTEGER NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, trial, event)
) WITHOUT ROWID;
-- Interned frames and stacks: a stack is its leaf frame plus its parent stack.
CREATE TABLE frames (
  id INTEGER PRIMARY KEY, symbol TEXT NOT NULL, module TEXT NOT NULL,
  UNIQUE (symbol, module)
);
CREATE TABLE stacks (
  id INTEGER PRIMARY KEY,
  parent INTEGER NOT NULL,  -- 0: a root frame
  frame INTEGER NOT NULL REFERENCES frames(id),
  UNIQUE (parent, frame)
);
CREATE TABLE stack_samples (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL, event TEXT NOT NULL, stack INTEGER NOT NULL REFERENCES stacks(id),
  weight INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, event, stack)
) WITHOUT ROWID;
CREATE TABLE packet_traces (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL, seq INTEGER NOT NULL, t REAL NOT NULL,
  port TEXT NOT NULL, wire_len INTEGER NOT NULL, data BLOB NOT NULL,
  stage_cycles TEXT NOT NULL,  -- "stage=cycles" pairs in path order, space separated
  outcome TEXT NOT NULL,  -- forwarded, replied, delivered, or "dropped: REASON"
  PRIMARY KEY (run_id, trial, seq)
) WITHOUT ROWID;
CREATE TABLE facts (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
)sql",
    // 1 -> 2: idle calls kept apart from busy ones (cycles per packet over busy
    // calls only), the worker's idle walks, and the packets of the rate window.
    // A v1 trial's window packets follow from its rate and window.
    R"sql(
ALTER TABLE stage_counters ADD COLUMN idle_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE stage_counters ADD COLUMN idle_cycles INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN window_received INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN walks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN idle_walks INTEGER NOT NULL DEFAULT 0;
UPDATE trials SET window_received = CAST(round(rx_pps * seconds) AS INTEGER);
)sql",
    // 2 -> 3: sampled stacks per interval (seq), so that a time range has its
    // own flame graph. Older samples cover their whole trial (seq -1).
    R"sql(
CREATE TABLE stack_samples_v3 (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  seq INTEGER NOT NULL DEFAULT -1,  -- the interval; -1: the whole trial
  event TEXT NOT NULL, stack INTEGER NOT NULL REFERENCES stacks(id),
  weight INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, seq, event, stack)
) WITHOUT ROWID;
INSERT INTO stack_samples_v3 (run_id, trial, seq, event, stack, weight)
  SELECT run_id, trial, -1, event, stack, weight FROM stack_samples;
DROP TABLE stack_samples;
ALTER TABLE stack_samples_v3 RENAME TO stack_samples;
)sql",
    // 3 -> 4: experiments (a matrix's cells are runs sharing one experiment
    // id, each with its cell's settings) and the send path of each trial.
    R"sql(
ALTER TABLE runs ADD COLUMN experiment TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN cell TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_experiment ON runs(experiment);
ALTER TABLE trials ADD COLUMN sends INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN sent_pps REAL NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN window_sent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN route_lookups INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN source_selections INTEGER NOT NULL DEFAULT 0;
ALTER TABLE intervals ADD COLUMN sent INTEGER NOT NULL DEFAULT 0;
)sql",
    // 4 -> 5: the engine's path events per trial (rules, demux, translations).
    R"sql(
CREATE TABLE trial_events (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  name TEXT NOT NULL,
  value INTEGER NOT NULL DEFAULT 0,
  window_value INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, trial, name)
) WITHOUT ROWID;
)sql",
    // 5 -> 6: packets per edge of the stage graph (the Path page), per
    // trial (seq -1) and interval like the stage counters.
    R"sql(
CREATE TABLE edge_counters (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  from_stage TEXT NOT NULL,
  to_stage TEXT NOT NULL,
  packets INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, seq, from_stage, to_stage)
) WITHOUT ROWID;
)sql",
    // 6 -> 7: several worker lcores (engine.workers). Stage and edge counters
    // and per-call histograms are kept per worker (a worker column in their
    // keys, declared with the key; older rows are worker 0, the only one),
    // and each worker's ledger per trial. Readers sum a run's workers.
    R"sql(
CREATE TABLE stage_counters_v7 (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  stage TEXT NOT NULL,
  worker INTEGER NOT NULL DEFAULT 0,
  ord INTEGER NOT NULL,
  calls INTEGER NOT NULL, packets INTEGER NOT NULL, cycles INTEGER NOT NULL,
  idle_calls INTEGER NOT NULL DEFAULT 0,
  idle_cycles INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, trial, seq, stage, worker)
) WITHOUT ROWID;
INSERT INTO stage_counters_v7 (run_id, trial, seq, stage, ord, calls, packets, cycles,
                               idle_calls, idle_cycles)
  SELECT run_id, trial, seq, stage, ord, calls, packets, cycles, idle_calls, idle_cycles
  FROM stage_counters;
DROP TABLE stage_counters;
ALTER TABLE stage_counters_v7 RENAME TO stage_counters;
CREATE TABLE edge_counters_v7 (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  from_stage TEXT NOT NULL,
  to_stage TEXT NOT NULL,
  worker INTEGER NOT NULL DEFAULT 0,
  packets INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, seq, from_stage, to_stage, worker)
) WITHOUT ROWID;
INSERT INTO edge_counters_v7 (run_id, trial, seq, from_stage, to_stage, packets)
  SELECT run_id, trial, seq, from_stage, to_stage, packets FROM edge_counters;
DROP TABLE edge_counters;
ALTER TABLE edge_counters_v7 RENAME TO edge_counters;
CREATE TABLE histograms_v7 (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL,
  worker INTEGER NOT NULL DEFAULT 0,
  unit TEXT NOT NULL,
  count INTEGER NOT NULL, sum INTEGER NOT NULL, min INTEGER NOT NULL, max INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, kind, subject, worker)
) WITHOUT ROWID;
INSERT INTO histograms_v7 (run_id, trial, kind, subject, unit, count, sum, min, max)
  SELECT run_id, trial, kind, subject, unit, count, sum, min, max FROM histograms;
DROP TABLE histograms;
ALTER TABLE histograms_v7 RENAME TO histograms;
CREATE TABLE histogram_buckets_v7 (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL,
  worker INTEGER NOT NULL DEFAULT 0,
  bucket INTEGER NOT NULL, count INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, kind, subject, worker, bucket)
) WITHOUT ROWID;
INSERT INTO histogram_buckets_v7 (run_id, trial, kind, subject, bucket, count)
  SELECT run_id, trial, kind, subject, bucket, count FROM histogram_buckets;
DROP TABLE histogram_buckets;
ALTER TABLE histogram_buckets_v7 RENAME TO histogram_buckets;
CREATE TABLE IF NOT EXISTS worker_trials (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  worker INTEGER NOT NULL,
  lcore INTEGER NOT NULL,
  received INTEGER NOT NULL, delivered INTEGER NOT NULL, forwarded INTEGER NOT NULL,
  replied INTEGER NOT NULL, dropped INTEGER NOT NULL, sent INTEGER NOT NULL,
  walks INTEGER NOT NULL, idle_walks INTEGER NOT NULL, sends INTEGER NOT NULL,
  window_received INTEGER NOT NULL, window_forwarded INTEGER NOT NULL,
  window_delivered INTEGER NOT NULL, window_sent INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, worker)
) WITHOUT ROWID;
)sql",
    // 7 -> 8: each receive queue's own eth_rx calls and cycles (one eth_rx
    // instance per queue), and the worker lcore of every queue (engine.workers).
    R"sql(
ALTER TABLE queue_counters ADD COLUMN calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queue_counters ADD COLUMN cycles INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queue_counters ADD COLUMN idle_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queue_counters ADD COLUMN idle_cycles INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queue_counters ADD COLUMN worker INTEGER NOT NULL DEFAULT 0;
)sql",
    // 8 -> 9: each trial's block (interleaved experiments pair by it), the
    // trials a re-run replaced, what the machine took from the workers over
    // the window (trial_threads: per thread), and the cost of stage timing.
    R"sql(
ALTER TABLE trials ADD COLUMN block INTEGER NOT NULL DEFAULT -1;
ALTER TABLE trials ADD COLUMN replaced INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN window_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN steal_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN others_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN max_disturbance REAL NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN timer_cycles REAL NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN timing_period INTEGER NOT NULL DEFAULT 1;
CREATE TABLE IF NOT EXISTS trial_threads (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  role TEXT NOT NULL,
  idx INTEGER NOT NULL,
  tid INTEGER NOT NULL,
  cpu INTEGER NOT NULL,
  cpu_ns INTEGER NOT NULL,
  wait_ns INTEGER NOT NULL,
  involuntary INTEGER NOT NULL,
  voluntary INTEGER NOT NULL,
  PRIMARY KEY (run_id, trial, role, idx)
) WITHOUT ROWID;
)sql",
    // 9 -> 10: the workers' interrupted calls over the window (the time the
    // engine kept out of its stage cycles).
    R"sql(
ALTER TABLE trial_threads ADD COLUMN interrupted_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trial_threads ADD COLUMN interrupted_ns INTEGER NOT NULL DEFAULT 0;
)sql",
};

}  // namespace

bool capture_process_gone(const std::string& host, int64_t pid) {
    return host == host_name() && pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 &&
           errno == ESRCH;
}

std::string hex_id(int64_t id) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%08llX", static_cast<unsigned long long>(id) & 0xffffffffULL);
    return buf;
}

std::string host_name() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
    return buf;
}

int recover_stale_runs(Database& db) {
    // A capture is looked for by its pid on this host and, on a server, by
    // its run's lock from any host (server_store.h); the pid answers first
    // when the capture was just killed here (its server session ends a
    // moment later).
    const bool server = db.backend() == Backend::postgres;
    Statement q = db.prepare(server ? running_runs_sql()
                                    : "SELECT id, host, pid FROM runs WHERE status = 'running'");
    std::vector<int64_t> stale;
    while (q.step())
        if (capture_process_gone(q.text(1), q.i64(2)) || (server && q.i64(3) == 0))
            stale.push_back(q.i64(0));
    if (stale.empty()) return 0;
    Statement u = db.prepare(
        "UPDATE runs SET status = 'aborted', note = CASE note WHEN '' THEN "
        "'the capture process ended without closing the run (killed?)' ELSE note END "
        "WHERE id = ?1 AND status = 'running'");
    for (int64_t id : stale) u.bind(1, id).run();
    return static_cast<int>(stale.size());
}

void migrate(Database& db, int to_version) {
    if (to_version > kSchemaVersion)
        throw DbError(db.path() + ": no migration to schema version " + std::to_string(to_version));
    while (db.scalar("PRAGMA user_version") < to_version) {
        Transaction tx(db);
        // Read again under the write lock: another capture may have
        // migrated the store since the read above.
        const int64_t v = db.scalar("PRAGMA user_version");
        if (v >= to_version) break;
        db.exec(kMigrations[static_cast<size_t>(v)]);
        db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
        db.exec("PRAGMA user_version = " + std::to_string(v + 1));
        tx.commit();
    }
}

namespace {

/// Reads a big-endian number of `n` bytes at `at`.
uint32_t be(const unsigned char* p, int at, int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) v = v << 8 | p[at + i];
    return v;
}

/// Refuses an SQLite file shorter than its own header says (a copy cut
/// short, a disk that filled while it was copied), before SQLite reads or
/// writes a page of it. A store with a WAL or a hot journal beside it is
/// left to SQLite: its header may not describe the file until SQLite has
/// recovered it.
void refuse_truncated(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec || size < 100) return;  // SQLite judges what is not a database header
    for (const char* beside : {"-wal", "-journal"})
        if (const auto n = fs::file_size(path + beside, ec); !ec && n > 0) return;
    unsigned char h[100] = {};
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return;
    const size_t got = std::fread(h, 1, sizeof h, f);
    std::fclose(f);
    if (got != sizeof h || std::memcmp(h, "SQLite format 3", 16) != 0) return;
    const uint64_t page = be(h, 16, 2) == 1 ? 65536 : be(h, 16, 2);
    const uint64_t pages = be(h, 28, 4);
    // SQLite trusts the page count only when this pair matches.
    if (be(h, 24, 4) != be(h, 92, 4) || pages == 0) return;
    if (size < page * pages)
        throw DbError(path + ": damaged store: it was cut short (its header says " +
                          std::to_string(pages) + " pages of " + std::to_string(page) +
                          " bytes, " + std::to_string(page * pages) + " bytes, the file holds " +
                          std::to_string(size) +
                          "); copy it again from where it came from, or open another store",
                      SQLITE_CORRUPT);
}

struct StoreHeader {
    int64_t version = 0, tables = 0;
};

/// What open_store refuses before it writes a byte: a file that is not a
/// pathscope store, a damaged one, or one of a newer schema.
StoreHeader read_header(const Database& db, const std::string& path) {
    // One message for every file that is not a store, whoever opens it (the
    // GUI, a read verb, a capture).
    const auto not_a_store = [&](const std::string& why) {
        return DbError(path + ": not a pathscope store (" + why +
                       "); give --db a pathscope store or a new file name");
    };
    int64_t app = 0;
    StoreHeader h;
    try {
        // One snapshot: a capture creating this store at the same moment
        // commits its tables and its application_id together, so the three
        // are read before that commit or after it, never astride it (which
        // read a new store as another application's: tables, but id 0).
        const ReadSnapshot snapshot(db);
        app = db.scalar("PRAGMA application_id");
        h.version = db.scalar("PRAGMA user_version");
        h.tables = db.scalar("SELECT count(*) FROM sqlite_schema");
    } catch (const DbError& e) {
        if (e.code() == SQLITE_NOTADB) throw not_a_store("not an SQLite database");
        if (e.code() == SQLITE_CORRUPT)
            throw DbError(path + ": damaged store: " + sqlite3_errstr(SQLITE_CORRUPT) +
                              " (its table list cannot be read: cut short or overwritten); copy "
                              "it again from where it came from, or open another store",
                          SQLITE_CORRUPT);
        throw;
    }
    if (app != kApplicationId && !(app == 0 && h.tables == 0))
        throw not_a_store("an SQLite database of another application: application_id " +
                          hex_id(app) + ", pathscope's is " + hex_id(kApplicationId) +
                          " (\"PSCP\")");
    if (h.version > kSchemaVersion)
        throw DbError(path + ": written by a newer pathscope (schema version " +
                      std::to_string(h.version) + ", this build reads up to " +
                      std::to_string(kSchemaVersion) + "); upgrade pathscope to read it");
    return h;
}

}  // namespace

void check_store(const std::string& path) {
    if (is_server_store(path)) return check_server_store(path);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0) return;
    refuse_truncated(path);
    const Database db(path, Database::Mode::read_only);
    read_header(db, path);
}

namespace {
/// An older store, read without a byte written to it: a private copy
/// (VACUUM INTO reads one snapshot, WAL included), migrated, opened read-only
/// and unlinked at once (the open connection keeps it until it closes).
/// Whoever mailed the store keeps a file their pathscope still reads.
std::unique_ptr<Database> migrated_copy(const Database& old, const std::string& path) {
    // mkstemp's template: it replaces the six X's with a unique suffix.
    std::string name = (std::filesystem::temp_directory_path() / "pathscope-read-XXXXXX").string();
    const int fd = mkstemp(name.data());
    if (fd < 0)
        throw DbError(path + ": cannot make a private copy to read this older store in " +
                      std::filesystem::temp_directory_path().string() + ": " +
                      std::strerror(errno));
    ::close(fd);  // an empty file: VACUUM INTO fills it
    struct Unlink {
        std::string name;
        ~Unlink() { ::unlink(name.c_str()); }
    } unlink_copy{name};
    old.connection().exec("VACUUM INTO '" + name + "'");  // mkstemp's name holds no quote
    {
        Database copy(name, Database::Mode::read_write);
        migrate(copy, kSchemaVersion);
    }
    return std::make_unique<Database>(name, Database::Mode::read_only, path);
}
}  // namespace

std::unique_ptr<Database> open_store(const std::string& path, Database::Mode mode,
                                     Create create) {
    if (is_server_store(path)) return open_server_store(path, mode, create);
    const bool may_create = mode == Database::Mode::read_write && create == Create::if_new;
    if (!may_create && !std::filesystem::exists(path))
        throw DbError(path + ": no such store (pathscope run --db " + path +
                      " records into a new one; --db names another)");
    refuse_truncated(path);
    auto db = std::make_unique<Database>(path, mode);
    const auto [version, tables] = read_header(*db, path);
    // Reading never makes a store of an empty file.
    if (tables == 0 && !may_create)
        throw DbError(path + ": empty file, not a pathscope store yet (capture into it first)");
    if (mode == Database::Mode::read_only) {
        if (version < kSchemaVersion) return migrated_copy(*db, path);
        return db;
    }
    db->exec("PRAGMA journal_mode = WAL");
    db->exec("PRAGMA synchronous = NORMAL");
    db->exec("PRAGMA foreign_keys = ON");
    if (tables == 0) {
        Transaction tx(*db);
        // Another process may have made the store since the count above.
        if (db->scalar("SELECT count(*) FROM sqlite_schema") == 0) {
            db->exec(create_schema_sql());
            db->exec("PRAGMA application_id = " + std::to_string(kApplicationId));
            db->exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
        }
        tx.commit();
    }
    migrate(*db, kSchemaVersion);
    recover_stale_runs(*db);
    return db;
}

}  // namespace pathscope::db
