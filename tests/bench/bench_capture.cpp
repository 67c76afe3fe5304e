// What recording costs, in one run:
//  1. the store's ingest rate (rows/s through RunWriter's batched writer
//     thread, capture-shaped batches) against SQLite's own ceiling on this
//     disk: the same rows copied by INSERT ... SELECT from an attached store;
//  2. engine throughput with capture on (interval snapshots into the store,
//     perf counting, cpu-clock sampling with call chains, packet traces)
//     against capture off, on the bench_forward workload. Runs alternate,
//     and the medians are compared.
//
//   bench_capture [--seconds S] [--runs N] [--intervals N]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <string>

#include "capture/recorder.h"
#include "capture/run.h"
#include "capture/snapshot_rows.h"
#include "db/schema.h"
#include "db/writer.h"
#include "tests/bench/bench_clock.h"
#include "tests/bench/bench_workload.h"

using namespace pathscope;
namespace fs = std::filesystem;
using bench::Clock;
using bench::seconds_since;

namespace {

/// One interval of a capture of the default scenario: the ledger, 11 stages, 3 queues.
db::Batch interval_batch(int seq) {
    db::Batch b;
    const uint64_t n = 700000 + static_cast<uint64_t>(seq % 97);
    b.intervals.push_back({0, seq, seq * 0.1, n, n / 4, n / 2, 10, n / 4 - 10});
    const char* stages[] = {"eth_rx",      "eth_input",   "ip6_input",   "ip6_lookup",
                            "ip6_local",   "ip6_forward", "icmp6_input", "udp6_input",
                            "udp6_output", "eth_tx",      "drop"};
    int ord = 0;
    for (const char* s : stages)
        b.stages.push_back({0, seq, s, ord++, n / 32, n, n * 40 + static_cast<uint64_t>(ord)});
    b.queues.push_back({0, seq, "wire", 0, "rx", n, n * 64, n / 32, 1000, 0});
    b.queues.push_back({0, seq, "wire", 0, "tx", n / 20, n * 3, n / 600, 0, 0});
    b.queues.push_back({0, seq, "uplink", 0, "tx", n / 2, n * 32, n / 64, 0, 0});
    return b;
}

struct Ingest {
    uint64_t rows = 0;
    double writer_s = 0, ceiling_s = 0;
};

Ingest measure_ingest(const fs::path& dir, int intervals) {
    const std::string src = (dir / "ingest.db").string(), dst = (dir / "ceiling.db").string();
    for (const auto& f : {src, dst})
        for (const char* ext : {"", "-wal", "-shm"}) fs::remove(f + ext);
    Ingest r;
    {
        db::RunInfo info;
        info.label = "ingest";
        db::RunWriter w(src, info);
        std::vector<db::Batch> batches;
        for (int i = 0; i < intervals; ++i) batches.push_back(interval_batch(i));
        for (const auto& b : batches) r.rows += b.rows();
        const auto t0 = Clock::now();
        for (auto& b : batches) w.submit(std::move(b));
        w.finish("complete");
        r.writer_s = seconds_since(t0);
    }
    // SQLite's own ceiling: the same rows, one INSERT ... SELECT per table,
    // one transaction, same pragmas (WAL, synchronous=NORMAL).
    auto out = db::open_store(dst, db::Database::Mode::read_write);
    out->exec("ATTACH DATABASE '" + src + "' AS src");
    const auto t0 = Clock::now();
    {
        db::Transaction tx(*out);
        out->exec("INSERT INTO main.runs SELECT * FROM src.runs");
        out->exec("INSERT INTO main.intervals SELECT * FROM src.intervals");
        out->exec("INSERT INTO main.stage_counters SELECT * FROM src.stage_counters");
        out->exec("INSERT INTO main.queue_counters SELECT * FROM src.queue_counters");
        tx.commit();
    }
    r.ceiling_s = seconds_since(t0);
    const int64_t copied = out->scalar(
        "SELECT (SELECT count(*) FROM intervals) + "
        "(SELECT count(*) FROM stage_counters) + "
        "(SELECT count(*) FROM queue_counters)");
    if (static_cast<uint64_t>(copied) != r.rows)
        std::fprintf(stderr, "warning: copied %lld rows, wrote %llu\n",
                     static_cast<long long>(copied), static_cast<unsigned long long>(r.rows));
    return r;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 3;
    int runs = 3, intervals = 20000;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--seconds" && i + 1 < argc)
            seconds = std::atof(argv[++i]);
        else if (a == "--runs" && i + 1 < argc)
            runs = std::atoi(argv[++i]);
        else if (a == "--intervals" && i + 1 < argc)
            intervals = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_capture [--seconds S] [--runs N] [--intervals N]\n");
            return 2;
        }
    }
    try {
        const fs::path dir =
            fs::temp_directory_path() / ("bench_capture_" + std::to_string(getpid()));
        fs::create_directories(dir);

        const Ingest in = measure_ingest(dir, intervals);
        const double writer_rate = static_cast<double>(in.rows) / in.writer_s;
        const double ceiling_rate = static_cast<double>(in.rows) / in.ceiling_s;
        std::printf("store ingest: %d capture intervals, %llu rows, on %s\n", intervals,
                    static_cast<unsigned long long>(in.rows), dir.c_str());
        std::printf("  %-44s %12.0f rows/s  (%.3f s)\n", "RunWriter (batch per interval)",
                    writer_rate, in.writer_s);
        std::printf("  %-44s %12.0f rows/s  (%.3f s)\n", "INSERT ... SELECT from attached store",
                    ceiling_rate, in.ceiling_s);
        std::printf("  %-44s %12.2fx\n", "writer / SQLite ceiling", writer_rate / ceiling_rate);
        std::printf(
            "  a 0.1 s interval of the default scenario is 15 rows: the writer keeps up with\n"
            "  %.0f such intervals a second\n\n",
            writer_rate / 15);

        const std::string pcap = (dir / "bench_forward.pcap").string();
        bench::write_pcap(pcap, bench::frames(true));
        capture::Scenario sc;
        sc.engine = bench::bench_config(pcap, seconds, true);
        capture::RecordOptions opt;
        opt.db_path = (dir / "capture.db").string();
        opt.label = "bench";
        opt.scenario_path = "bench_capture";
        // What recording costs: everything on (the defaults), then the store
        // alone and each perf_event use on top of it, to see which part costs.
        struct Variant {
            const char* name;
            const char* tag;  ///< the short name on each run's line
            bool counting, sampling, traces;
        };
        const Variant variants[] = {
            {"capture on (store, counting, sampling, traces)", "all on", true, true, true},
            {"store only (snapshots every 0.1 s)", "store", false, false, false},
            {"store + perf counting", "+counting", true, false, false},
            {"store + cpu-clock sampling", "+sampling", false, true, false},
            {"store + packet traces", "+traces", false, false, true},
        };
        constexpr size_t kVariants = std::size(variants);
        std::vector<double> off;
        std::vector<std::vector<double>> on(kVariants);
        for (int r = 0; r < runs; ++r) {
            const capture::RunResult bare = capture::run_engine(sc.engine);
            off.push_back(
                capture::rate_pps(bare.window_start, bare.window_end, &engine::Ledger::forwarded) /
                1e6);
            std::printf("  run %d, forwarded Mpps: off %.3f", r + 1, off.back());
            for (size_t v = 0; v < kVariants; ++v) {
                capture::Scenario with = sc;
                if (!variants[v].counting) with.capture.perf_events.clear();
                if (!variants[v].sampling) with.capture.sample_hz = 0;
                if (!variants[v].traces) with.capture.traces_per_s = 0;
                const capture::RecordResult rec = capture::record_run(with, opt);
                if (!rec.error.empty()) throw std::runtime_error(rec.error);
                on[v].push_back(rec.run.rows.trials.at(0).forwarded_pps / 1e6);
                std::printf(", %s %.3f", variants[v].tag, on[v].back());
            }
            std::printf("\n");
        }
        const double base = median(off);
        std::printf(
            "\nengine forward, %.0f s runs, median of %d (net_pcap -> net_null, 40k routes)\n",
            seconds, runs);
        std::printf("  %-46s %10.3f Mpps\n", "capture off (no store, no perf)", base);
        for (size_t v = 0; v < kVariants; ++v)
            std::printf("  %-46s %10.3f Mpps  %5.2fx\n", variants[v].name, median(on[v]),
                        median(on[v]) / base);
        // The machine drifts between runs: pair each run with the capture-off
        // run just before it, and take the median of those ratios too.
        std::vector<double> paired;
        for (int r = 0; r < runs; ++r)
            paired.push_back(on[0][static_cast<size_t>(r)] / off[static_cast<size_t>(r)]);
        std::printf(
            "  capture on / off: %.2fx of the medians, %.2fx median of paired runs"
            "  (goal 0.95x or better)\n",
            median(on[0]) / base, median(paired));
        std::printf("  defaults: interval %.1f s, %zu perf events, %s at %u Hz, %u traces/s\n",
                    sc.capture.interval_s, sc.capture.perf_events.size(),
                    sc.capture.sample_event.c_str(), sc.capture.sample_hz, sc.capture.traces_per_s);
        fs::remove_all(dir);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_capture: %s\n", e.what());
        return 1;
    }
    return 0;
}
