#include "capture/run.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include "capture/pcap_probe.h"
#include "engine/eal.h"
#include "engine/engine.h"
#include "engine/generator.h"

namespace pathscope::capture {

using namespace engine;

namespace {
std::atomic<bool> g_interrupted{false};
void on_sigint(int) { g_interrupted = true; }
}  // namespace

void prepare_workload(EngineConfig& cfg) {
    if (cfg.workload.kind != WorkloadKind::pcap) return;
    const auto& w = cfg.workload.pcap;
    probe_ethernet_capture(w.file);
    for (auto& p : cfg.ports) {
        if (p.name != w.port) continue;
        static unsigned serial = 0;
        p.device = "net_pcap_replay" + std::to_string(serial++) + ",rx_pcap=" + w.file +
                   (w.infinite ? ",infinite_rx=1" : "");
        p.promiscuous = true;  // a capture's frames were addressed to some other host
    }
}

RunResult run_engine(EngineConfig cfg,
                     const std::function<void(double, const EngineSnapshot&)>& progress) {
    prepare_workload(cfg);
    eal_init(cfg.eal_args);
    Engine engine(cfg);
    std::unique_ptr<Generator> gen;
    if (cfg.workload.kind == WorkloadKind::generator) {
        std::vector<Prefix6> prefixes;
        for (const auto& r : engine.routes()) prefixes.push_back(r.prefix);
        gen = std::make_unique<Generator>(engine, cfg.workload.generator, prefixes);
    }
    g_interrupted = false;
    auto old = std::signal(SIGINT, on_sigint);
    const auto t0 = std::chrono::steady_clock::now();
    engine.start();
    if (gen) gen->start();
    RunResult result;
    using namespace std::chrono_literals;
    result.window_start = engine.snapshot();
    bool warm = false;
    for (;;) {
        std::this_thread::sleep_for(std::min(
            100ms, std::chrono::milliseconds(static_cast<long>(cfg.duration_s * 200) + 1)));
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!warm && elapsed >= cfg.duration_s * 0.2) {
            result.window_start = engine.snapshot();
            warm = true;
        }
        if (elapsed >= cfg.duration_s || g_interrupted) break;
        if (progress) progress(elapsed, engine.snapshot());
    }
    result.window_end = engine.snapshot();
    if (gen) gen->stop();
    // The worker stops between walks, and a walk runs every packet it
    // received to its end, so the ledger balances without a drain.
    engine.stop();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::signal(SIGINT, old);
    result.interrupted = g_interrupted;
    result.snapshot = engine.snapshot();
    result.generated = gen ? gen->generated() : 0;
    result.returned = gen ? gen->returned() : 0;
    return result;
}

}  // namespace pathscope::capture
