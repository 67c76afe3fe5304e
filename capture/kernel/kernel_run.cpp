#include "capture/kernel/kernel_run.h"

#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "capture/kernel/command.h"
#include "capture/kernel/netns.h"
#include "capture/kernel/tracefs.h"
#include "capture/perf_events.h"
#include "capture/run.h"

namespace pathscope::capture {

namespace {

using Clock = std::chrono::steady_clock;

std::string default_stage_map() { return std::string(PATHSCOPE_DATA_DIR) + "/kernel-stages.map"; }

/// This process's effective capabilities (/proc/self/status CapEff).
uint64_t effective_capabilities() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("CapEff:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16);
    return 0;
}

/// Reads every side's counters into `s` (the workload's and the probes' too).
struct Readers {
    std::unique_ptr<NetCounterReader> sender, receiver, router;
    KernelSnapshot read(const KernelWorkload& w, const KernelProbes& p) const {
        KernelSnapshot s;
        s.at = Clock::now();
        s.work = w.counts();
        s.probes = p.counts();
        s.sender = sender->read();
        s.receiver = receiver->read();
        if (router) s.router = router->read();
        return s;
    }
};

/// Waits (at most 200 ms) until the receive ledger stops moving: the last
/// datagrams the sender offered are through the veths and the router.
void settle(const Readers& r, bool forward) {
    const auto ledger = [&] {
        const NetCounters c = forward ? r.router->read() : r.receiver->read();
        return c.get("Ip6InReceives");
    };
    uint64_t last = ledger();
    for (int i = 0; i < 40; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        const uint64_t now = ledger();
        if (now == last) return;
        last = now;
    }
}

void add_tally(SampleTally& into, const SampleTally& t) {
    for (size_t i = 0; i < t.samples.size() && i < into.samples.size(); ++i) {
        into.samples[i] += t.samples[i];
        into.ns[i] += t.ns[i];
    }
    into.counted += t.counted;
    into.others += t.others;
}

}  // namespace

namespace {
/// The kernel's own TSC rate, as it converts TSC to time for perf_event's
/// user-space readers (time_mult, time_shift of an event's mmap page): the
/// same every run, where a measurement differs by some hertz each time. 0
/// when the kernel does not offer it (a guest whose sched_clock is not the
/// TSC's, as on this project's VMs).
uint64_t kernel_tsc_hz() {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;  // running on this thread: the page is kept up to date
    const int fd = open_perf_event(attr, 0, -1);
    if (fd < 0) return 0;
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, page, PROT_READ, MAP_SHARED, fd, 0);
    uint64_t hz = 0;
    if (p != MAP_FAILED) {
        sched_yield();  // scheduled in again: the kernel fills the page's time fields
        const auto* meta = static_cast<const perf_event_mmap_page*>(p);
        if (meta->cap_user_time && meta->time_mult)
            hz = static_cast<uint64_t>(std::llround(std::ldexp(1e9, meta->time_shift) /
                                                    static_cast<double>(meta->time_mult)));
        munmap(p, page);
    }
    close(fd);
    return hz;
}
}  // namespace

uint64_t measure_tsc_hz(int ms) {
    if (const uint64_t hz = kernel_tsc_hz()) return hz;
    timespec a{}, b{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &a);
    const uint64_t t0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    clock_gettime(CLOCK_MONOTONIC_RAW, &b);
    const uint64_t t1 = __rdtsc();
    const double ns = static_cast<double>(b.tv_sec - a.tv_sec) * 1e9 + static_cast<double>(b.tv_nsec - a.tv_nsec);
    // To 10 kHz (4 ppm): a measurement wanders by some hundred hertz, and
    // runs that differ in it would read as run on different machines.
    constexpr double kStep = 10'000;
    return static_cast<uint64_t>(std::llround(static_cast<double>(t1 - t0) * 1e9 / ns / kStep) * kStep);
}

std::string kernel_run_missing() {
    std::vector<std::string> missing;
    const uint64_t caps = effective_capabilities();
    constexpr int kNetAdmin = 12, kSysAdmin = 21, kPerfmon = 38;
    if (!(caps >> kNetAdmin & 1))
        missing.push_back("CAP_NET_ADMIN (to make network namespaces, veths, routes and rules)");
    if (!(caps >> kSysAdmin & 1))
        missing.push_back("CAP_SYS_ADMIN (to enter the namespaces, and to mount and read tracefs)");
    if (!(caps >> kPerfmon & 1) && !(caps >> kSysAdmin & 1))
        missing.push_back("CAP_PERFMON (to sample every CPU with kernel call chains)");
    if (!try_command({"ip", "-V"}))
        missing.push_back("the ip command (Debian's iproute2 package)");
    if (missing.empty()) {
        try {
            tracefs_root();
        } catch (const std::exception& e) {
            missing.push_back(e.what());
        }
    }
    if (missing.empty()) return "";
    std::string out = "a run on the Linux kernel ([target] kind = \"linux\") needs root; this process lacks ";
    for (size_t i = 0; i < missing.size(); ++i)
        out += (i ? (i + 1 == missing.size() ? " and " : ", ") : "") + missing[i];
    return out + " (run it as root: sudo pathscope run ...)";
}

KernelRunContext::KernelRunContext(const Scenario& sc)
    : map(StageMap::load(sc.kernel.stage_map.empty() ? default_stage_map() : sc.kernel.stage_map)),
      symbols(),
      tsc_hz(measure_tsc_hz()),
      drop_reasons(tracepoint_symbols("skb", "kfree_skb", "reason")) {
    utsname u{};
    if (uname(&u) == 0) release = u.release;
}

KernelTrialResult run_kernel_trial(const Scenario& sc, unsigned serial, KernelRunContext& ctx,
                                   const KernelHooks& hooks) {
    const StopSignals stop_signals;
    const KernelConfig& cfg = sc.kernel;
    const bool forward = cfg.path == KernelPath::forward;
    KernelNetwork net(cfg, sc.engine, serial);
    Readers readers;
    readers.sender = std::make_unique<NetCounterReader>(net.sender().fd, net.sender().ns);
    readers.receiver = std::make_unique<NetCounterReader>(net.receiver().fd, net.receiver().ns);
    if (forward) readers.router = std::make_unique<NetCounterReader>(net.middle().fd, net.middle().ns);
    KernelProbes probes(sc.capture.sample_event, sc.capture.sample_hz, cfg.count_lookups);
    if (!cfg.perf_data.empty() && !ctx.perf_data && probes.sampling()) {
        ctx.perf_data = std::make_unique<PerfDataWriter>(cfg.perf_data, probes.sample_attr());
        ctx.perf_data->kernel_mmap(ctx.symbols.address("_text"));
    }
    KernelWorkload work(cfg, sc.engine, net);
    if (hooks.prepared) hooks.prepared();
    if (ctx.perf_data)
        for (const auto& t : work.threads())
            ctx.perf_data->comm(static_cast<uint32_t>(getpid()), static_cast<uint32_t>(t.tid), t.role);
    std::set<uint32_t> workload_tids;
    for (const auto& t : work.threads()) workload_tids.insert(static_cast<uint32_t>(t.tid));
    SampleAttribution attribution(ctx.map, ctx.symbols, std::move(workload_tids));
    KernelTrialResult result;
    result.network = net.describe();
    result.samples = attribution.take();  // an empty tally of the map's stages
    result.start = readers.read(work, probes);
    const auto t0 = result.start.at;
    probes.enable();
    work.go();
    if (hooks.started) hooks.started(work.threads());
    DisturbanceProbe probe(work.threads());
    probe.start();
    result.window_start = result.start;
    const auto stopped = [] { return StopSignals::received() != 0; };
    auto sleep_until = [&](Clock::time_point when) {
        while (Clock::now() < when && !stopped())
            std::this_thread::sleep_for(std::min<Clock::duration>(when - Clock::now(), std::chrono::milliseconds(50)));
    };
    auto drain = [&] {
        probes.drain([&](const KernelSample& s) { return attribution.add(s); },
                     [&](uint32_t, uint32_t tid) { return attribution.ours(tid); },
                     ctx.perf_data.get());
        for (auto& [key, n] : probes.take_drops()) result.drops[key] += n;
        SampleTally t = attribution.take();
        add_tally(result.samples, t);
        return t;
    };
    using namespace std::chrono;
    const double trial_s = sc.engine.duration_s;
    const auto interval = duration_cast<Clock::duration>(duration<double>(std::min(hooks.interval_s, trial_s)));
    const auto warm_at = t0 + duration_cast<Clock::duration>(duration<double>(trial_s * 0.2));
    bool warm = false;
    KernelSnapshot prev = result.start;
    for (auto next = t0 + interval;; next += interval) {
        if (!warm && warm_at <= next) {
            sleep_until(warm_at);
            if (!stopped()) {
                result.window_start = readers.read(work, probes);
                probe.start();
                warm = true;
            }
        }
        sleep_until(next);
        if (stopped()) break;
        const double elapsed = duration<double>(Clock::now() - t0).count();
        const bool last = elapsed >= trial_s;
        SampleTally tally = drain();
        KernelSnapshot cur = readers.read(work, probes);
        if (last) {
            result.window_end = cur;
            probe.stop();
        }
        const bool go_on = !hooks.interval || hooks.interval(elapsed, prev, cur, std::move(tally));
        prev = std::move(cur);
        if (last || !go_on) break;
    }
    if (result.window_end.at == Clock::time_point{}) {
        result.window_end = readers.read(work, probes);
        probe.stop();
    }
    result.threads = probe.threads(0);
    probe.fill(result.conditions);
    work.stop();
    settle(readers, forward);
    SampleTally tail = drain();
    probes.disable();
    result.end = readers.read(work, probes);
    if (hooks.interval) hooks.interval(duration<double>(result.end.at - t0).count(), prev, result.end, std::move(tail));
    result.seconds = duration<double>(result.end.at - t0).count();
    result.rr_latency = work.rr_latency();
    result.sampled = probes.samples();
    result.lost_samples = probes.lost_samples();
    result.lost_drop_samples = probes.lost_drop_samples();
    result.others_drops = probes.others_drops();
    result.sampling_note = probes.sampling() ? "" : probes.sampling_note();
    result.period_ns = probes.sampling() ? probes.period_ns() : 0;
    result.stop_signal = StopSignals::received();
    if (hooks.stopped) hooks.stopped();
    return result;
}

}  // namespace pathscope::capture
