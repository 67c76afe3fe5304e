#include "capture/recorder.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "analysis/run_summary.h"
#include "capture/perf_events.h"
#include "capture/snapshot_rows.h"
#include "capture/symbolize.h"
#include "db/schema.h"
#include "db/writer.h"
#include "engine/eal.h"

namespace pathscope::capture {

using namespace engine;

namespace {

void append(db::Batch& to, db::Batch&& from) {
    auto move_all = [](auto& dst, auto& src) {
        dst.insert(dst.end(), std::make_move_iterator(src.begin()),
                   std::make_move_iterator(src.end()));
    };
    move_all(to.trials, from.trials);
    move_all(to.intervals, from.intervals);
    move_all(to.stages, from.stages);
    move_all(to.queues, from.queues);
    move_all(to.drops, from.drops);
    move_all(to.histograms, from.histograms);
    move_all(to.perf, from.perf);
    move_all(to.stacks, from.stacks);
    move_all(to.traces, from.traces);
    move_all(to.facts, from.facts);
}

std::string join_lines(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : "\n") + s;
    return out;
}

db::PacketTraceRow trace_row(Engine& engine, int trial, int64_t seq, uint64_t trial_tsc,
                             const PacketTrace& t) {
    db::PacketTraceRow row;
    row.trial = trial;
    row.seq = seq;
    row.t = t.tsc > trial_tsc
                ? static_cast<double>(t.tsc - trial_tsc) / static_cast<double>(rte_get_tsc_hz())
                : 0;
    row.port = engine.context().ports.size() > t.port ? engine.context().ports[t.port].name : "";
    row.wire_len = t.wire_len;
    row.data.assign(t.data.begin(), t.data.begin() + t.cap_len);
    for (unsigned i = 0; i < t.stages; ++i)
        row.stage_cycles.emplace_back(engine.node_name(t.node[i]), t.cycles[i]);
    switch (t.outcome) {
        case PacketTrace::Outcome::forwarded:
            row.outcome = "forwarded";
            break;
        case PacketTrace::Outcome::replied:
            row.outcome = "replied";
            break;
        case PacketTrace::Outcome::dropped:
            row.outcome =
                "dropped: " + std::string(drop_reason_name(static_cast<DropReason>(t.drop)));
            break;
        case PacketTrace::Outcome::unknown:
            // Handed to a socket: udp6_input was its last stage and it was not dropped.
            row.outcome = !row.stage_cycles.empty() && row.stage_cycles.back().first == "udp6_input"
                              ? "delivered"
                              : "";
    }
    return row;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return "";
}

}  // namespace

db::RunData store_import(const std::string& kind, const std::string& file,
                         const std::string& label, db::Batch rows, const std::string& db_path) {
    db::RunInfo info = machine_run_info();
    info.label = label.empty() ? std::filesystem::path(file).filename().string() : label;
    info.kind = kind;
    info.tsc_hz = 0;  // the importing machine's TSC says nothing of the file
    info.scenario_path = file;
    info.trials = 1;
    db::RunWriter writer(db_path, info);
    db::RunData run{writer.run(), rows};
    writer.submit(std::move(rows));
    writer.finish("complete");
    run.info.status = "complete";
    run.info.ended_at = db::utc_now();
    return run;
}

db::RunInfo machine_run_info() {
    db::RunInfo info;
    info.host = db::host_name();
    info.cpu_model = cpu_model();
    info.tsc_hz = rte_get_tsc_hz();
    info.engine_version = PATHSCOPE_VERSION;
    info.git_revision = PATHSCOPE_GIT_REVISION;
    info.pid = getpid();
    return info;
}

namespace {

/// One run being recorded: its writer, and its trials one at a time (a
/// matrix interleaves the trials of its cells).
class RunRecording {
  public:
    RunRecording(const Scenario& sc, const RecordOptions& opt, const std::string& label,
                 const std::string& experiment, const std::string& cell)
        : sc_(sc), opt_(opt), writer_(opt.db_path, run_info(sc, opt, label, experiment, cell)) {
        result_.run.info = writer_.run();
        db::Batch variants;
        variants.facts.emplace_back(db::kVariantsFact, describe_variants(sc.engine));
        result_.run.rows.facts = variants.facts;
        writer_.submit(std::move(variants));
    }

    bool stopped() const { return result_.interrupted || !result_.error.empty(); }

    /// Runs and records trial `trial`; `progress` gets the cell's place.
    void trial(unsigned trial, unsigned cell, unsigned cells);

    RecordResult finish() {
        if (result_.error.empty()) {
            try {
                if (result_.interrupted)
                    writer_.finish("aborted", "stopped by Ctrl-C; every interval before it is kept");
                else
                    writer_.finish("complete");
            } catch (const std::exception& e) {
                result_.error = e.what();
            }
        }
        result_.run.info.status =
            result_.error.empty() && !result_.interrupted ? "complete" : "aborted";
        result_.run.info.ended_at = db::utc_now();
        return std::move(result_);
    }

  private:
    static db::RunInfo run_info(const Scenario& sc, const RecordOptions& opt,
                                const std::string& label, const std::string& experiment,
                                const std::string& cell) {
        const CaptureSettings& cs = sc.capture;
        db::RunInfo info = machine_run_info();
        info.label = label;
        info.scenario_path = opt.scenario_path;
        info.scenario_text = sc.text;
        info.settings = join_lines(sc.overrides);
        info.trials = static_cast<int>(cs.trials);
        info.trial_seconds = sc.engine.duration_s;
        info.interval_seconds = cs.interval_s;
        info.pmu = probe_pmu(cs.perf_events);
        info.experiment = experiment;
        info.cell = cell;
        return info;
    }

    const Scenario& sc_;
    const RecordOptions& opt_;
    db::RunWriter writer_;
    RecordResult result_;
};

void RunRecording::trial(unsigned trial, unsigned cell, unsigned cells) {
    const Scenario& sc = sc_;
    const RecordOptions& opt = opt_;
    const CaptureSettings& cs = sc.capture;
    db::RunWriter& writer = writer_;
    RecordResult& result = result_;
    const int tr = static_cast<int>(trial);
    std::optional<PerfCounters> counters;
    std::optional<PerfSampler> sampler;
    Engine* engine = nullptr;
    EngineSnapshot prev;
    int seq = 0;
    int64_t trace_seq = 0;
    std::optional<Symbolizer> sym;      // made once the worker runs (its libraries loaded)
    // Stacks stored with the intervals; the printout gets them too.
    std::vector<db::StackRow> sampled;
    // The samples since the last call, symbolized, as interval `at`'s.
    auto take_stacks = [&](int at, db::Batch& into) {
        if (!sampler || !sampler->ok()) return;
        sampler->drain();
        if (!sym) sym.emplace();
        for (auto& row : sym->stacks(tr, sampler->event(), sampler->take())) {
            row.seq = at;
            into.stacks.push_back(std::move(row));
        }
    };
    uint64_t trial_tsc = 0;
    auto drain_traces = [&](db::Batch& into) {
        engine->drain_traces([&](const PacketTrace& t) {
            into.traces.push_back(trace_row(*engine, tr, trace_seq++, trial_tsc, t));
        });
    };
    RunHooks hooks;
    hooks.interval_s = cs.interval_s;
    hooks.started = [&](Engine& e) {
        engine = &e;
        trial_tsc = rte_rdtsc();
        prev = e.snapshot(false);
        const int tid = e.worker_tid();
        if (!cs.perf_events.empty()) counters.emplace(cs.perf_events, tid);
        if (cs.sample_hz) sampler.emplace(cs.sample_event, cs.sample_hz, tid);
        if (cs.traces_per_s && e.config().call_histograms) e.set_trace_rate(cs.traces_per_s);
    };
    hooks.interval = [&](double t, const EngineSnapshot& s) {
        const int at = seq++;
        db::Batch b = interval_rows(tr, at, t, prev, s);
        prev = s;
        drain_traces(b);
        take_stacks(at, b);  // per interval: a time range has its own flame graph
        sampled.insert(sampled.end(), b.stacks.begin(), b.stacks.end());
        writer.submit(std::move(b));
        if (auto err = writer.error()) {
            result.error = *err;
            return false;
        }
        if (opt.progress)
            opt.progress({trial + 1, cs.trials, t, sc.engine.duration_s, s.ledger.received,
                          writer.rows_written(), cell + 1, cells});
        return true;
    };
    db::Batch late;  // what only the end of a trial gives
    hooks.stopped = [&](Engine&) {
        drain_traces(late);
        if (counters) late.perf = counters->read(tr);
        const std::string key = "trial" + std::to_string(trial) + ".samples";
        if (sampler && sampler->ok()) {
            take_stacks(std::max(0, seq - 1), late);  // the tail goes with the last interval
            late.facts.emplace_back(key, std::to_string(sampler->samples()) + " of " +
                                             sampler->event() + " (" +
                                             std::to_string(sampler->lost()) + " lost)");
        } else if (sampler) {
            late.facts.emplace_back(key, "none: " + sampler->event() + ": " + sampler->note());
        }
        counters.reset();
        sampler.reset();
    };
    RunResult r = run_engine(sc.engine, hooks);
    result.interrupted = r.interrupted;
    db::Batch totals = trial_rows(tr, r);
    append(totals, std::move(late));
    db::Batch copy = totals;
    writer.submit(std::move(totals));
    copy.stacks.insert(copy.stacks.end(), sampled.begin(), sampled.end());
    append(result.run.rows, std::move(copy));
    if (auto err = writer.error()) result.error = *err;
}

std::string default_label(const Scenario& sc, const RecordOptions& opt) {
    if (!opt.label.empty()) return opt.label;
    std::string label = std::filesystem::path(opt.scenario_path).stem().string();
    for (const auto& o : sc.overrides) label += " " + o;
    return label;
}

}  // namespace

RecordResult record_run(const Scenario& sc, const RecordOptions& opt) {
    eal_init(sc.engine.eal_args);
    RunRecording rec(sc, opt, default_label(sc, opt), "", "");
    for (unsigned trial = 0; trial < sc.capture.trials && !rec.stopped(); ++trial)
        rec.trial(trial, 0, 1);
    return rec.finish();
}

std::vector<RecordResult> record_matrix(const std::string& scenario_path,
                                        const std::vector<std::string>& overrides,
                                        const RecordOptions& opt) {
    const Scenario base = load_scenario(scenario_path, overrides);
    std::vector<Scenario> cells;
    std::vector<MatrixCell> settings = matrix_cells(base);
    for (const MatrixCell& cell : settings) {
        std::vector<std::string> sets = overrides;
        sets.insert(sets.end(), cell.begin(), cell.end());
        try {
            cells.push_back(load_scenario(scenario_path, sets));
        } catch (const ScenarioError& e) {
            throw ScenarioError("[matrix] cell " + describe_cell(cell) + ": " + e.what());
        }
        cells.back().overrides = overrides;  // the run keeps --set; its cell says the rest
    }
    eal_init(base.engine.eal_args);
    const std::string experiment = db::new_uuid().substr(0, 12);
    const std::string label = default_label(base, opt);
    std::vector<std::unique_ptr<RunRecording>> runs;
    for (size_t i = 0; i < cells.size(); ++i)
        runs.push_back(std::make_unique<RunRecording>(cells[i], opt,
                                                      label + " [" + describe_cell(settings[i]) + "]",
                                                      experiment, describe_cell(settings[i], "\n")));
    // Trial by trial across the cells, so that drift of the machine during
    // the experiment falls on every cell alike.
    unsigned trials = 0;
    for (const auto& c : cells) trials = std::max(trials, c.capture.trials);
    bool stop = false;
    for (unsigned t = 0; t < trials && !stop; ++t)
        for (size_t i = 0; i < runs.size() && !stop; ++i) {
            if (t >= cells[i].capture.trials) continue;
            runs[i]->trial(t, static_cast<unsigned>(i), static_cast<unsigned>(runs.size()));
            stop = runs[i]->stopped();
        }
    std::vector<RecordResult> out;
    for (auto& r : runs) out.push_back(r->finish());
    return out;
}

}  // namespace pathscope::capture
