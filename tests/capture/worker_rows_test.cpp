// A run of two workers through the store, on a real SQLite file: engine
// snapshots built by hand (two WorkerSnapshots and their sum at the top
// level, as engine/snapshot.h promises) become rows (capture/snapshot_rows),
// are written and read back. The merged stage rows must be the workers'
// sums, each worker's rows and ledger kept, the ledgers balanced and adding
// up; `pathscope show --worker N` and `--workers` show them; a v6 store
// reads as one worker; a run of one worker is stored exactly as before.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "analysis/figures/run_summary.h"
#include "analysis/figures/workers.h"
#include "capture/snapshot_rows.h"
#include "db/merge.h"
#include "db/queries.h"
#include "db/schema.h"
#include "db/writer.h"
#include "tests/support/temp_dir.h"

extern char** environ;

using namespace pathscope;
using engine::EngineSnapshot;
using engine::QueueSnapshot;
using engine::StageSnapshot;
using engine::WorkerSnapshot;

namespace {

constexpr uint64_t kHz = 1'000'000'000;

/// A stage whose figures scale with `n` (packets), `cost` cycles each; its
/// per-call histogram holds one value per busy call.
StageSnapshot stage(const std::string& name, uint64_t n, uint64_t cost) {
    StageSnapshot s;
    s.name = name;
    s.calls = n / 4 + 10;
    s.idle_calls = 10;
    s.packets = n;
    s.idle_cycles = 10 * 50;
    s.cycles = n * cost + s.idle_cycles;
    for (uint64_t c = 0; c < n / 4; ++c) s.cycles_per_call.add(4 * cost);
    return s;
}

/// Worker `w` at time `t` (seconds): `per_s` packets a second received on
/// its own queue, of which 1 in 10 dropped and the rest forwarded.
WorkerSnapshot worker(unsigned w, double t, uint64_t per_s) {
    WorkerSnapshot s;
    s.worker = w;
    s.lcore = 2 + w;
    const uint64_t n = static_cast<uint64_t>(t * static_cast<double>(per_s));
    s.walks = n / 4 + 10;
    s.idle_walks = 10;
    s.stages = {stage("eth_rx", n, 40 + w),
                stage("ip6_input", n, 100 + 10 * w), stage("ip6_forward", n - n / 10, 60)};
    s.edges = {{"eth_rx", "ip6_input", n},
               {"ip6_input", "ip6_forward", n - n / 10},
               {"ip6_forward", engine::kWireSink, n - n / 10}};
    s.ledger.received = n;
    s.ledger.forwarded = n - n / 10;
    s.ledger.drops[0] = n / 10;
    return s;
}

/// The engine's snapshot at `t`: its workers and, at the top level, their
/// sums stage by stage (same name), in the engine's stage order.
EngineSnapshot snapshot(double t, unsigned workers) {
    EngineSnapshot e;
    e.tsc_hz = kHz;
    e.tsc = static_cast<uint64_t>(t * kHz);
    for (unsigned w = 0; w < workers; ++w) e.workers.push_back(worker(w, t, 1000 + 500 * w));
    std::map<std::string, size_t> at;
    const auto add_stage = [&](const StageSnapshot& s) {
        auto [it, fresh] = at.try_emplace(s.name, e.stages.size());
        if (fresh) {
            e.stages.push_back(s);
            return;
        }
        StageSnapshot& into = e.stages[it->second];
        into.calls += s.calls, into.packets += s.packets, into.cycles += s.cycles;
        into.idle_calls += s.idle_calls, into.idle_cycles += s.idle_cycles;
        into.cycles_per_call.merge(s.cycles_per_call);
    };
    for (const auto& w : e.workers) {
        for (const auto& st : w.stages) add_stage(st);
        // Its receive queue "in/w", polled by its own eth_rx instance.
        QueueSnapshot& q = e.queues.emplace_back();
        q.port = "in";
        q.queue = static_cast<uint16_t>(w.worker);
        q.worker = w.worker;
        q.packets = w.ledger.received;
        q.calls = w.stages.front().calls;
        q.cycles = w.stages.front().cycles;
        q.idle_calls = w.stages.front().idle_calls;
        q.idle_cycles = w.stages.front().idle_cycles;
    }
    std::map<std::pair<std::string, std::string>, size_t> edge_at;
    for (const auto& w : e.workers) {
        for (const auto& ed : w.edges) {
            auto [it, fresh] = edge_at.try_emplace({ed.from, ed.to}, e.edges.size());
            if (fresh) e.edges.push_back(ed);
            else e.edges[it->second].packets += ed.packets;
        }
        e.walks += w.walks, e.idle_walks += w.idle_walks;
        e.ledger.received += w.ledger.received;
        e.ledger.forwarded += w.ledger.forwarded;
        e.ledger.drops[0] += w.ledger.drops[0];
    }
    return e;
}

capture::RunResult result(unsigned workers) {
    capture::RunResult r;
    r.snapshot = snapshot(2.0, workers);
    r.window_start = snapshot(0.4, workers);
    r.window_end = snapshot(2.0, workers);
    r.seconds = 2.0;
    return r;
}

db::RunInfo run_info(const std::string& label) {
    db::RunInfo info;
    info.label = label;
    info.host = db::host_name();
    info.pid = getpid();
    info.trials = 1;
    info.interval_seconds = 1.0;
    info.tsc_hz = kHz;
    return info;
}

/// Records one trial of `workers` workers (two intervals and its totals)
/// into the store at `path`; returns the run's id.
int64_t record(const std::string& path, unsigned workers) {
    db::RunWriter w(path, run_info("workers" + std::to_string(workers)));
    w.submit(capture::interval_rows(0, 0, 1.0, snapshot(0, workers), snapshot(1.0, workers)));
    w.submit(capture::interval_rows(0, 1, 2.0, snapshot(1.0, workers), snapshot(2.0, workers)));
    w.submit(capture::trial_rows(0, result(workers)));
    w.finish("complete");
    return w.run().id;
}

const db::StageRow* find_stage(const std::vector<db::StageRow>& rows, int seq,
                               const std::string& name, int worker) {
    for (const auto& r : rows)
        if (r.seq == seq && r.stage == name && r.worker == worker) return &r;
    return nullptr;
}

class WorkerRowsTest : public ::testing::Test {
  protected:
    std::string file(const std::string& name) const { return dir_.file(name); }
    /// `pathscope ARGS`: its exit code, and its stdout and stderr together.
    std::pair<int, std::string> cli(std::vector<std::string> args) const {
        args.insert(args.begin(), PATHSCOPE_CLI);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        const std::string out = file("cli.out");
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
        pid_t pid = 0;
        EXPECT_EQ(posix_spawn(&pid, PATHSCOPE_CLI, &fa, nullptr, argv.data(), environ), 0);
        posix_spawn_file_actions_destroy(&fa);
        int status = 0;
        waitpid(pid, &status, 0);
        std::ifstream in(out);
        std::stringstream ss;
        ss << in.rdbuf();
        return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, ss.str()};
    }
    test::TempDir dir_{"workers"};
};

}  // namespace

TEST_F(WorkerRowsTest, MergedStageRowsAreTheWorkersSumsAndEachWorkersRowsAreKept) {
    const auto path = file("two.db");
    const int64_t id = record(path, 2);
    auto db = db::open_store(path, db::Database::Mode::read_only);
    const db::RunData run = db::load_run(*db, id);
    const db::Batch& b = run.rows;
    // Stored per worker only: the sums are made when read.
    EXPECT_EQ(db->scalar("SELECT count(DISTINCT worker) FROM stage_counters"), 2);
    {
        auto check = db->prepare("PRAGMA integrity_check");
        ASSERT_TRUE(check.step());
        EXPECT_EQ(check.text(0), "ok");
    }
    EXPECT_EQ(db->scalar("SELECT count(*) FROM stage_counters WHERE worker = 1 AND seq = -1"), 3);
    const EngineSnapshot end = snapshot(2.0, 2);
    // Totals (seq -1) merged: exactly the engine's top level, stage by stage.
    ASSERT_EQ(std::count_if(b.stages.begin(), b.stages.end(), [](auto& s) { return s.seq == -1; }),
              static_cast<long>(end.stages.size()));
    for (size_t i = 0; i < end.stages.size(); ++i) {
        const StageSnapshot& want = end.stages[i];
        const db::StageRow* got = find_stage(b.stages, -1, want.name, db::kAllWorkers);
        ASSERT_NE(got, nullptr) << want.name;
        EXPECT_EQ(got->ord, static_cast<int>(i)) << want.name;
        EXPECT_EQ(got->calls, want.calls) << want.name;
        EXPECT_EQ(got->packets, want.packets) << want.name;
        EXPECT_EQ(got->cycles, want.cycles) << want.name;
        EXPECT_EQ(got->idle_calls, want.idle_calls) << want.name;
        EXPECT_EQ(got->idle_cycles, want.idle_cycles) << want.name;
    }
    // And each merged row, totals and intervals, is the sum of the workers' rows.
    for (const auto& m : b.stages) {
        uint64_t cycles = 0, packets = 0;
        int workers = 0;
        for (const auto& w : b.worker_stages)
            if (w.trial == m.trial && w.seq == m.seq && w.stage == m.stage)
                cycles += w.cycles, packets += w.packets, ++workers;
        EXPECT_EQ(m.cycles, cycles) << m.stage << " seq " << m.seq;
        EXPECT_EQ(m.packets, packets) << m.stage << " seq " << m.seq;
        EXPECT_EQ(workers, 2) << m.stage;
    }
    // Worker 1's own rows, as its snapshot had them.
    const WorkerSnapshot w1 = worker(1, 2.0, 1500);
    const db::StageRow* ip1 = find_stage(b.worker_stages, -1, "ip6_input", 1);
    ASSERT_NE(ip1, nullptr);
    EXPECT_EQ(ip1->cycles, w1.stages[1].cycles);
    EXPECT_EQ(ip1->ord, 1);  // its place in the engine's stage list (after eth_rx)
    ASSERT_NE(find_stage(b.worker_stages, 1, "eth_rx", 1), nullptr);
    EXPECT_EQ(find_stage(b.worker_stages, 1, "eth_rx", 1)->packets,
              w1.stages[0].packets - worker(1, 1.0, 1500).stages[0].packets);
    // Per-call histograms merged bucket by bucket; each worker's kept.
    const auto merged = analysis::merged_histogram(run, db::kStageCallCycles, "ip6_input");
    analysis::Histogram sum = worker(0, 2.0, 1000).stages[1].cycles_per_call;
    sum.merge(w1.stages[1].cycles_per_call);
    EXPECT_EQ(merged.count(), sum.count());
    EXPECT_EQ(merged.sum(), sum.sum());
    EXPECT_EQ(merged.min(), sum.min());
    EXPECT_EQ(merged.max(), sum.max());
    EXPECT_EQ(merged.counts(), sum.counts());
    EXPECT_EQ(std::count_if(b.worker_histograms.begin(), b.worker_histograms.end(),
                            [](auto& h) { return h.subject == "ip6_input"; }),
              2);
    // Edges merged too: the shared stage's edge carries both workers' packets.
    uint64_t shared = 0;
    for (const auto& e : b.edges)
        if (e.seq == -1 && e.from == "ip6_input" && e.to == "ip6_forward") shared = e.packets;
    EXPECT_EQ(shared, end.edges[1].packets);
    EXPECT_EQ(b.worker_edges.size(), 2u * 3u * 3u);  // 2 workers, 3 edges, totals + 2 intervals
}

TEST_F(WorkerRowsTest, EachWorkersLedgerBalancesAndTheySumToTheRuns) {
    const auto path = file("ledger.db");
    const int64_t id = record(path, 2);
    auto db = db::open_store(path, db::Database::Mode::read_write);
    const db::RunData run = db::load_run(*db, id);
    ASSERT_EQ(run.rows.worker_trials.size(), 2u);
    const db::WorkerTrialRow& w1 = run.rows.worker_trials[1];
    EXPECT_EQ(w1.worker, 1);
    EXPECT_EQ(w1.lcore, 3);
    EXPECT_EQ(w1.received, 3000u);
    EXPECT_EQ(w1.window_received, 3000u - 600u);  // 0.4 s to 2 s at 1500/s
    const auto ledgers = analysis::worker_ledgers(run);
    ASSERT_EQ(ledgers.lines.size(), 2u);
    EXPECT_TRUE(ledgers.all_balanced());
    EXPECT_TRUE(ledgers.sum_matches) << ledgers.mismatch;
    EXPECT_EQ(ledgers.lines[0].received + ledgers.lines[1].received, run.rows.trials[0].received);
    // A worker that lost count is caught, and so is a sum that does not add up.
    db->exec("UPDATE worker_trials SET forwarded = forwarded - 1 WHERE worker = 1");
    const auto broken = analysis::worker_ledgers(db::load_run(*db, id));
    EXPECT_FALSE(broken.lines[1].balanced());
    EXPECT_TRUE(broken.lines[0].balanced());
    EXPECT_FALSE(broken.sum_matches);
    EXPECT_NE(broken.mismatch.find("forwarded"), std::string::npos) << broken.mismatch;
}

TEST_F(WorkerRowsTest, OneWorkersViewIsThatWorkerAlone) {
    const auto path = file("view.db");
    const int64_t id = record(path, 2);
    auto db = db::open_store(path, db::Database::Mode::read_only);
    const db::RunData run = db::load_run(*db, id);
    EXPECT_EQ(analysis::run_workers(run), (std::vector<int>{0, 1}));
    const db::RunData one = analysis::worker_view(run, 1);
    EXPECT_TRUE(one.rows.worker_stages.empty());
    const auto s = analysis::summarize_run(one);
    EXPECT_EQ(s.total.received, 3000u);
    EXPECT_NEAR(s.trials[0].rx_pps, 1500.0, 1e-6);  // its own window rate
    ASSERT_EQ(s.stages.size(), 3u);
    EXPECT_EQ(s.stages[0].name, "eth_rx");
    // Its own receive queue only: the one its eth_rx polls.
    ASSERT_EQ(one.rows.queues.size(), 3u);  // the trial's total and its two intervals'
    for (const auto& q : one.rows.queues) EXPECT_EQ(q.queue, 1) << "seq " << q.seq;
    EXPECT_NEAR(s.stages[1].cycles_per_packet, 110.0, 1e-9);  // worker 1's ip6_input cost
    const auto all = analysis::summarize_run(run);
    EXPECT_EQ(all.worker_stages.size(), 2u);
    // Each receive queue's share of eth_rx, as `show` and the Stages page
    // print it under eth_rx: its calls, and per path packet the two add up.
    ASSERT_EQ(all.rx_queues.size(), 2u);
    EXPECT_EQ(all.rx_queues[0].name, "in/0");
    EXPECT_EQ(all.rx_queues[0].calls + all.rx_queues[1].calls, all.stages[0].calls);
    EXPECT_NEAR(all.rx_queues[0].cycles_per_path_packet + all.rx_queues[1].cycles_per_path_packet,
                all.stages[0].cycles_per_path_packet, 1e-9);
    EXPECT_NEAR(all.rx_queues[1].cycles_per_packet, 41.0, 1e-9);  // worker 1's eth_rx cost
    EXPECT_TRUE(analysis::summarize_run(one).rx_queues.empty()) << "one queue: no split";
    EXPECT_EQ(all.worker_stages[1].lcore, 3);
    EXPECT_THROW(analysis::worker_view(run, 2), std::out_of_range);
    // A merged store keeps the run's workers.
    db::merge_stores({path}, file("merged.db"));
    auto merged = db::open_store(file("merged.db"), db::Database::Mode::read_only);
    const db::RunData copy = db::load_run(*merged, db::list_runs(*merged).front().id);
    EXPECT_EQ(copy.rows.worker_trials.size(), 2u);
    EXPECT_EQ(copy.rows.worker_stages.size(), run.rows.worker_stages.size());
    EXPECT_EQ(analysis::summarize_run(copy).worker_stages.size(), 2u);
}

TEST_F(WorkerRowsTest, OneWorkerIsStoredExactlyAsBefore) {
    // A snapshot of one worker gives the rows a snapshot without the
    // per-worker list gives (what every store before engine.workers holds).
    capture::RunResult with = result(1), without = result(1);
    without.snapshot.workers.clear();
    without.window_start.workers.clear();
    without.window_end.workers.clear();
    const db::Batch a = capture::trial_rows(0, with), b = capture::trial_rows(0, without);
    EXPECT_TRUE(a.worker_stages.empty() && a.worker_edges.empty() && a.worker_trials.empty() &&
                a.worker_histograms.empty());
    ASSERT_EQ(a.stages.size(), b.stages.size());
    EXPECT_EQ(a.rows(), b.rows());
    for (size_t i = 0; i < a.stages.size(); ++i) {
        EXPECT_EQ(a.stages[i].stage, b.stages[i].stage);
        EXPECT_EQ(a.stages[i].cycles, b.stages[i].cycles);
        EXPECT_EQ(a.stages[i].worker, 0);
    }
    const auto path = file("one.db");
    const int64_t id = record(path, 1);
    auto db = db::open_store(path, db::Database::Mode::read_only);
    EXPECT_EQ(db->scalar("SELECT count(*) FROM stage_counters WHERE worker != 0"), 0);
    EXPECT_EQ(db->scalar("SELECT count(*) FROM worker_trials"), 0);
    const db::RunData run = db::load_run(*db, id);
    EXPECT_TRUE(run.rows.worker_stages.empty());
    EXPECT_EQ(analysis::run_workers(run), std::vector<int>{0});
    EXPECT_TRUE(analysis::summarize_run(run).worker_stages.empty());
}

TEST_F(WorkerRowsTest, AVersionSixStoreReadsAsOneWorker) {
    const auto path = file("v6.db");
    {
        db::Database raw(path, db::Database::Mode::read_write);
        db::migrate(raw, 6);
        raw.exec(
            "INSERT INTO runs (id, uuid, label, status, started_at) VALUES (1, 'u6', 'old', "
            "'complete', '2026-01-01T00:00:00Z');"
            "INSERT INTO trials (run_id, trial, seconds, received, delivered, forwarded, replied, "
            "dropped, sent, rx_pps, forwarded_pps, delivered_pps) VALUES (1, 0, 1, 100, 0, 90, 0, "
            "10, 0, 100, 90, 0);"
            "INSERT INTO stage_counters (run_id, trial, seq, stage, ord, calls, packets, cycles) "
            "VALUES (1, 0, -1, 'eth_rx', 0, 30, 100, 4000), (1, 0, -1, 'ip6_input', 1, 25, 100, "
            "9000);"
            "INSERT INTO edge_counters VALUES (1, 0, -1, 'eth_rx', 'ip6_input', 100);"
            "INSERT INTO histograms VALUES (1, 0, 'stage_call_cycles', 'ip6_input', 'cycles', 25, "
            "9000, 300, 400);"
            "INSERT INTO histogram_buckets VALUES (1, 0, 'stage_call_cycles', 'ip6_input', 70, "
            "25);");
    }
    auto db = db::open_store(path, db::Database::Mode::read_write);
    EXPECT_EQ(db->scalar("PRAGMA user_version"), db::kSchemaVersion);
    EXPECT_EQ(db->scalar("SELECT count(*) FROM stage_counters WHERE worker = 0"), 2);
    {
        auto check = db->prepare("PRAGMA integrity_check");
        ASSERT_TRUE(check.step());
        EXPECT_EQ(check.text(0), "ok");
    }
    const db::RunData run = db::load_run(*db, 1);
    ASSERT_EQ(run.rows.stages.size(), 2u);
    EXPECT_EQ(run.rows.stages[1].cycles, 9000u);
    EXPECT_EQ(run.rows.stages[1].worker, 0);
    EXPECT_TRUE(run.rows.worker_stages.empty());
    ASSERT_EQ(run.rows.edges.size(), 1u);
    ASSERT_EQ(run.rows.histograms.size(), 1u);
    EXPECT_EQ(run.rows.histograms[0].buckets.size(), 1u);
    EXPECT_EQ(analysis::run_workers(run), std::vector<int>{0});
}

TEST_F(WorkerRowsTest, ShowPrintsOneWorkerOrEachWorkersRows) {
    const auto path = file("show.db");
    const int64_t id = record(path, 2);
    const std::string run = std::to_string(id);
    const auto [rc, merged] = cli({"show", "--db", path, run, "--no-histograms"});
    ASSERT_EQ(rc, 0) << merged;
    // The per-worker ledger table, checked.
    EXPECT_NE(merged.find("worker lcore       received"), std::string::npos) << merged;
    EXPECT_NE(merged.find("1          3           3000"), std::string::npos) << merged;
    EXPECT_NE(merged.find("the 2 workers' ledgers (packets, every trial) add up to the run's"),
              std::string::npos)
        << merged;
    EXPECT_EQ(merged.find("  worker 1"), std::string::npos) << "per-worker rows only on request";

    const auto [rc1, one] = cli({"show", "--db", path, run, "--worker", "1", "--no-histograms"});
    ASSERT_EQ(rc1, 0) << one;
    EXPECT_NE(one.find("[worker 1]"), std::string::npos) << one;
    EXPECT_NE(one.find("\nin             1  rx      1"), std::string::npos) << one;
    EXPECT_EQ(one.find("\nin             0  rx"), std::string::npos)
        << "worker 0's queue is not worker 1's";
    EXPECT_NE(one.find("3000 = delivered 0 + forwarded 2700"), std::string::npos) << one;

    const auto [rcw, rows] = cli({"show", "--db", path, run, "--workers", "--no-histograms"});
    ASSERT_EQ(rcw, 0) << rows;
    // Under ip6_input: worker 0 at 100 cycles a packet, worker 1 at 110.
    const auto at = rows.find("\nip6_input");
    ASSERT_NE(at, std::string::npos) << rows;
    const std::string below = rows.substr(at + 1, 400);
    const auto w0 = below.find("\n  worker 0"), w1 = below.find("\n  worker 1");
    ASSERT_NE(w0, std::string::npos) << below;
    ASSERT_NE(w1, std::string::npos) << below;
    EXPECT_NE(below.substr(w0, w1 - w0).find(" 100.0 "), std::string::npos) << below;
    EXPECT_NE(below.substr(w1, 100).find(" 110.0 "), std::string::npos) << below;

    const auto [rce, err] = cli({"show", "--db", path, run, "--worker", "2"});
    EXPECT_NE(rce, 0);
    EXPECT_NE(err.find("run " + run + " has workers 0-1"), std::string::npos) << err;
}
