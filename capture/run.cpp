#include "capture/run.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include "capture/disturbance.h"
#include "capture/pcap_probe.h"
#include "engine/dpdk.h"
#include "engine/eal.h"
#include "engine/engine.h"
#include "workload/generator.h"
#include "workload/rr_client.h"
#include "engine/telemetry.h"

namespace pathscope::capture {

using namespace engine;

namespace {
std::atomic<int> g_stop_signal{0};
void on_stop_signal(int sig) {
    int none = 0;
    g_stop_signal.compare_exchange_strong(none, sig);  // the first one names the stop
}
int g_guards = 0;  // StopSignals alive (control thread only)
struct sigaction g_old_int, g_old_term;
}  // namespace

StopSignals::StopSignals() {
    if (g_guards++) return;
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
}

StopSignals::~StopSignals() {
    if (--g_guards) return;
    sigaction(SIGINT, &g_old_int, nullptr);
    sigaction(SIGTERM, &g_old_term, nullptr);
}

int StopSignals::received() { return g_stop_signal.load(); }

std::string stop_name(int signal) {
    if (signal == SIGINT) return "Ctrl-C";
    if (signal == SIGTERM) return "SIGTERM";
    return "signal " + std::to_string(signal);
}

void prepare_workload(EngineConfig& cfg) {
    if (cfg.workload.kind != WorkloadKind::pcap) return;
    const auto& w = cfg.workload.pcap;
    const PcapInfo info = probe_ethernet_capture(w.file);
    // net_pcap's infinite_rx keeps the file in mbufs of one segment each and
    // refuses the queue (EINVAL, "Multiseg mbufs are not supported") when a
    // frame needs more: say which frame and what to do instead.
    constexpr uint32_t kOneMbuf = RTE_MBUF_DEFAULT_DATAROOM;  // the engine's pool's data room
    if (w.infinite && info.largest > kOneMbuf)
        throw std::runtime_error(
            w.file + ": packet " + std::to_string(info.largest_packet) + " is " +
            std::to_string(info.largest) + " bytes, more than one mbuf holds (" +
            std::to_string(kOneMbuf) + "), and workload.infinite replays only frames that fit " +
            "one: set workload.infinite = false (each frame once), or cut the frames first " +
            "(editcap -s " + std::to_string(kOneMbuf) + " IN OUT)");
    for (auto& p : cfg.ports) {
        if (p.name != w.port) continue;
        static unsigned serial = 0;
        p.device = "net_pcap_replay" + std::to_string(serial++) + ",rx_pcap=" + w.file +
                   (w.infinite ? ",infinite_rx=1" : "");
        p.promiscuous = true;  // a capture's frames were addressed to some other host
    }
}

namespace {
/// Waits (at most 10 s: the worker takes millions a second) until the
/// running worker has taken every frame queued on `port`'s receive rings.
void wait_until_taken(const Engine& engine, const EngineConfig& cfg, const std::string& port) {
    for (const auto& p : cfg.ports)
        if (p.name == port && !p.poll) return;  // nobody takes them
    const RingPort& rp = engine.ring_port(port);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        unsigned queued = 0;
        for (rte_ring* r : rp.rx) queued += rte_ring_count(r);
        if (queued == 0) return;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}
}  // namespace

namespace {
/// Each worker's interrupted calls over the window (engine.interrupted_call_us).
void add_interrupted_calls(const EngineSnapshot& start, const EngineSnapshot& end,
                           std::vector<db::ThreadRow>& threads) {
    if (end.tsc_hz == 0) return;
    for (auto& row : threads) {
        if (row.role != db::kWorkerThread) continue;
        const auto u = static_cast<size_t>(row.index);
        if (u >= start.workers.size() || u >= end.workers.size()) continue;
        const WorkerSnapshot& a = start.workers[u];
        const WorkerSnapshot& b = end.workers[u];
        row.interrupted_calls = b.interrupted_calls - a.interrupted_calls;
        row.interrupted_ns = static_cast<uint64_t>(
            1e9 * static_cast<double>(b.interrupted_cycles - a.interrupted_cycles) /
            static_cast<double>(end.tsc_hz));
    }
}
}  // namespace

RunResult run_engine(EngineConfig cfg, const RunHooks& hooks) {
    const StopSignals stop_signals;
    prepare_workload(cfg);
    eal_init(cfg.eal_args);
    Engine engine(cfg);
    const TelemetrySource telemetry(engine);  // /pathscope/ commands read it while it lives
    std::unique_ptr<Generator> gen;
    if (cfg.workload.kind == WorkloadKind::generator) {
        std::vector<Prefix6> prefixes;
        for (const auto& r : engine.routes()) prefixes.push_back(r.prefix);
        gen = std::make_unique<Generator>(engine, cfg.workload.generator, prefixes);
    }
    std::unique_ptr<RrClient> rr;
    if (cfg.workload.kind == WorkloadKind::rr)
        rr = std::make_unique<RrClient>(engine, cfg.workload.rr);
    if (hooks.prepared) hooks.prepared(engine);
    const auto stopped = [] { return StopSignals::received() != 0; };
    const auto t0 = std::chrono::steady_clock::now();
    engine.start();
    if (gen) gen->start();
    if (rr) rr->start();
    if (hooks.started) hooks.started(engine);
    std::vector<WatchedThread> watched;
    for (unsigned w = 0; w < engine.workers(); ++w)
        watched.push_back({db::kWorkerThread, static_cast<int>(w), engine.worker_tid(w)});
    if (gen) watched.push_back({db::kGeneratorThread, 0, gen->tid()});
    if (rr) watched.push_back({db::kRrClientThread, 0, rr->tid()});
    DisturbanceProbe probe(std::move(watched));
    RunResult result;
    result.conditions.timer_cycles = engine.timestamp_cycles();
    result.conditions.timing_period = engine.timing_period();
    using namespace std::chrono;
    result.window_start = engine.snapshot(false);
    probe.start();
    bool warm = false;
    bool last_interval = false;
    const auto interval = duration_cast<steady_clock::duration>(
        duration<double>(std::min(hooks.interval_s, cfg.duration_s)));
    // The steady window starts 20% in, between interval ticks if need be
    // (with 1 s intervals and a 1 s trial there is no tick in between).
    const auto warm_at = t0 + duration_cast<steady_clock::duration>(
                                  duration<double>(cfg.duration_s * 0.2));
    auto sleep_until = [&](steady_clock::time_point when) {
        // Short steps, so that a stop is seen quickly even with long intervals.
        while (steady_clock::now() < when && !stopped())
            std::this_thread::sleep_for(
                std::min<steady_clock::duration>(when - steady_clock::now(), milliseconds(50)));
    };
    for (auto next = t0 + interval;; next += interval) {
        if (!warm && warm_at <= next) {
            sleep_until(warm_at);
            if (!stopped()) {
                result.window_start = engine.snapshot(false);
                probe.start();
                warm = true;
            }
        }
        sleep_until(next);
        const double elapsed = duration<double>(steady_clock::now() - t0).count();
        if (stopped()) break;
        if (elapsed >= cfg.duration_s) {  // the last interval: reported once stopped
            result.window_end = engine.snapshot(false);
            probe.stop();
            last_interval = true;
            break;
        }
        if (hooks.interval && !hooks.interval(elapsed, engine.snapshot(false))) break;
    }
    if (result.window_end.tsc == 0) {
        result.window_end = engine.snapshot(false);
        probe.stop();
    }
    result.threads = probe.threads(0);
    add_interrupted_calls(result.window_start, result.window_end, result.threads);
    probe.fill(result.conditions);
    if (gen) gen->stop();
    if (rr) rr->stop();
    // What the generator or the peers put on the port's receive rings is
    // theirs to count (generated) and the engine's to count once received:
    // the worker takes what is still queued before it stops, so that every
    // frame generated is received (and has its outcome) instead of vanishing
    // with the rings.
    if (gen) wait_until_taken(engine, cfg, cfg.workload.generator.port);
    if (rr) wait_until_taken(engine, cfg, cfg.workload.rr.port);
    // The worker stops between walks, and a walk runs every packet it
    // received to its end, so the ledger balances without a drain.
    engine.stop();
    result.seconds = duration<double>(steady_clock::now() - t0).count();
    result.stop_signal = StopSignals::received();
    result.snapshot = engine.snapshot();
    if (last_interval && hooks.interval)
        hooks.interval(duration<double>(steady_clock::now() - t0).count(), engine.snapshot(false));
    result.generated = gen ? gen->generated() : 0;
    result.returned = gen ? gen->returned() : 0;
    if (gen) result.mix = gen->mix();
    if (rr) {
        result.generated = rr->requests();
        result.returned = rr->transactions() + rr->late() + rr->other();
    }
    if (hooks.stopped) hooks.stopped(engine);
    return result;
}

}  // namespace pathscope::capture
