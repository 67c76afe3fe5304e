#include "capture/kernel/kernel_rows.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "capture/snapshot_rows.h"
#include "engine/path_events.h"

namespace pathscope::capture {

namespace {

uint64_t delta(const NetCounters& a, const NetCounters& b, const char* key) {
    const uint64_t x = a.get(key), y = b.get(key);
    return y >= x ? y - x : 0;  // a counter never runs backwards; a missing one reads 0
}

std::string errno_name(int e) {
    if (e >= kErrnoSlots - 1) return "other errors";
    const char* n = strerrorname_np(e);
    return n ? n : "errno " + std::to_string(e);
}

double seconds_between(const KernelSnapshot& a, const KernelSnapshot& b) {
    return std::chrono::duration<double>(b.at - a.at).count();
}

double per_second(uint64_t n, double s) { return s > 0 ? static_cast<double>(n) / s : 0; }

const std::string& event_name(engine::PathEvent e) {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (auto n : engine::kPathEventNames) v.emplace_back(n);
        return v;
    }();
    return names[static_cast<size_t>(e)];
}

/// CPU time (ns) in TSC cycles, as the engine's stage cycles are counted.
uint64_t cycles(uint64_t ns, const KernelRunContext& ctx) {
    return static_cast<uint64_t>(std::llround(static_cast<double>(ns) * static_cast<double>(ctx.tsc_hz) / 1e9));
}

void add_stage_rows(db::Batch& b, int trial, int seq, const SampleTally& t, const KernelRunContext& ctx,
                    bool every_stage) {
    const auto& stages = ctx.map.stages();
    for (size_t i = 0; i < stages.size() && i < t.samples.size(); ++i)
        if (every_stage || t.samples[i])
            b.stages.push_back({trial, seq, stages[i], static_cast<int>(i), t.samples[i], 0,
                                cycles(t.ns[i], ctx), 0, 0});
}

/// skb:kfree_skb's sampled drops by reason and by the stage of the
/// function that dropped, and the drops that were counted but not sampled.
void add_kfree_skb_rows(db::Batch& b, int trial, const KernelTrialResult& r, const KernelRunContext& ctx) {
    std::map<std::pair<std::string, std::string>, uint64_t> rows;
    for (const auto& [key, n] : r.drops) {
        const auto name = ctx.drop_reasons.find(key.first);
        const std::string reason =
            name != ctx.drop_reasons.end() ? name->second : "reason " + std::to_string(key.first);
        const int stage = ctx.map.stage_of(ctx.symbols.name(key.second));
        rows[{reason, stage >= 0 ? ctx.map.stages()[static_cast<size_t>(stage)] : ""}] += n;
    }
    for (const auto& [k, n] : rows) b.drops.push_back({trial, k.first, k.second, kKfreeSkbPath, n});
    if (r.lost_drop_samples)
        b.drops.push_back({trial, "(reason not known: samples lost)", "", kKfreeSkbPath, r.lost_drop_samples});
}

/// Each interface's /proc/net/dev deltas over the trial, as facts
/// ("trial0.dev.receiver.psk123b" = "rx 1000 packets 0 dropped, tx 3 packets 0 dropped").
void add_device_facts(db::Batch& b, const std::string& prefix, const KernelTrialResult& r, bool forward) {
    const std::pair<const char*, const NetCounters KernelSnapshot::*> sides[] = {
        {"sender", &KernelSnapshot::sender}, {"receiver", &KernelSnapshot::receiver}, {"router", &KernelSnapshot::router}};
    for (const auto& [role, side] : sides) {
        if (std::string_view(role) == "router" && !forward) continue;
        const auto& before = (r.start.*side).dev;
        for (const auto& [name, d] : (r.end.*side).dev) {
            if (name == "lo") continue;
            const auto it = before.find(name);
            const DevCounters a = it == before.end() ? DevCounters{} : it->second;
            b.facts.emplace_back(prefix + "dev." + role + "." + name,
                                 fmt::format("rx {} packets {} dropped, tx {} packets {} dropped",
                                             d.rx_packets - a.rx_packets, d.rx_dropped - a.rx_dropped,
                                             d.tx_packets - a.tx_packets, d.tx_dropped - a.tx_dropped));
        }
    }
}

}  // namespace

KernelLedger kernel_ledger(const KernelSnapshot& a, const KernelSnapshot& b, bool forward) {
    KernelLedger l;
    const NetCounters& la = a.ledger(forward);
    const NetCounters& lb = b.ledger(forward);
    l.received = delta(la, lb, "Ip6InReceives");
    l.delivered = delta(la, lb, "Ip6InDelivers");
    l.forwarded = delta(la, lb, "Ip6OutForwDatagrams");
    for (const char* k : kIp6DropCounters)
        if (const uint64_t n = delta(la, lb, k)) {
            l.receive_drops[k] = n;
            l.dropped += n;
        }
    // UDP's fate of what IPv6 delivered, in the namespace that receives the datagrams.
    const uint64_t rcvbuf = delta(a.receiver, b.receiver, "Udp6RcvbufErrors");
    const uint64_t csum = delta(a.receiver, b.receiver, "Udp6InCsumErrors");
    const uint64_t in_errors = delta(a.receiver, b.receiver, "Udp6InErrors");
    for (auto [k, n] : {std::pair{"Udp6NoPorts", delta(a.receiver, b.receiver, "Udp6NoPorts")},
                        {"Udp6RcvbufErrors", rcvbuf},
                        {"Udp6InCsumErrors", csum},
                        {"Udp6InErrors (other)", in_errors > rcvbuf + csum ? in_errors - rcvbuf - csum : 0}})
        if (n) l.udp_drops[k] = n;
    l.sent = delta(a.sender, b.sender, "Udp6OutDatagrams");
    l.sends = b.work.sends - a.work.sends;
    if (const uint64_t n = delta(a.sender, b.sender, "Udp6SndbufErrors")) l.send_drops["Udp6SndbufErrors"] = n;
    // ENOBUFS and a full send buffer are in Udp6SndbufErrors already.
    for (int e = 0; e < kErrnoSlots; ++e)
        if (const uint64_t n = b.work.refused[e] - a.work.refused[e]; n && e != ENOBUFS && e != EAGAIN)
            l.send_drops["sendmmsg: " + errno_name(e)] += n;
    return l;
}

db::Batch kernel_interval_rows(int trial, int seq, double t, const KernelSnapshot& prev,
                               const KernelSnapshot& cur, const SampleTally& tally,
                               const KernelRunContext& ctx, const Scenario& sc) {
    db::Batch b;
    const KernelLedger l = kernel_ledger(prev, cur, sc.kernel.path == KernelPath::forward);
    b.intervals.push_back({trial, seq, t, l.received, l.delivered, l.forwarded, 0, l.dropped, l.sent});
    add_stage_rows(b, trial, seq, tally, ctx, false);
    const std::string event = db::stack_event_name(sc.capture.sample_event);
    for (const auto& [frames, weight] : tally.stacks)
        b.stacks.push_back({trial, event, frames, weight, seq, -1});
    return b;
}

db::Batch kernel_trial_rows(int trial, const KernelTrialResult& r, const KernelRunContext& ctx,
                            const Scenario& sc) {
    db::Batch b;
    const bool forward = sc.kernel.path == KernelPath::forward;
    const KernelLedger whole = kernel_ledger(r.start, r.end, forward);
    const KernelLedger win = kernel_ledger(r.window_start, r.window_end, forward);
    const double secs = seconds_between(r.window_start, r.window_end);
    db::TrialRow row{trial, secs, whole.received, whole.delivered, whole.forwarded, 0, whole.dropped,
                     whole.sent, per_second(win.received, secs), per_second(win.forwarded, secs),
                     per_second(win.delivered, secs), win.received, 0, 0, whole.sends,
                     per_second(win.sent, secs), win.sent, 0, 0};
    row.window_ns = r.conditions.window_ns;
    row.steal_ns = r.conditions.steal_ns;
    row.others_ns = r.conditions.others_ns;
    b.trials.push_back(row);
    for (db::ThreadRow t : r.threads) {
        t.trial = trial;
        b.threads.push_back(std::move(t));
    }
    add_stage_rows(b, trial, -1, r.samples, ctx, true);
    for (const auto& [k, n] : whole.receive_drops) b.drops.push_back({trial, k, "", "receive", n});
    for (const auto& [k, n] : whole.send_drops) b.drops.push_back({trial, k, "", "send", n});
    for (const auto& [k, n] : whole.udp_drops) b.drops.push_back({trial, k, "", kUdpDropPath, n});
    add_kfree_skb_rows(b, trial, r, ctx);
    auto event = [&](engine::PathEvent e, uint64_t ProbeCounts::*f) {
        b.events.push_back({trial, event_name(e), r.end.probes.*f - r.start.probes.*f,
                            r.window_end.probes.*f - r.window_start.probes.*f});
    };
    if (sc.kernel.count_lookups) {  // not counted: absent, not 0
        event(engine::PathEvent::routes_resolved, &ProbeCounts::fib_lookups);
        event(engine::PathEvent::fib_lookups, &ProbeCounts::fib_tables);
    }
    if (sc.kernel.path == KernelPath::rr) {
        b.events.push_back({trial, event_name(engine::PathEvent::rr_transactions),
                            r.end.work.transactions - r.start.work.transactions,
                            r.window_end.work.transactions - r.window_start.work.transactions});
        b.events.push_back({trial, event_name(engine::PathEvent::rr_timeouts),
                            r.end.work.timeouts - r.start.work.timeouts,
                            r.window_end.work.timeouts - r.window_start.work.timeouts});
        if (r.rr_latency.count())
            b.histograms.push_back(histogram_row(trial, db::kLatency, "rr", "cycles", r.rr_latency));
    }
    const std::string prefix = "trial" + std::to_string(trial) + ".";
    b.facts.emplace_back(prefix + "network", r.network);
    add_device_facts(b, prefix, r, forward);
    if (r.period_ns)
        b.facts.emplace_back(
            prefix + "samples",
            fmt::format("{} of {} every {} us on every CPU: {} of the workload's threads and "
                        "ksoftirqd counted, {} of other threads left out, {} lost",
                        r.sampled, sc.capture.sample_event, r.period_ns / 1000, r.samples.counted,
                        r.samples.others, r.lost_samples));
    else
        b.facts.emplace_back(prefix + "samples", "none: " + (r.sampling_note.empty() ? std::string("capture.sample_hz = 0") : r.sampling_note));
    b.facts.emplace_back(prefix + "kfree_skb",
                         fmt::format("{} IPv6 drops on the whole machine; {} on other threads "
                                     "left out",
                                     r.end.probes.drops - r.start.probes.drops, r.others_drops));
    b.facts.emplace_back(prefix + "udp6_in_datagrams",
                         std::to_string(delta(r.start.receiver, r.end.receiver, "Udp6InDatagrams")));
    if (sc.kernel.path != KernelPath::rr && sc.kernel.sink)  // what the sink read (recvmmsg)
        b.events.push_back({trial, kDatagramsRead, r.end.work.received - r.start.work.received,
                            r.window_end.work.received - r.window_start.work.received});
    return b;
}

}  // namespace pathscope::capture
