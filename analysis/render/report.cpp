#include "analysis/render/report.h"
#include "analysis/figures/sampled_stages.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>
#include <map>
#include <set>
#include <sstream>

#include "analysis/render/run_view.h"
#include "analysis/text/safe_text.h"

namespace pathscope::analysis {

std::vector<std::string> line_diff(const std::string& a, const std::string& b) {
    auto split = [](const std::string& s) {
        std::vector<std::string> lines;
        std::istringstream in(s);
        for (std::string l; std::getline(in, l);) lines.push_back(l);
        return lines;
    };
    const std::vector<std::string> x = split(a), y = split(b);
    // lcs[i][j]: common-subsequence length of x[i..] and y[j..]
    std::vector<std::vector<int>> lcs(x.size() + 1, std::vector<int>(y.size() + 1, 0));
    for (size_t i = x.size(); i-- > 0;)
        for (size_t j = y.size(); j-- > 0;)
            lcs[i][j] = x[i] == y[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    std::vector<std::string> out;
    size_t i = 0, j = 0;
    while (i < x.size() || j < y.size()) {
        if (i < x.size() && j < y.size() && x[i] == y[j]) {
            out.push_back(" " + x[i++]);
            ++j;
        } else if (i < x.size() && (j == y.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
            out.push_back("-" + x[i++]);
        } else {
            out.push_back("+" + y[j++]);
        }
    }
    return out;
}

namespace {

std::string trials_text(const db::RunInfo& r) {
    return fmt::format("{} x {:.1f} s", r.trials, r.trial_seconds);
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

/// The environment facts a run stored ("env.kernel", ...), in a fixed order,
/// "-" for one it lacks (a run stored before they were recorded).
constexpr const char* kEnvironmentFacts[] = {"env.kernel",    "env.cpus",         "env.tsc",
                                             "env.governor",  "env.smt",          "env.isolated_cpus",
                                             "env.hugepages", "env.simd_bitwidth", "env.dpdk",
                                             "env.load_start", "env.load_end"};

std::string fact_of(const db::RunData& run, const std::string& key) {
    for (const auto& [k, v] : run.rows.facts)
        if (k == key) return v;
    return "-";
}

std::vector<std::array<std::string, 2>> environment_of(const db::RunData& run) {
    const db::RunInfo& r = run.info;
    std::vector<std::array<std::string, 2>> out = {
        {"run", std::to_string(r.id) + " \"" + r.label + "\" (" + r.status + ")"},
        {"kind", r.kind},
        {"host", r.host},
        {"cpu", r.cpu_model.empty() ? "unknown" : r.cpu_model},
        {"tsc", fmt::format("{:.3f} GHz", static_cast<double>(r.tsc_hz) / 1e9)},
        {"pathscope", r.engine_version + (r.git_revision.empty() ? "" : " @ " + r.git_revision)},
        {"started", r.started_at},
        {"trials", trials_text(r)},
        {"perf_event", first_line(r.pmu)},
        {"scenario", r.scenario_path}};
    for (const char* key : kEnvironmentFacts) {
        const std::string k(key);
        out.push_back({k == "env.tsc" ? "tsc clock" : k.substr(4), fact_of(run, key)});
    }
    return out;
}

/// What two runs ran on differently (the load aside): a comparison across
/// machines or settings of these measures them, not the change.
std::vector<std::string> environment_warnings(const db::RunData& base, const db::RunData& cand) {
    std::vector<std::string> out;
    auto differ = [&](const std::string& what, const std::string& a, const std::string& b) {
        if (a != b && a != "-" && b != "-")
            out.push_back("the runs ran on different " + what + ": \"" + a + "\" against \"" + b +
                          "\"; the comparison measures that too");
    };
    differ("CPUs", base.info.cpu_model, cand.info.cpu_model);
    for (const char* key : kEnvironmentFacts) {
        const std::string k(key);
        if (k == "env.load_start" || k == "env.load_end") continue;
        differ(k.substr(4) + " settings", fact_of(base, k), fact_of(cand, k));
    }
    return out;
}

// What a run ran with beside its scenario's text: its --set lines and, for
// a cell of a matrix, the cell's settings (which the scenario's text shares
// with its other cells).
std::vector<std::string> run_settings(const db::RunInfo& r) {
    std::vector<std::string> out;
    auto add = [&](const std::string& text, const char* prefix) {
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);)
            if (!line.empty()) out.push_back(prefix + line);
    };
    add(r.settings, "--set ");
    add(r.cell, "cell ");
    return out;
}

// The text both runs were configured with: the scenario and the settings.
std::string configuration(const db::RunInfo& r) {
    std::string s = r.scenario_text;
    if (!s.empty() && s.back() != '\n') s += '\n';
    for (const auto& line : run_settings(r)) s += line + "\n";
    return s;
}

}  // namespace

Report build_report(const db::RunData& base, const db::RunData* cand, const ReportOptions& opt) {
    Report r;
    r.options = opt;
    r.base = base.info;
    r.has_cand = cand != nullptr;
    const db::RunData& other = cand ? *cand : base;
    if (cand) r.cand = cand->info;

    const auto env_b = environment_of(base), env_c = environment_of(other);
    std::vector<std::array<std::string, 3>> same, differ;
    for (size_t i = 0; i < env_b.size(); ++i) {
        std::array<std::string, 3> row{env_b[i][0], env_b[i][1], cand ? env_c[i][1] : ""};
        if (row[1] == "-" && (!cand || row[2] == "-")) continue;  // recorded by neither run
        (cand && row[1] != row[2] ? differ : same).push_back(row);
    }
    r.environment = differ;
    r.environment.insert(r.environment.end(), same.begin(), same.end());
    if (cand) r.scenario_diff = line_diff(configuration(base.info), configuration(cand->info));
    else r.settings = run_settings(base.info);

    for (const db::RunData* run : {&base, cand})
        if (run)
            if (std::string w = starved_warning(
                    "run " + std::to_string(run->info.id) + " \"" + printable(run->info.label) + "\"",
                    worker_load(*run));
                !w.empty())
                r.warnings.push_back(std::move(w));
    if (cand)
        for (auto& w : environment_warnings(base, *cand)) r.warnings.push_back(std::move(w));
    r.base_metrics = run_metrics(base);
    if (cand) {
        r.cand_metrics = run_metrics(*cand);
        r.verdicts = compare_metrics(r.base_metrics, r.cand_metrics, opt.confidence);
    }
    // The headline metrics as ministat shows them.
    struct Headline {
        const char* group;
        const char* name;
        const char* title;
    };
    const bool transmit = packet_basis(base.rows.trials).transmit;
    r.transmit = transmit;
    if (transmit) r.per_packet = "sent datagram";
    const Headline headline[] = {
        transmit ? Headline{kThroughput, kTxRate, "Transmit rate per trial"}
                 : Headline{kThroughput, kRxRate, "Receive rate per trial"},
        {kStageCycles, kAllStages,
         transmit ? "Cycles per sent datagram per trial" : "Cycles per received packet per trial"}};
    for (const auto& [group, name, title] : headline) {
        const Metric* b = find_metric(r.base_metrics, group, name);
        const Metric* c = cand ? find_metric(r.cand_metrics, group, name) : nullptr;
        if (!b || !c || b->present() < 3 || c->present() < 3) continue;
        MinistatOptions mo;
        mo.confidence = opt.confidence;
        const std::string unit = " (" + b->unit + ")";
        const std::string text =
            render_ministat({{printable(base.info.label) + unit, present_values(b->values)},
                             {printable(cand->info.label) + unit, present_values(c->values)}},
                            mo);
        // ministat's last line is its own test of this figure alone; the
        // report's verdict on it is the one every view gives.
        std::string verdict;
        for (const auto& v : r.verdicts)
            if (v.base.group == group && v.base.name == name)
                verdict = "pathscope's verdict (as in every view): " + verdict_word(v) + ", " +
                          format_change(v) + fmt::format(" at {:.2f}%", v.confidence);
        r.ministat_plots.push_back({std::string(title) + " (ministat, " + b->unit + ")", text, verdict});
    }

    // The busiest stages by cycles get their per-call distributions drawn.
    const FlameTree base_stages = stage_tree(base);
    std::set<std::string> with_histogram;
    for (const auto& h : base.rows.histograms)
        if (h.kind == kStageCallCycles) with_histogram.insert(h.subject);
    std::vector<std::pair<uint64_t, std::string>> busiest;
    for (int k : base_stages.children(0))
        if (with_histogram.count(base_stages.name(k)))
            busiest.emplace_back(static_cast<uint64_t>(base_stages.total(k)), base_stages.name(k));
    std::sort(busiest.rbegin(), busiest.rend());
    for (size_t i = 0; i < busiest.size() && i < opt.histogram_stages; ++i)
        r.histograms.push_back({busiest[i].second, merged_histogram(base, kStageCallCycles, busiest[i].second),
                                cand ? merged_histogram(*cand, kStageCallCycles, busiest[i].second) : Histogram{}});

    r.base_series = time_series(base);
    if (cand) r.cand_series = time_series(*cand);
    r.base_queues = queue_skew(base.rows.queues);
    if (cand) r.cand_queues = queue_skew(cand->rows.queues);

    DiffOptions diff;
    diff.confidence = opt.confidence;
    r.stages = diff_trees(base_stages, cand ? stage_tree(*cand) : base_stages, diff);
    if (cand) mark_stages_by_verdicts(r.stages, r.verdicts);
    // What of "all stages" is pathscope's own timing, on each side.
    const char* unit = transmit ? "cyc/tx pkt" : "cyc/rx pkt";
    for (const auto& [side, run, all] :
         {std::tuple{"base", &base, r.stages.nodes[0].base},
          std::tuple{"cand", cand, r.stages.nodes[0].cand}}) {
        if (!run) continue;
        const std::string line = timing_cost_line(timing_cost(*run, all), unit, all);
        if (!line.empty()) r.timing.push_back(cand ? std::string(side) + ": " + line : line);
    }
    if (sampled_stages(base) || (cand && sampled_stages(*cand))) {
        r.stage_source = "sampled kernel CPU time";
        r.absent = kKernelAbsent;
        r.timing.push_back(
            "A Linux run's stage cycles are sampled CPU time: each sample of the workload's threads "
            "goes to the stage of the innermost function its stage map names, and a stage's "
            "cycles are its samples x the sampling period (see `pathscope show` for each stage's "
            "sampling error).");
    }
    r.stack_event = main_stack_event(base);
    if (r.stack_event.empty()) r.stack_event = main_stack_event(other);
    if (!r.stack_event.empty()) {
        const FlameTree b = stack_tree(base, r.stack_event), c = stack_tree(other, r.stack_event);
        r.stacks = diff_trees(b, c, diff);
        r.hottest = hottest_functions(b, c, opt.top_frames, diff);
    }
    return r;
}

}  // namespace pathscope::analysis
