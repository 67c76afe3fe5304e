#include "capture/recorder.h"
#include "capture/pcap_probe.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>

#include "analysis/verdicts/experiment.h"
#include "analysis/figures/run_summary.h"
#include "analysis/figures/trial_conditions.h"
#include "capture/environment.h"
#include "capture/kernel/kernel_rows.h"
#include "capture/kernel/kernel_run.h"
#include "capture/kernel/netns.h"
#include "capture/perf_events.h"
#include "capture/run.h"
#include "capture/scenario_stages.h"
#include "capture/snapshot_rows.h"
#include "capture/symbolize.h"
#include "db/schema.h"
#include "db/writer.h"
#include "engine/drop_names.h"
#include "engine/eal.h"
#include "engine/plugins/plugin_library.h"
#include "engine/routes.h"

namespace pathscope::capture {

using namespace engine;

namespace {

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
                "dropped: " + drop_slot_name(t.drop);
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
    db::RunData run{writer.run(), rows, {}};
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
/// matrix interleaves the trials of its cells). The run is created in the
/// store only once its first trial's engine is set up, so that a scenario
/// the device or the memory refuses leaves no run behind.
class RunRecording {
  public:
    RunRecording(const Scenario& sc, const RecordOptions& opt, std::string label,
                 std::string experiment, std::string cell)
        : sc_(sc),
          opt_(opt),
          label_(std::move(label)),
          experiment_(std::move(experiment)),
          cell_(std::move(cell)) {}

    bool created() const { return writer_.has_value(); }
    /// What it recorded so far (trial totals, facts).
    const db::RunData& data() const { return result_.run; }
    /// Stores a fact about the run (the experiment's decision).
    void add_fact(const std::string& key, const std::string& value) {
        if (!created()) return;
        db::Batch b;
        b.facts.emplace_back(key, value);
        result_.run.rows.facts.emplace_back(key, value);
        writer_->submit(std::move(b));
    }
    bool stopped() const {
        return result_.stop_signal || !result_.error.empty() || !result_.setup_error.empty();
    }

    /// Runs and records the trial of block `block` (a disturbed one again,
    /// up to capture.retry_disturbed times); `progress` gets the cell's
    /// place. Throws what stopped the first trial's setup (nothing is
    /// stored then).
    void block(unsigned block, unsigned cell, unsigned cells);

    /// Ends the run as aborted for `why` (another cell of its experiment
    /// could not start), unless it ended for a reason of its own.
    void abort(const std::string& why) {
        if (result_.setup_error.empty()) result_.setup_error = why;
    }

    /// Closes the run (when there is one: a stop before the first trial
    /// started leaves none, and a result with only its stop_signal).
    RecordResult finish() {
        // A stop that came between two trials, or during a trial's setup.
        if (!result_.stop_signal && trials_done_ < sc_.capture.trials)
            result_.stop_signal = StopSignals::received();
        if (!created()) return std::move(result_);
        if (result_.error.empty()) {
            const auto [key, load] = load_fact("env.load_end");
            add_fact(key, load);
        }
        if (result_.error.empty()) {
            try {
                if (!result_.setup_error.empty())
                    writer_->finish("aborted", result_.setup_error);
                else if (result_.stop_signal)
                    writer_->finish("aborted", "stopped by " + stop_name(result_.stop_signal) +
                                                   "; every interval before it is kept");
                else
                    writer_->finish("complete");
            } catch (const std::exception& e) {
                result_.error = e.what();
            }
        }
        result_.run.info.status = stopped() ? "aborted" : "complete";
        result_.run.info.ended_at = db::utc_now();
        return std::move(result_);
    }

  private:
    /// Runs and records one trial, numbered `trial`, of block `block`;
    /// false when it was disturbed and `replaceable` (it is then stored as
    /// replaced, and the block runs again).
    bool trial(unsigned trial, unsigned block, bool replaceable, unsigned cell, unsigned cells);
    /// The same on the Linux kernel target (a fresh network a trial).
    bool kernel_trial(unsigned trial, unsigned block, bool replaceable, unsigned cell, unsigned cells);
    /// Stores a trial's totals, with the stacks and traces its intervals
    /// stored (for the printout); false when it was disturbed and
    /// `replaceable` (it is then stored as replaced).
    bool store_trial(db::Batch totals, int stop_signal, unsigned block, bool replaceable,
                     const std::vector<db::StackRow>& sampled,
                     const std::vector<db::PacketTraceRow>& traced);
    /// Says once (per distinct reason) that a trial has no call stacks.
    void warn_no_stacks(unsigned trial, const std::string& event, const std::string& note);

    /// Submits `b`, or holds it while the run is not created (see trial()).
    void store(db::Batch b) {
        if (created())
            writer_->submit(std::move(b));
        else
            held_.push_back(std::move(b));
    }
    /// Creates the run and submits what was held for it.
    void create_and_release(const Engine* engine) {
        create(engine);
        for (auto& b : held_) writer_->submit(std::move(b));
        held_.clear();
    }

    /// Stores the run and its facts; `engine` (the first trial's, nullptr on
    /// the Linux target) gives its ports' RSS.
    void create(const Engine* engine) {
        writer_.emplace(opt_.db_path, run_info());
        result_.run.info = writer_->run();
        db::Batch variants;
        if (kernel_) {
            variants.facts.emplace_back(db::kVariantsFact, describe_kernel_variants(sc_));
            variants.facts.emplace_back(db::kTargetFact, std::string(db::kLinuxTarget) + " " + kernel_->release);
            variants.facts.emplace_back("stage_map", kernel_->map.source());
            for (auto& f : environment_facts(kernel_->tsc_hz, false, false))
                variants.facts.push_back(std::move(f));
        } else {
            variants.facts.emplace_back(db::kVariantsFact, describe_variants(sc_.engine));
            // What the run ran on (the engine is made: its SIMD width is set).
            const auto& eal = sc_.engine.eal_args;
            for (auto& f : environment_facts(rte_get_tsc_hz(), true,
                                             std::find(eal.begin(), eal.end(), "--no-huge") == eal.end()))
                variants.facts.push_back(std::move(f));
            variants.facts.push_back(simd_fact());
            for (size_t i = 0; i < sc_.engine.stages.size(); ++i)  // the plugin stages it ran
                variants.facts.emplace_back("stage." + std::to_string(i + 1),
                                            describe_stage(sc_.engine.stages[i]));
        }
        if (engine)
            for (const PortRss& p : engine->port_rss()) {
                variants.facts.emplace_back("port." + p.port + ".rss", p.setting);
                if (p.unbalanced && opt_.warning)
                    opt_.warning("port '" + p.port + "': RSS " + p.setting);
            }
        result_.run.rows.facts = variants.facts;
        writer_->submit(std::move(variants));
    }

    db::RunInfo run_info() const {
        const CaptureSettings& cs = sc_.capture;
        db::RunInfo info = machine_run_info();
        info.label = label_;
        info.scenario_path = opt_.scenario_path;
        info.scenario_text = sc_.text;
        info.settings = join_lines(sc_.overrides);
        info.trials = static_cast<int>(cs.trials);
        info.trial_seconds = sc_.engine.duration_s;
        info.interval_seconds = cs.interval_s;
        info.pmu = probe_pmu(cs.perf_events);
        if (kernel_) info.tsc_hz = kernel_->tsc_hz;  // no EAL: measured by the kernel run
        info.experiment = experiment_;
        info.cell = cell_;
        return info;
    }

    const Scenario& sc_;
    const RecordOptions& opt_;
    std::string label_, experiment_, cell_;
    std::optional<db::RunWriter> writer_;
    std::vector<db::Batch> held_;  ///< the first trial's intervals, before the run is created
    RecordResult result_;
    unsigned trials_done_ = 0;  ///< trials that count (not replaced)
    unsigned next_trial_ = 0;   ///< the number of the next trial to run
    std::string sampling_note_;  // what the last warning said, so it is said once
    std::optional<KernelRunContext> kernel_;  ///< a Linux run's, made at its first trial
};

void RunRecording::block(unsigned block, unsigned cell, unsigned cells) {
    for (unsigned retries = sc_.capture.retry_disturbed;; --retries) {
        const bool clean = trial(next_trial_++, block, retries > 0, cell, cells);
        if (clean || stopped() || StopSignals::received()) return;
        ++result_.replaced;
    }
}

bool RunRecording::trial(unsigned trial, unsigned block, bool replaceable, unsigned cell,
                         unsigned cells) {
    if (sc_.target == Target::kernel) return kernel_trial(trial, block, replaceable, cell, cells);
    const Scenario& sc = sc_;
    const RecordOptions& opt = opt_;
    const CaptureSettings& cs = sc.capture;
    RecordResult& result = result_;
    const int tr = static_cast<int>(trial);
    std::optional<PerfCounters> counters;
    std::optional<PerfSampler> sampler;
    Engine* engine = nullptr;
    EngineSnapshot prev;
    int seq = 0;
    int64_t trace_seq = 0;
    std::optional<Symbolizer> sym;      // made once the worker runs (its libraries loaded)
    // Stacks and traces stored with the intervals; the printout gets them too.
    std::vector<db::StackRow> sampled;
    std::vector<db::PacketTraceRow> traced;
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
    // A stop that came while the engine was being set up: nothing of this
    // trial is run or stored (for a first trial, not even the run).
    struct StoppedBeforeStart {};
    // With plugin stages the run is created only when its first trial has
    // run without fault (its intervals held until then): a stage that
    // returns an edge it did not declare leaves nothing in the store.
    const bool plugins = !sc.engine.stages.empty();
    std::string fault;  // what a plugin stage did wrong (Engine::stage_fault)
    hooks.prepared = [&](Engine& e) {
        if (StopSignals::received()) throw StoppedBeforeStart{};
        if (!created() && !plugins) create(&e);
        prev = e.snapshot(false);  // before the worker starts: the intervals hold every packet
    };
    bool began = false;
    hooks.started = [&](Engine& e) {
        began = true;
        engine = &e;
        trial_tsc = rte_rdtsc();
        const int tid = e.worker_tid();
        if (!cs.perf_events.empty()) counters.emplace(cs.perf_events, tid);
        if (cs.sample_hz) sampler.emplace(cs.sample_event, cs.sample_hz, tid);
        if (cs.traces_per_s && e.config().call_histograms) e.set_trace_rate(cs.traces_per_s);
    };
    hooks.interval = [&](double t, const EngineSnapshot& s) {
        if (plugins && fault.empty()) fault = engine->stage_fault();
        if (!fault.empty()) return false;
        const int at = seq++;
        db::Batch b = interval_rows(tr, at, t, prev, s);
        prev = s;
        drain_traces(b);
        take_stacks(at, b);  // per interval: a time range has its own flame graph
        sampled.insert(sampled.end(), b.stacks.begin(), b.stacks.end());
        traced.insert(traced.end(), b.traces.begin(), b.traces.end());
        store(std::move(b));
        if (auto err = created() ? writer_->error() : std::nullopt) {
            result.error = *err;
            return false;
        }
        if (opt.progress)
            opt.progress({trial + 1, cs.trials, t, sc.engine.duration_s, s.ledger.received,
                          created() ? writer_->rows_written() : 0, cell + 1, cells});
        return true;
    };
    db::Batch late;  // what only the end of a trial gives
    hooks.stopped = [&](Engine& e) {
        if (plugins && fault.empty()) fault = e.stage_fault();
        if (fault.empty() && !created()) create_and_release(&e);
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
            warn_no_stacks(trial, sampler->event(), sampler->note());
        }
        counters.reset();
        sampler.reset();
    };
    RunResult r;
    try {
        r = run_engine(sc.engine, hooks);
    } catch (const StoppedBeforeStart&) {
        result.stop_signal = StopSignals::received();
        return true;
    } catch (const std::exception& e) {
        if (!created()) throw;  // the first trial's setup: nothing was stored
        result.setup_error = "trial " + std::to_string(trial + 1) +
                             (began ? " failed: " : " could not start: ") + e.what();
        return true;
    }
    if (!fault.empty() && !created()) throw std::runtime_error(fault);  // nothing stored
    if (!fault.empty()) result.setup_error = "trial " + std::to_string(trial + 1) + " failed: " + fault;
    db::Batch totals = trial_rows(tr, r);
    totals.append(std::move(late));
    return store_trial(std::move(totals), r.stop_signal, block, replaceable, sampled, traced);
}

bool RunRecording::store_trial(db::Batch totals, int stop_signal, unsigned block, bool replaceable,
                               const std::vector<db::StackRow>& sampled,
                               const std::vector<db::PacketTraceRow>& traced) {
    RecordResult& result = result_;
    result.stop_signal = stop_signal;
    db::TrialRow& row = totals.trials.front();
    row.block = static_cast<int>(block);
    row.max_disturbance = sc_.capture.max_disturbance;
    // A trial stopped early is kept as it is: its re-run would not finish either.
    const bool disturbed = analysis::trial_condition(row, totals.threads).disturbed;
    row.replaced = disturbed && replaceable && !stop_signal;
    if (!row.replaced) ++trials_done_;
    db::Batch copy = totals;
    writer_->submit(std::move(totals));
    copy.stacks.insert(copy.stacks.end(), sampled.begin(), sampled.end());
    copy.traces.insert(copy.traces.begin(), traced.begin(), traced.end());
    result.run.rows.append(std::move(copy));
    if (auto err = writer_->error()) result.error = *err;
    return !disturbed || !replaceable;
}

void RunRecording::warn_no_stacks(unsigned trial, const std::string& event, const std::string& note) {
    if (opt_.warning && note != sampling_note_)
        opt_.warning("no call stacks from trial " + std::to_string(trial + 1) + ": " + event +
                     " at " + std::to_string(sc_.capture.sample_hz) + " Hz: " + note +
                     " (--set capture.sample_hz=0 runs without sampling)");
    sampling_note_ = note;
}

bool RunRecording::kernel_trial(unsigned trial, unsigned block, bool replaceable, unsigned cell,
                                unsigned cells) {
    const CaptureSettings& cs = sc_.capture;
    const int tr = static_cast<int>(trial);
    // The first trial's: a map, symbols or tracepoints missing throw before anything is stored.
    if (!kernel_) kernel_.emplace(sc_);
    std::optional<PerfCounters> counters;
    int seq = 0;
    uint64_t received = 0;  // so far in this trial, for the progress line
    std::vector<db::StackRow> sampled;
    KernelHooks hooks;
    hooks.interval_s = cs.interval_s;
    struct StoppedBeforeStart {};
    hooks.prepared = [&] {
        if (StopSignals::received()) throw StoppedBeforeStart{};
        if (!created()) create(nullptr);
    };
    bool began = false;
    hooks.started = [&](const std::vector<WatchedThread>& threads) {
        began = true;
        // perf counts the thread that drives the path: the sender, or the rr client.
        for (const auto& t : threads)
            if (!cs.perf_events.empty() && !counters &&
                (t.role == db::kWorkerThread || t.role == db::kKernelRrClientThread))
                counters.emplace(cs.perf_events, t.tid);
    };
    hooks.interval = [&](double t, const KernelSnapshot& prev, const KernelSnapshot& cur, SampleTally&& tally) {
        const int at = seq++;
        db::Batch b = kernel_interval_rows(tr, at, t, prev, cur, tally, *kernel_, sc_);
        received += b.intervals.front().received;
        sampled.insert(sampled.end(), b.stacks.begin(), b.stacks.end());
        writer_->submit(std::move(b));
        if (auto err = writer_->error()) {
            result_.error = *err;
            return false;
        }
        if (opt_.progress)
            opt_.progress({trial + 1, cs.trials, t, sc_.engine.duration_s, received,
                           writer_->rows_written(), cell + 1, cells});
        return true;
    };
    db::Batch late;
    hooks.stopped = [&] {
        if (counters) late.perf = counters->read(tr);
        counters.reset();
    };
    KernelTrialResult r;
    try {
        r = run_kernel_trial(sc_, trial, *kernel_, hooks);
    } catch (const StoppedBeforeStart&) {
        result_.stop_signal = StopSignals::received();
        return true;
    } catch (const std::exception& e) {
        if (!created()) throw;  // the first trial's set-up: nothing was stored
        result_.setup_error = "trial " + std::to_string(trial + 1) +
                              (began ? " failed: " : " could not start: ") + e.what();
        return true;
    }
    if (cs.sample_hz && !r.sampling_note.empty()) warn_no_stacks(trial, cs.sample_event, r.sampling_note);
    db::Batch totals = kernel_trial_rows(tr, r, *kernel_, sc_);
    totals.append(std::move(late));
    return store_trial(std::move(totals), r.stop_signal, block, replaceable, sampled, {});
}

/// The scenario's name and the --set settings that change what runs; how
/// it is measured (capture.*, engine.duration) is stored with the run and
/// left out, so that labels tell runs apart by what they ran.
std::string default_label(const Scenario& sc, const RecordOptions& opt) {
    if (!opt.label.empty()) return opt.label;
    std::string label = std::filesystem::path(opt.scenario_path).stem().string();
    for (const auto& o : sc.overrides)
        if (o.rfind("capture.", 0) != 0 && o.rfind("engine.duration=", 0) != 0) label += " " + o;
    return label;
}

/// The kernel's ceiling on sampling rates (perf_event_max_sample_rate), or
/// 0 when it cannot be read. It can be lower than the setting's own range,
/// and the kernel lowers it by itself when samples take too long.
uint32_t kernel_max_sample_rate() {
    std::ifstream in("/proc/sys/kernel/perf_event_max_sample_rate");
    uint32_t hz = 0;
    in >> hz;
    return in ? hz : 0;
}

/// Refuses, before anything is stored, a sampling rate the kernel would refuse.
void check_sample_rate(const CaptureSettings& cs) {
    const uint32_t max = kernel_max_sample_rate();
    if (cs.sample_hz && max && cs.sample_hz > max)
        throw std::runtime_error(
            "capture.sample_hz = " + std::to_string(cs.sample_hz) + ": this kernel samples at "
            "most " + std::to_string(max) + " times a second "
            "(/proc/sys/kernel/perf_event_max_sample_rate); give " + std::to_string(max) +
            " or less, or 0 for no call stacks");
}

/// What a target needs before its first trial: the engine's EAL; for the
/// Linux kernel, the namespaces a killed run left behind removed.
void prepare_target(const Scenario& sc, const RecordOptions& opt) {
    if (sc.target == Target::engine) {
        eal_init(sc.engine.eal_args);
        return;
    }
    const std::vector<std::string> stale = remove_stale_namespaces();
    if (!stale.empty() && opt.warning) {
        std::string names;
        for (const auto& n : stale) names += " " + n;
        opt.warning("removed the namespaces of a run that did not end (killed):" + names);
    }
}

}  // namespace

void check_before_recording(const Scenario& sc) {
    check_sample_rate(sc.capture);
    if (sc.target == Target::kernel) {
        if (const std::string missing = kernel_run_missing(); !missing.empty())
            throw std::runtime_error(missing);
        if (!sc.kernel.stage_map.empty()) StageMap::load(sc.kernel.stage_map);  // says why not
    }
    // A plugin is loaded in a child process first (once a process), so that
    // one that crashes while loading is named instead of taking the run down.
    static std::set<std::string> probed;
    for (const engine::StageConfig& st : sc.engine.stages)
        if (probed.insert(st.plugin).second) engine::probe_plugin(st.plugin);
    if (sc.engine.workload.kind == engine::WorkloadKind::pcap)
        probe_ethernet_capture(sc.engine.workload.pcap.file);  // says why it cannot be read
    if (!sc.engine.routes_file.empty())  // read once here: its errors before the start lines
        engine::read_route_file(sc.engine.routes_file, sc.engine.routes_file_nexthop);
}

RecordResult record_run(const Scenario& sc, const RecordOptions& opt) {
    const StopSignals stop_signals;
    check_before_recording(sc);
    prepare_target(sc, opt);
    RunRecording rec(sc, opt, default_label(sc, opt), "", "");
    for (unsigned block = 0;
         block < sc.capture.trials && !rec.stopped() && !StopSignals::received(); ++block)
        rec.block(block, 0, 1);
    return rec.finish();
}

std::vector<RecordResult> record_matrix(const std::string& scenario_path,
                                        const std::vector<std::string>& overrides,
                                        const RecordOptions& opt) {
    const StopSignals stop_signals;
    Scenario base = load_scenario(scenario_path, overrides);
    if (!opt.matrix.empty()) base.matrix = opt.matrix;
    std::vector<Scenario> cells;
    std::vector<MatrixCell> settings = matrix_cells(base);
    for (const MatrixCell& cell : settings) {
        std::vector<std::string> sets = overrides;
        sets.insert(sets.end(), cell.begin(), cell.end());
        try {
            cells.push_back(load_scenario(scenario_path, sets));
            for (const auto& st : opt.stages) cells.back().engine.stages.push_back(st);
        } catch (const ScenarioError& e) {
            throw ScenarioError("[matrix] cell " + describe_cell(cell) + ": " + e.what());
        }
        cells.back().overrides = overrides;  // the run keeps --set; its cell says the rest
        check_before_recording(cells.back());
    }
    prepare_target(base, opt);
    // Each cell keeps its own perf.data (FILE-1.data, FILE-2.data, ...).
    if (!base.kernel.perf_data.empty() && cells.size() > 1)
        for (size_t i = 0; i < cells.size(); ++i) {
            const std::filesystem::path p(base.kernel.perf_data);
            cells[i].kernel.perf_data = (p.parent_path() / (p.stem().string() + "-" + std::to_string(i + 1) +
                                                              p.extension().string())).string();
        }
    const std::string experiment = db::new_uuid().substr(0, 12);
    const std::string label = default_label(base, opt);
    // Each cell is labelled by what tells it apart from the other cells
    // ("route_cache=on bind=false"), as the run browser shows it.
    std::vector<std::string> cell_texts;
    for (const auto& s : settings) cell_texts.push_back(describe_cell(s, "\n"));
    std::vector<std::unique_ptr<RunRecording>> runs;
    for (size_t i = 0; i < cells.size(); ++i) {
        const std::string apart = analysis::cell_difference(cell_texts[i], cell_texts);
        runs.push_back(std::make_unique<RunRecording>(
            cells[i], opt, opt.label.empty() ? label + " " + apart : label + " [" + apart + "]",
            experiment, cell_texts[i]));
    }
    // Trial by trial across the cells, so that drift of the machine during
    // the experiment falls on every cell alike.
    unsigned trials = 0;
    for (const auto& c : cells) trials = std::max(trials, c.capture.trials);
    std::string failure;  // a cell that could not start stops the experiment
    bool stop = false;
    // Trials "auto": looks after every block from the plan's first on.
    std::optional<analysis::SequentialPlan> plan;
    std::optional<analysis::Look> last_look;
    if (base.capture.auto_trials) {
        plan.emplace();
        plan->by = !opt.decide_by.empty() ? opt.decide_by : base.matrix.back().key;
        plan->metrics = opt.decide_metrics;
        plan->max_blocks = trials;
        plan->target_half_width = base.capture.target_half_width;
        plan->first_look = std::min<size_t>(plan->first_look, trials);
    }
    auto look = [&](unsigned blocks) {
        if (!plan || !plan->spending().is_look(blocks)) return false;
        std::vector<db::RunData> sofar;
        for (const auto& r : runs)
            if (r->created()) sofar.push_back(r->data());
        last_look = analysis::look_at(sofar, *plan, blocks);
        if (opt.look) opt.look(*last_look);
        return last_look->decided;
    };
    for (unsigned t = 0; t < trials && !stop; ++t) {
        if (t > 0 && look(t)) break;
        for (size_t k = 0; k < runs.size() && !stop; ++k) {
            const size_t i = t % 2 ? runs.size() - 1 - k : k;  // ABBA: every other block reversed
            if (t >= cells[i].capture.trials) continue;
            if (StopSignals::received()) break;
            try {
                runs[i]->block(t, static_cast<unsigned>(i), static_cast<unsigned>(runs.size()));
            } catch (const std::exception& e) {
                failure = "cell " + describe_cell(settings[i]) + " could not start: " + e.what();
                stop = true;
                break;
            }
            stop = runs[i]->stopped() || StopSignals::received();
        }
    }
    if (plan && !stop && (!last_look || last_look->blocks < trials)) look(trials);
    if (plan && last_look)
        for (auto& r : runs) r->add_fact(db::kDecisionFact, analysis::decision_fact(*plan, *last_look));
    bool any = false;
    for (auto& r : runs) {
        if (!r->created()) continue;
        any = true;
        if (!failure.empty()) r->abort("the experiment stopped: " + failure);
    }
    if (!any && !failure.empty()) throw std::runtime_error("[matrix] " + failure);
    // Only the cells that ran have a run; a stop before the first leaves none.
    std::vector<RecordResult> out;
    for (auto& r : runs)
        if (r->created()) out.push_back(r->finish());
    return out;
}

}  // namespace pathscope::capture
