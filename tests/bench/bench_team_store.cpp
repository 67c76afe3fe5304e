// A team store's speed on a real PostgreSQL cluster (made here, on a Unix
// socket, torn down at exit):
//   1. ingest: a capture's per-interval rows (stages, edges, queues,
//      intervals) written by pathscope's batch writer, against COPY of the
//      very same rows into the same tables (the server's own ceiling);
//      goal: 0.5x of COPY or better;
//   2. list and show on a store of 10,000 runs: `pathscope list` and
//      `pathscope show` as a user runs them (a process each, wall time) and
//      the library calls under them; goal: under 1 s each.
// The same ingest into an SQLite file is printed beside, for scale.
//   bench_team_store [--runs N] [--batches N] [--repeat N]
#include <libpq-fe.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "db/queries.h"
#include "db/schema.h"
#include "db/table_sql.h"
#include "db/writer.h"
#include "tests/support/pg_cluster.h"

using namespace pathscope::db;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

const char* kStages[] = {"eth_rx",      "eth_input", "ip6_input",  "ip6_lookup", "ip6_forward",
                         "ip6_local",   "udp6_input", "icmp6_input", "udp6_output", "ip6_output",
                         "nd_resolve",  "txq_select", "eth_tx",     "drop"};

// One interval's rows, as a capture of one worker writes them every 0.1 s.
Batch interval_batch(int trial, int seq) {
    Batch b;
    b.intervals.push_back({trial, seq, 0.1 * (seq + 1), 100000, 20000, 75000, 3000, 2000, 0});
    int ord = 0;
    for (const char* s : kStages) {
        b.stages.push_back({trial, seq, s, ord, 3125, 100000, uint64_t(400000 + ord * 1000), 10, 500});
        if (ord > 0) b.edges.push_back({trial, seq, kStages[ord - 1], s, 100000});
        ++ord;
    }
    for (int q = 0; q < 4; ++q) b.queues.push_back({trial, seq, "wire", q, "rx", 25000, 1600000, 800, 3, 0});
    return b;
}

// The rows of `t` in `rows` as COPY text lines (run_id first where the
// table has it, in insert_sql's column order).
template <typename Row>
void copy_text(std::string& out, const Table<Row>& t, int64_t run_id, const std::vector<Row>& rows) {
    for (const Row& r : rows) {
        bool first = true;
        for (const auto& c : t.columns) {
            if (c.role == Role::store_id) continue;
            out += first ? "" : "\t";
            first = false;
            if (c.role == Role::run_id) {
                out += std::to_string(run_id);
                continue;
            }
            std::visit(
                [&](const auto& v) {
                    using T = std::decay_t<decltype(v)>;
                    if constexpr (std::is_same_v<T, std::string>)
                        out += v;  // plain names: nothing to escape
                    else if constexpr (std::is_same_v<T, bool>)
                        out += v ? "1" : "0";
                    else if constexpr (std::is_same_v<T, double>) {
                        char buf[32];
                        std::snprintf(buf, sizeof buf, "%.17g", v);
                        out += buf;
                    } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>)
                        out += "\\\\x";
                    else
                        out += std::to_string(static_cast<int64_t>(v));
                },
                c.get(r));
        }
        out += "\n";
    }
}

template <typename Row>
std::string column_names(const Table<Row>& t) {
    std::string s;
    for (const auto& c : t.columns)
        if (c.role != Role::store_id) s += (s.empty() ? "" : ", ") + sql_name(c.name);
    return s;
}

template <typename Row>
void copy_table(PGconn* c, const Table<Row>& t, const std::string& text) {
    PGresult* r = PQexec(c, ("COPY " + std::string(t.name) + " (" + column_names(t) + ") FROM STDIN").c_str());
    if (PQresultStatus(r) != PGRES_COPY_IN) {
        std::fprintf(stderr, "COPY: %s\n", PQerrorMessage(c));
        std::exit(1);
    }
    PQclear(r);
    PQputCopyData(c, text.data(), static_cast<int>(text.size()));
    PQputCopyEnd(c, nullptr);
    r = PQgetResult(c);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        std::fprintf(stderr, "COPY: %s\n", PQerrorMessage(c));
        std::exit(1);
    }
    PQclear(r);
}

struct Ingest {
    double seconds = 0;
    size_t rows = 0;
};

// `group`: batches a transaction (1: the writer keeps up with the capture;
// more: batches queued while it was busy go in together).
Ingest ingest(const std::string& store, const std::vector<Batch>& batches, size_t group = 1) {
    RunInfo info;
    info.label = "ingest";
    info.host = host_name();
    info.pid = getpid();
    RunWriter w(store, info);
    const auto t = Clock::now();
    // One batch a transaction: what a capture's writer does when the disk
    // keeps up (several queued batches would be grouped, and faster).
    Ingest out;
    auto db = open_store(store, Database::Mode::read_write);
    BatchWriter bw(*db);
    RunInfo r2 = info;
    const int64_t id = bw.insert_run(r2);
    const auto start = Clock::now();
    for (size_t i = 0; i < batches.size(); i += group) {
        std::vector<const Batch*> one;
        for (size_t j = i; j < std::min(batches.size(), i + group); ++j) {
            one.push_back(&batches[j]);
            out.rows += batches[j].rows();
        }
        bw.write(id, one);
    }
    out.seconds = seconds_since(start);
    (void)t;
    w.finish("complete");
    return out;
}

/// COPY of the batches' rows in one transaction, into the fresh store `url`.
double copy_seconds(const std::string& url, const std::vector<Batch>& batches) {
    ingest(url, {});  // the same empty store as the writer's: tables, a run
    PGconn* c = PQconnectdb(url.c_str());
    std::string iv, st, ed, qu;
    for (const auto& x : batches) {
        copy_text(iv, tables::intervals(), 1, x.intervals);
        copy_text(st, tables::stage_counters(), 1, x.stages);
        copy_text(ed, tables::edge_counters(), 1, x.edges);
        copy_text(qu, tables::queue_counters(), 1, x.queues);
    }
    const auto t = Clock::now();
    PQclear(PQexec(c, "BEGIN"));
    copy_table(c, tables::intervals(), iv);
    copy_table(c, tables::stage_counters(), st);
    copy_table(c, tables::edge_counters(), ed);
    copy_table(c, tables::queue_counters(), qu);
    PQclear(PQexec(c, "COMMIT"));
    const double s = seconds_since(t);
    PQfinish(c);
    return s;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double run_cli(const std::string& args) {
    const auto t = Clock::now();
    const std::string cmd = std::string(PATHSCOPE_CLI) + " " + args + " > /dev/null";
    if (std::system(cmd.c_str()) != 0) {
        std::fprintf(stderr, "failed: %s\n", cmd.c_str());
        std::exit(1);
    }
    return seconds_since(t);
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 10000, nbatches = 300, repeat = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::string(argv[i]) == "--runs") runs = std::atoi(argv[i + 1]);
        if (std::string(argv[i]) == "--batches") nbatches = std::atoi(argv[i + 1]);
        if (std::string(argv[i]) == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
    }
    auto& pg = pathscope::test::PgCluster::shared();
    if (!pg.why_not().empty()) {
        std::fprintf(stderr, "bench_team_store: %s\n", pg.why_not().c_str());
        return 1;
    }
    std::vector<Batch> batches;
    for (int i = 0; i < nbatches; ++i) batches.push_back(interval_batch(i / 10, i % 10));

    // 1. Ingest: the writer (a batch a commit, then 10), and COPY of the same
    // rows, each into a fresh store, `repeat` times in turn: the median of
    // each, and of the ratios (one COPY takes a tenth of a second, so a
    // single pair is at the mercy of a busy machine).
    std::vector<double> writer_s, grouped_s, copy_s, ratio, grouped_ratio;
    size_t rows = 0;
    for (int r = 0; r < repeat; ++r) {
        const Ingest w = ingest(pg.new_database("ingest"), batches);
        const Ingest g = ingest(pg.new_database("grouped"), batches, 10);
        const double c = copy_seconds(pg.new_database("copy"), batches);
        rows = w.rows;
        writer_s.push_back(w.seconds);
        grouped_s.push_back(g.seconds);
        copy_s.push_back(c);
        ratio.push_back(c / w.seconds);
        grouped_ratio.push_back(c / g.seconds);
    }
    char file[] = "/tmp/pathscope_bench_team.XXXXXX";
    if (!mkdtemp(file)) return 1;
    const Ingest f = ingest(std::string(file) + "/s.db", batches);
    const auto range = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.2f-%.2fx", v.front(), v.back());
        return std::string(buf);
    };
    std::printf("ingest of %zu rows (%d interval batches: stages, edges, queues, intervals), "
                "median of %d\n", rows, nbatches, repeat);
    std::printf("  pathscope writer, server   %10.0f rows/s  (%.3f s)\n", rows / median(writer_s), median(writer_s));
    std::printf("  COPY of the same rows      %10.0f rows/s  (%.3f s)\n", rows / median(copy_s), median(copy_s));
    std::printf("  ratio writer / COPY        %10.2fx  (%s)\n", median(ratio), range(ratio).c_str());
    std::printf("  writer, 10 batches a commit%10.0f rows/s  (%.3f s)\n", rows / median(grouped_s), median(grouped_s));
    std::printf("  ratio grouped / COPY       %10.2fx  (%s; goal: 0.5x or better)\n", median(grouped_ratio),
                range(grouped_ratio).c_str());
    std::printf("  pathscope writer, file     %10.0f rows/s  (%.3f s, for scale)\n", f.rows / f.seconds, f.seconds);

    // 2. A store of `runs` runs, made on the server side (each: a run row,
    // 3 trials, a stage row a trial), then list and show as a user runs them.
    const std::string big = pg.new_database("big");
    ingest(big, {interval_batch(0, 0)});
    const std::string dbname = big.substr(big.find("///") + 3, big.find('?') - big.find("///") - 3);
    const auto made = Clock::now();
    const std::string fill =
        "INSERT INTO runs (uuid, label, kind, status, host, started_at, trials) SELECT md5(g::text), "
        "'run' || (g % 100), 'capture', 'complete', 'lab' || (g % 8), '2026-12-01T00:00:00Z', 3 "
        "FROM generate_series(1, " + std::to_string(runs - 1) + ") g; "
        "INSERT INTO trials (run_id, trial, seconds, received, delivered, forwarded, replied, "
        "dropped, sent, rx_pps, forwarded_pps, delivered_pps) SELECT r.id, t, 1, 1000000, 0, "
        "1000000, 0, 0, 0, 1e6, 1e6, 0 FROM runs r, generate_series(0, 2) t WHERE r.label <> 'ingest'; "
        "INSERT INTO stage_counters (run_id, trial, seq, stage, ord, calls, packets, cycles) SELECT "
        "r.id, t, -1, 'eth_rx', 0, 31250, 1000000, 120000000 FROM runs r, generate_series(0, 2) t "
        "WHERE r.label <> 'ingest'; ANALYZE;";
    if (pg.psql(dbname, fill) != 0) return 1;
    std::printf("\na server store of %d runs (%.1f s to make)\n", runs, seconds_since(made));
    {
        auto db = open_store(big, Database::Mode::read_only, Create::never);
        auto t0 = Clock::now();
        const auto all = list_runs_brief(*db);
        const auto counts = trials_recorded(*db);
        const double list_lib = seconds_since(t0);
        t0 = Clock::now();
        const RunData d = load_run(*db, find_run(*db, "ingest").id);
        const double show_lib = seconds_since(t0);
        std::printf("  list_runs + trials_recorded   %7.3f s  (%zu runs)\n", list_lib, all.size());
        std::printf("  find_run + load_run           %7.3f s  (%zu rows)\n", show_lib, d.rows.rows());
        (void)counts;
    }
    const double list_s = run_cli("list --db '" + big + "'");
    const double show_s = run_cli("show ingest --db '" + big + "'");
    const double show_id = run_cli("show 5000 --db '" + big + "'");
    std::printf("  pathscope list                %7.3f s  (goal: under 1 s)\n", list_s);
    std::printf("  pathscope show ingest         %7.3f s  (goal: under 1 s)\n", show_s);
    std::printf("  pathscope show 5000           %7.3f s\n", show_id);
    std::string rm = std::string("rm -rf ") + file;
    return std::system(rm.c_str()) == 0 ? 0 : 1;
}
