// What the engine's per-call timing costs and resolves (engine/tsc_timer.h
// quotes these figures): the TSC's granularity, what an empty rdtsc pair
// reads (the floor under every per-call figure), what a pair costs, and what
// the per-call bookkeeping after it costs: HistogramRecorder::record() for
// a busy call, the two IdleCounters adds for an idle one.
//
//   bench_timer [--samples N]
//
// No EAL: rte_rdtsc is an inline instruction. Every figure is the median of
// 21 rounds of N samples, in TSC cycles.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "engine/counters.h"
#include "engine/dpdk.h"
#include "engine/tsc_timer.h"

using namespace pathscope::engine;

namespace {

constexpr unsigned kRounds = 21;

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

/// The median over kRounds of `body(samples)`'s TSC cycles per sample.
template <typename Body>
double per_sample(unsigned samples, Body&& body) {
    std::vector<double> rounds;
    for (unsigned r = 0; r < kRounds; ++r) {
        const uint64_t t0 = tsc_start();
        body(samples);
        const uint64_t t1 = tsc_stop();
        rounds.push_back(static_cast<double>(t1 - t0) / samples);
    }
    return median(rounds);
}

/// What `samples` back-to-back calls of `pair` read, sorted.
template <typename Pair>
std::vector<uint64_t> readings(unsigned samples, Pair&& pair) {
    std::vector<uint64_t> v(samples);
    for (auto& x : v) x = pair();
    std::sort(v.begin(), v.end());
    return v;
}

uint64_t pct(const std::vector<uint64_t>& sorted, double p) {
    return sorted[std::min<size_t>(sorted.size() - 1, static_cast<size_t>(p / 100 * sorted.size()))];
}

/// The TSC's rate against the monotonic clock over 200 ms (no EAL here).
double tsc_ghz() {
    const auto w0 = std::chrono::steady_clock::now();
    const uint64_t t0 = rte_rdtsc();
    while (std::chrono::steady_clock::now() - w0 < std::chrono::milliseconds(200)) {
    }
    const uint64_t t1 = rte_rdtsc();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - w0).count();
    return static_cast<double>(t1 - t0) / ns;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned samples = 1'000'000;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--samples" && i + 1 < argc) {
            samples = static_cast<unsigned>(std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: bench_timer [--samples N]\n");
            return 2;
        }
    }
    if (samples < 1000) samples = 1000;

    // Granularity: the step between two reads that differ (the median: a
    // counter that ticks in steps still shows the odd small one).
    std::vector<uint64_t> steps(samples);
    for (auto& step : steps) {
        const uint64_t a = rte_rdtsc();
        uint64_t b;
        while ((b = rte_rdtsc()) == a) {
        }
        step = b - a;
    }
    std::sort(steps.begin(), steps.end());

    // What an empty pair reads: the walk's plain pair and the serialized one.
    const auto plain = readings(samples, [] {
        const uint64_t t0 = rte_rdtsc();
        return rte_rdtsc() - t0;
    });
    const auto fenced = readings(samples, [] {
        const uint64_t t0 = tsc_start();
        return tsc_stop() - t0;
    });

    // What the bookkeeping costs, in a loop the size of a walk's stages:
    // values spread over a few buckets as busy calls' cycles are.
    constexpr unsigned kNodes = 16;
    auto hist = std::make_unique<HistogramRecorder[]>(kNodes);
    auto idle = std::make_unique<IdleCounters[]>(kNodes);
    volatile uint64_t sink = 0;
    const double pair_cost = per_sample(samples, [&](unsigned n) {
        uint64_t s = 0;
        for (unsigned i = 0; i < n; ++i) {
            const uint64_t t0 = rte_rdtsc();
            s += rte_rdtsc() - t0;
        }
        sink = s;
    });
    const double record_cost = per_sample(samples, [&](unsigned n) {
        for (unsigned i = 0; i < n; ++i) hist[i % kNodes].record(600 + (i * 37) % 2000);
    });
    const double idle_cost = per_sample(samples, [&](unsigned n) {
        for (unsigned i = 0; i < n; ++i) {
            idle[i % kNodes].calls.add();
            idle[i % kNodes].cycles.add(40 + (i & 7));
        }
    });
    const double loop_cost = per_sample(samples, [&](unsigned n) {
        uint64_t s = 0;
        for (unsigned i = 0; i < n; ++i) s += 600 + (i * 37) % 2000;
        sink = s;
    });
    (void)sink;

    std::printf("TSC: %.3f GHz, step between two differing reads: p50 %lu cycles (p1 %lu)\n",
                tsc_ghz(), static_cast<unsigned long>(pct(steps, 50)),
                static_cast<unsigned long>(pct(steps, 1)));
    std::printf("empty pair reads (cycles)       p1 %5lu  p50 %5lu  p99 %5lu   (rdtsc;rdtsc, as Engine::walk)\n",
                static_cast<unsigned long>(pct(plain, 1)), static_cast<unsigned long>(pct(plain, 50)),
                static_cast<unsigned long>(pct(plain, 99)));
    std::printf("empty pair reads (cycles)       p1 %5lu  p50 %5lu  p99 %5lu   (lfence;rdtsc;lfence / rdtscp;lfence)\n",
                static_cast<unsigned long>(pct(fenced, 1)), static_cast<unsigned long>(pct(fenced, 50)),
                static_cast<unsigned long>(pct(fenced, 99)));
    std::printf("cost of one rdtsc pair          %6.1f cycles (loop of pairs, per pair)\n", pair_cost);
    std::printf("HistogramRecorder::record()     %6.1f cycles per call (%u recorders, loop %.1f of it)\n",
                record_cost, kNodes, loop_cost);
    std::printf("idle call (IdleCounters, 2 adds) %5.1f cycles per call\n", idle_cost);
    return 0;
}
