#include "analysis/render/run_view.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "analysis/text/safe_text.h"
#include "analysis/figures/sampled_stages.h"
#include "analysis/text/text_builder.h"

namespace pathscope::analysis {

namespace {

using ull = unsigned long long;

double ratio(uint64_t a, uint64_t b) {
    return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

/// A trial's "on CPU" cell: its workers' least share of the window on their
/// CPUs, marked when disturbed or replaced by a re-run ("-": not measured).
std::string on_cpu_cell(const RunSummary& sum, int trial) {
    for (const auto& c : sum.conditions)
        if (c.trial == trial)
            return c.on_cpu_text() + (c.replaced ? " replaced" : c.disturbed ? " disturbed" : "");
    return "-";
}

/// A Linux run's stage table: each stage's samples, its share of them and
/// its cycles per path packet with one sampling standard error.
void render_sampled_stages(TextBuilder& t, const RunSummary& sum) {
    uint64_t samples = 0;
    for (const auto& st : sum.stages) samples += st.calls;
    t.emit("\n%-18s %10s %8s %11s %10s %12s\n", "stage", "samples", "share", sum.basis.unit,
           "+/- (1 se)", "drops");
    auto row = [&](const std::string& name, const StageLine& st, const std::string& drops) {
        t.emit("%-18s %10llu %7.1f%% %11.1f %10s %12s\n", name, static_cast<ull>(st.calls),
               samples ? 100.0 * static_cast<double>(st.calls) / static_cast<double>(samples) : 0.0,
               st.cycles_per_path_packet,
               std::isnan(st.sampling_error) ? std::string("-") : fmt::format("{:.1f}", st.sampling_error),
               drops);
    };
    for (const auto& st : sum.stages) row(st.name, st, std::to_string(st.drops));
    row(sum.all.name, sum.all, std::to_string(sum.all.drops));
    t.text += fold_lines(fmt::format(
        "A Linux run's stages are sampled CPU time: every sample of the workload's threads (and "
        "ksoftirqd) on every CPU goes to the stage of the innermost function the stage map names "
        "(kernel time it names nowhere is \"{}\"); a stage's cycles are its samples x the sampling "
        "period, in TSC cycles. {}: each trial's stage cycles over its {}, averaged over the {} "
        "trial{} (the value compare tests; all stages: sd {:.1f}); +/-: one standard error from "
        "the samples (Poisson). drops: skb:kfree_skb drops by the stage of the function that "
        "dropped.",
        db::kUnmappedKernelStage, sum.basis.unit,
        sum.basis.transmit ? "datagrams sockets sent" : "received packets", sum.trials.size(),
        sum.trials.size() == 1 ? "" : "s", sum.all.cycles_per_path_packet_sd));
}

}  // namespace

RateUnit rate_unit(double largest_pps) {
    // Mpps in every view (compare, report and the GUI judge rates in Mpps),
    // with the digits a slow rate needs: 0.0388 Mpps, not 38.8 kpps here and
    // 0.039 Mpps there.
    int decimals = 3;
    for (double at = 1e5; largest_pps < at && decimals < 6; at /= 10) ++decimals;
    return {"Mpps", 1e6, decimals};
}

std::string format_rate(double pps, const RateUnit& unit) {
    return fmt::format("{:.{}f} {}", pps / unit.per, unit.decimals, unit.name);
}

std::string format_rate(double pps) { return format_rate(pps, rate_unit(pps)); }

std::string render_run(const db::RunData& run, const RunViewOptions& opt) {
    SummaryOptions so;
    so.top_functions = opt.top_frames;
    return render_run(summarize_run(run, so), opt);
}

namespace {

/// The run's identity: id, label, host and CPU, version, times, scenario, settings.
void render_header(TextBuilder& t, const RunSummary& sum, const RunViewOptions& opt) {
    const db::RunInfo& info = sum.info;
    const bool import = info.kind != "capture";
    if (!opt.header) return;
    t.emit("run %lld  \"%s\"  %s  %s\n", static_cast<long long>(info.id), printable(info.label),
           info.kind, info.status);
    t.emit("host %s, %s", printable(info.host),
           info.cpu_model.empty() ? "unknown CPU" : printable(info.cpu_model));
    if (info.tsc_hz) t.emit(", TSC %.3f GHz", static_cast<double>(info.tsc_hz) / 1e9);
    t.emit(", pathscope %s%s%s\n", info.engine_version, info.git_revision.empty() ? "" : " @ ",
           info.git_revision);
    t.emit("started %s, ended %s\n", info.started_at,
           info.ended_at.empty() ? "-" : info.ended_at);
    if (!info.scenario_path.empty())
        t.emit("%s %s\n", import ? "imported from" : "scenario", printable(info.scenario_path));
    if (!info.settings.empty()) {
        std::string s = info.settings;
        std::replace(s.begin(), s.end(), '\n', ' ');
        t.emit("settings %s\n", printable(s));
    }
    for (const auto& [k, v] : sum.facts)
        if (k == db::kVariantsFact) t.emit("variants %s\n", printable(v));
    if (!info.experiment.empty()) {
        std::string cell = info.cell;
        std::replace(cell.begin(), cell.end(), '\n', ' ');
        t.emit("experiment %s, cell %s\n", printable(info.experiment), printable(cell));
    }
    if (!info.pmu.empty()) t.emit("perf_event %s\n", info.pmu.substr(0, info.pmu.find('\n')));
    if (!info.note.empty()) t.emit("note: %s\n", printable(info.note));
}

/// Each trial's transmit rate over its steady window, with its sends.
void render_tx_trials(TextBuilder& t, const RunSummary& sum) {
    const db::RunInfo& info = sum.info;
    const bool import = info.kind != "capture";
    if (!sum.trials.empty() && !import && sum.total.sends) {
        t.emit("\n%-6s %9s %14s %14s %16s %14s %14s  %s\n", "trial", "window s", "tx in window",
               "tx rate", "sends whole trial", "lookups/send", "src sel/send", "on CPU");
        double top = 0;
        for (const auto& tr : sum.trials) top = std::max(top, tr.sent_pps);
        const RateUnit unit = rate_unit(top);
        // The kernel does not count a datagram's lookups and selections: absent, not 0.
        auto per_send = [&](uint64_t n, uint64_t sends) {
            return sum.sampled ? std::string("-") : fmt::format("{:.3f}", ratio(n, sends));
        };
        for (const auto& tr : sum.trials)
            t.emit("%-6d %9.2f %14llu %14s %16llu %14s %14s  %s\n", tr.trial, tr.seconds,
                   static_cast<ull>(tr.window_sent), format_rate(tr.sent_pps, unit),
                   static_cast<ull>(tr.sends), per_send(tr.route_lookups, tr.sends),
                   per_send(tr.source_selections, tr.sends), on_cpu_cell(sum, tr.trial));
        t.emit(
            "tx rate = tx in window / window s (datagrams transmitted); lookups/send: FIB\n"
            "lookups per datagram sent, src sel/send: source address selections per datagram\n");
        if (sum.sampled)
            t.emit("(a Linux run: the kernel's Udp6OutDatagrams; its lookups per datagram are not\n"
                   "counted, see routes_resolved among the path events)\n");
    }
}

/// Each trial's receive rate over its steady window, with its outcomes.
void render_rx_trials(TextBuilder& t, const RunSummary& sum) {
    const db::RunInfo& info = sum.info;
    const bool import = info.kind != "capture";
    if (!sum.trials.empty() && !import && (sum.total.received || !sum.total.sends)) {
        t.emit("\n%-6s %9s %14s %14s %14s %14s %16s  %s\n", "trial", "window s", "rx in window",
               "rx rate", "forwarded", "delivered", "rx whole trial", "on CPU");
        double top = 0;
        for (const auto& tr : sum.trials) top = std::max(top, tr.rx_pps);
        const RateUnit unit = rate_unit(top);  // forwarded and delivered are parts of rx
        for (const auto& tr : sum.trials)
            t.emit("%-6d %9.2f %14llu %14s %14s %14s %16llu  %s\n", tr.trial, tr.seconds,
                   static_cast<ull>(tr.window_received), format_rate(tr.rx_pps, unit),
                   format_rate(tr.forwarded_pps, unit), format_rate(tr.delivered_pps, unit),
                   static_cast<ull>(tr.received), on_cpu_cell(sum, tr.trial));
        t.emit(
            "rates are over each trial's steady window (from 20%% in to its end): rx rate = "
            "rx in window / window s\n");
    }
}

/// How much of the window the workers had their CPUs, and each disturbed trial.
void render_disturbance(TextBuilder& t, const RunSummary& sum) {
    const db::RunInfo& info = sum.info;
    const bool import = info.kind != "capture";
    if (!sum.trials.empty() && !import) {
        t.text += fold_lines("on CPU: the workers' least share of the steady window on their "
                             "CPUs; " + disturbance_line(sum.disturbance));
        for (const auto& c : sum.conditions)
            if (c.disturbed && !c.replaced)
                t.text += fold_lines(fmt::format(
                    "WARNING: trial {} was disturbed: {}; other processes used {:.2f} CPUs and "
                    "the hypervisor stole {:.2f} over its window. {} (--set "
                    "capture.retry_disturbed=3 re-runs disturbed trials).",
                    c.trial, c.why(), c.others_cpus, c.steal_cpus, c.consequence()));
    }
}

/// The spread of the per-interval rates.
void render_interval_rates(TextBuilder& t, const RunSummary& sum) {
    if (sum.rates && (sum.total.received || sum.basis.transmit)) {
        const RateUnit unit = rate_unit(sum.rates->max);
        const std::string of_counted =
            sum.counted_trials() < sum.trials.size()
                ? fmt::format(" (the {} trials that count)", sum.counted_trials())
                : "";
        t.emit("\n%zu intervals of %.2f s%s: %s rate min %s, median %s, max %s\n",
               sum.rates->count, sum.rates->interval_s, of_counted.c_str(),
               sum.basis.transmit ? "transmit" : "receive", format_rate(sum.rates->min, unit),
               format_rate(sum.rates->median, unit), format_rate(sum.rates->max, unit));
    }
}

/// The stage table (or the kernel's sampled stages), with the worker's load.
void render_stages(TextBuilder& t, const RunSummary& sum, const RunViewOptions& opt) {
    const db::RunInfo& info = sum.info;
    const bool import = info.kind != "capture";
    if (!sum.stages.empty() && sum.sampled) {
        render_sampled_stages(t, sum);
    } else if (!sum.stages.empty()) {
        const WorkerLoad& w = sum.worker;
        std::string on_cpus;  // "worker on CPU 1", "workers on CPUs 0, 1"
        for (int cpu : w.cpus) on_cpus += (on_cpus.empty() ? "" : ", ") + std::to_string(cpu);
        if (!on_cpus.empty())
            on_cpus = (w.cpus.size() == 1 ? " on CPU " : "s on CPUs ") + on_cpus;
        if (w.measured)
            t.emit("\nworker%s: %llu graph walks, %.1f%% idle (no packet handled); idle polling "
                   "took %.1f%% of its stage cycles\n",
                   on_cpus.c_str(), static_cast<ull>(w.walks), 100 * w.idle_walk_share(),
                   100 * w.idle_share);
        else if (!import)
            t.emit("\nworker: idle polling not measured (engine.call_histograms = false runs "
                   "DPDK's own graph walk)\n");
        if (const std::string warn = starved_warning("run " + std::to_string(info.id), w);
            !warn.empty())
            t.text += fold_lines("WARNING: " + warn);
        t.emit("\n%-12s %12s %14s %10s %12s %11s %11s %7s %12s\n", "stage", "busy calls",
               "packets", "pkts/call", "cycles/call", "cycles/pkt", sum.basis.unit, "idle %",
               "drops");
        const auto stage_row = [&](const std::string& name, const StageLine& st, bool drops) {
            std::string idle = w.measured ? fmt::format("{:.1f}", 100 * st.idle_share) : "-";
            t.emit("%-12s %12llu %14llu %10.2f %12.1f %11.1f %11.1f %7s %12s\n", name,
                   static_cast<ull>(st.busy_calls()), static_cast<ull>(st.packets),
                   st.packets_per_call, st.cycles_per_call, st.cycles_per_packet,
                   st.cycles_per_path_packet, idle,
                   drops ? std::to_string(st.drops) : std::string("-"));
        };
        for (const auto& st : sum.stages) {
            stage_row(st.name, st, true);
            // Under eth_rx, each receive queue's share (its own instance):
            // part of eth_rx, so they add nothing to "all stages".
            if (st.name == "eth_rx")
                for (const auto& q : sum.rx_queues) stage_row("  " + q.name, q, false);
            if (!opt.worker_rows) continue;
            for (const auto& wl : sum.worker_stages)
                for (const auto& ws : wl.stages)
                    if (ws.name == st.name)
                        stage_row("  worker " + std::to_string(wl.worker), ws, false);
        }
        t.emit("%-12s %12s %14llu %10s %12s %11s %11.1f %7s %12llu\n", sum.all.name, "",
               static_cast<ull>(sum.all.packets), "", "", "", sum.all.cycles_per_path_packet,
               w.measured ? fmt::format("{:.1f}", 100 * sum.all.idle_share) : "-",
               static_cast<ull>(sum.all.drops));
        t.emit(
            "busy calls handled at least one packet; pkts/call, cycles/call and cycles/pkt (over\n"
            "the stage's own packets) count busy calls only. Idle calls polled an empty queue:\n"
            "their cycles are the idle %%. %s: each trial's busy cycles over its\n"
            "%s, averaged over the %zu trial%s that count (the value compare\n"
            "tests; all stages: sd %.1f); its rows add up to \"all stages\".\n",
            sum.basis.unit,
            sum.basis.transmit ? "datagrams sockets sent (nothing was received)"
                               : "received packets",
            sum.counted_trials(), sum.counted_trials() == 1 ? "" : "s",
            sum.all.cycles_per_path_packet_sd);
        if (sum.counted_trials() < sum.trials.size())
            t.text += fold_lines(fmt::format(
                "Busy calls, packets and drops count all {} trials, the {} replaced by a re-run "
                "included, as the ledger does; every per-call, per-packet and idle figure is the "
                "mean of the {} that count.",
                sum.trials.size(), sum.trials.size() - sum.counted_trials(),
                sum.counted_trials()));
        if (const std::string line =
                timing_cost_line(sum.timing, sum.basis.unit, sum.all.cycles_per_path_packet);
            !line.empty())
            t.text += fold_lines(line);
        if (opt.worker_rows && !sum.worker_stages.empty())
            t.emit(
                "worker N rows: the stage's calls on that worker; its %s over the run's\n"
                "packets, as the queue rows, so that they add up to the stage (show --worker N:\n"
                "over that worker's own). Drops by reason are kept for the whole engine: -.\n",
                sum.basis.unit);
    }
}

/// The receive and send ledgers, and whether each balances.
void render_ledger(TextBuilder& t, const RunSummary& sum) {
    if (!sum.trials.empty()) {
        const db::TrialRow& s = sum.total;
        t.emit(
            "\nreceived %llu = delivered %llu + forwarded %llu + replied %llu + dropped %llu  "
            "[%s]\n",
            static_cast<ull>(s.received), static_cast<ull>(s.delivered),
            static_cast<ull>(s.forwarded), static_cast<ull>(s.replied),
            static_cast<ull>(s.dropped), sum.balanced ? "balanced" : "NOT BALANCED");
        if (sum.sampled)
            t.text += fold_lines(
                "(the Linux kernel's own counters: received = Ip6InReceives, delivered = "
                "Ip6InDelivers, forwarded = Ip6OutForwDatagrams, dropped = the IPv6 MIB's drop "
                "counters, all of the namespace that receives; sends = the datagrams the sender "
                "offered sendmmsg, sent = Udp6OutDatagrams, send-path drops = Udp6SndbufErrors and "
                "the refusals sendmmsg returned)");
        if (s.sends)
            t.emit("sends %llu = sent %llu + send-path drops %llu  [%s]\n",
                   static_cast<ull>(s.sends), static_cast<ull>(s.sent),
                   static_cast<ull>(s.sends >= s.sent ? s.sends - s.sent : 0),
                   sum.send_balanced ? "balanced" : "NOT BALANCED");
        else
            t.emit("sent by local sockets %llu\n", static_cast<ull>(s.sent));
    }
}

/// A run of several workers: each one's receive ledger, and whether they
/// add up to the run's.
void render_worker_ledgers(TextBuilder& t, const RunSummary& sum) {
    if (const WorkerLedgers& wl = sum.worker_ledgers; wl.lines.size() >= 2) {
        t.emit("\n%-6s %5s %14s %14s %14s %14s %14s %9s\n", "worker", "lcore", "received",
               "delivered", "forwarded", "replied", "dropped", "balanced");
        for (const auto& l : wl.lines)
            t.emit("%-6d %5d %14llu %14llu %14llu %14llu %14llu %9s\n", l.worker, l.lcore,
                   static_cast<ull>(l.received), static_cast<ull>(l.delivered),
                   static_cast<ull>(l.forwarded), static_cast<ull>(l.replied),
                   static_cast<ull>(l.dropped), l.balanced() ? "yes" : "NO");
        t.emit("the %zu workers' ledgers (packets, every trial) %s\n", wl.lines.size(),
               wl.sum_matches ? "add up to the run's" : ("do NOT add up: " + wl.mismatch).c_str());
    }
}

/// Latency percentiles per outcome, round trips and timed calls.
void render_latencies(TextBuilder& t, const RunSummary& sum) {
    const db::RunInfo& info = sum.info;
    if (!sum.latencies.empty()) {
        const double us = info.tsc_hz ? 1e6 / static_cast<double>(info.tsc_hz) : 0;
        t.emit("\n%-14s %12s %21s %21s %21s\n", "latency", "count", "p50 cycles (us)",
               "p90 cycles (us)", "p99 cycles (us)");
        auto cell = [&](double cycles) {
            return us ? fmt::format("{:.0f} ({:.2f})", cycles, cycles * us)
                      : fmt::format("{:.0f}", cycles);
        };
        for (const auto& l : sum.latencies)
            t.emit("%-14s %12llu %21s %21s %21s\n", l.subject, static_cast<ull>(l.count),
                   cell(l.p50), cell(l.p90), cell(l.p99));
        if (sum.sampled)
            t.emit("rr: a request's round trip, from the client's send to its receipt of the\n"
                   "answer (TSC); percentiles are each trial's, averaged\n");
        else
            t.emit(
                "latency: a received packet's time from eth_rx to its outcome (forwarded, delivered,\n"
                "replied, dropped), rr: a request's round trip; percentiles are each trial's, averaged\n");
    }
}

/// Path events and the figures made of them.
void render_events(TextBuilder& t, const RunSummary& sum) {
    if (!sum.events.empty() || !sum.event_figures.empty()) {
        t.emit("\n%-24s %16s\n", "path event", "count");
        for (const auto& [name, n] : sum.events)
            t.emit("%-24s %16llu\n", name, static_cast<ull>(n));
        for (const auto& f : sum.event_figures)
            t.emit("%-24s %16s  sd %s\n", f.name,
                   fmt::format("{:.3f} {}", f.mean, f.unit), fmt::format("{:.3f}", f.sd));
    }
}

/// Drops by reason and path.
void render_drops(TextBuilder& t, const RunSummary& sum) {
    if (!sum.drops.empty()) {
        t.emit("\n%-22s %-9s %14s\n", "drop reason", "path", "packets");
        for (const auto& d : sum.drops)
            t.emit("%-22s %-9s %14llu\n", d.reason, d.path, static_cast<ull>(d.packets));
        if (sum.sampled)
            t.text += fold_lines(
                "(receive, send: the kernel's counters of the ledger; udp: what UDP dropped after "
                "IPv6 delivered it; kfree_skb: skb:kfree_skb events on the workload's threads, by the "
                "reason the kernel gives)");
    }
    if (sum.sampled) t.text += "\n" + fold_lines(kKernelAbsent);
}

/// Every queue's totals and burst sizes.
void render_queues(TextBuilder& t, const RunSummary& sum) {
    if (!sum.queues.empty()) {
        t.emit("\n%-10s %5s %3s %6s %14s %14s %12s %12s %10s %10s %13s\n", "port", "queue",
               "dir", "worker", "packets", "bytes", "bursts", "empty-polls", "pkts/burst",
               "refused", "burst p50/p99");
        for (const auto& ql : sum.queues) {
            const db::QueueRow& q = ql.totals;
            const std::string pct =
                ql.has_burst ? fmt::format("{:.0f}/{:.0f}", ql.burst_p50, ql.burst_p99) : "-";
            t.emit("%-10s %5d %3s %6d %14llu %14llu %12llu %12llu %10.2f %10llu %13s\n", printable(q.port),
                   q.queue, q.dir, q.worker, static_cast<ull>(q.packets), static_cast<ull>(q.bytes),
                   static_cast<ull>(q.bursts), static_cast<ull>(q.empty_polls),
                   ratio(q.packets, q.bursts), static_cast<ull>(q.full), pct);
        }
    }
}

/// perf_event counts and their figures per packet.
void render_perf(TextBuilder& t, const RunSummary& sum) {
    if (!sum.perf.empty()) {
        const bool several = sum.worker_stages.size() > 1;
        t.emit("\n%-26s %16s %-7s %14s\n", several ? "perf event (worker 0)" : "perf event (worker)",
               "count", "unit", several ? "per its packet" : "per packet");
        for (const auto& p : sum.perf) {
            if (p.supported)
                t.emit("%-26s %16llu %-7s %14.3f\n", printable(p.event), static_cast<ull>(p.value), p.unit,
                       p.per_packet);
            else
                t.emit("%-26s %16s %-7s %14s  %s\n", printable(p.event), "-", "", "-", printable(p.note));
        }
    }
}

/// The hottest functions, the stored traces and the run's facts.
void render_hottest(TextBuilder& t, const RunSummary& sum, const RunViewOptions& opt) {
    const db::RunInfo& info = sum.info;
    const bool import = info.kind != "capture";
    if (!sum.hottest.empty() && opt.top_frames) {
        t.emit("\nhottest functions (self share, the mean of the trials' shares), %llu %s of %s:\n",
               static_cast<ull>(sum.stack_samples),
               printable(sum.stack_event) + " samples",
               import ? "the profile"
                      : sum.sampled ? "the workload's threads and ksoftirqd (kernel and user frames)"
                      : (sum.worker_stages.size() > 1 ? "worker 0 (sampled alone)" : "the worker"));
        for (const auto& f : sum.hottest) t.emit("  %6.2f%%  %s\n", 100.0 * f.share, printable(f.name));
    }
    if (sum.traces)
        t.emit("\n%zu packet traces stored (pathscope export RUN --format pcapng)\n", sum.traces);
    if (!sum.facts.empty()) {
        t.emit("\n");
        for (const auto& [k, v] : sum.facts)
            if (k != db::kVariantsFact) t.emit("%-28s %s\n", printable(k), printable(v));
    }
}

/// The busiest stages' per-call cycle histograms.
void render_histograms(TextBuilder& t, const RunSummary& sum, const RunViewOptions& opt) {
    if (opt.histograms)
        for (const auto& h : sum.busiest) {
            t.emit("\ncycles per call, %s (%s):\n", h.stage,
                   histogram_calls_note(h.cycles.count(), h.busy_calls));
            t.text += render_text(h.cycles, "cycles", 12);
        }
}

}  // namespace

std::string render_run(const RunSummary& sum, const RunViewOptions& opt) {
    TextBuilder t;
    render_header(t, sum, opt);
    render_tx_trials(t, sum);
    render_rx_trials(t, sum);
    render_disturbance(t, sum);
    render_interval_rates(t, sum);
    render_stages(t, sum, opt);
    render_ledger(t, sum);
    render_worker_ledgers(t, sum);
    render_latencies(t, sum);
    render_events(t, sum);
    render_drops(t, sum);
    render_queues(t, sum);
    render_perf(t, sum);
    render_hottest(t, sum, opt);
    render_histograms(t, sum, opt);
    // Whatever else came from the store (a name this view prints as it is)
    // is shown, never obeyed, by the terminal.
    return printable_lines(t.text);
}

}  // namespace pathscope::analysis
