// pathscope compare / report: verdicts and code-review reports on stored runs.
#include <iostream>

#include "analysis/verdicts/compare.h"
#include "analysis/render/experiment_report.h"
#include "analysis/render/report.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"
#include "analysis/text/safe_text.h"
#include "analysis/verdicts/sequential.h"
#include "analysis/text/text_builder.h"
#include "cli/cli_support.h"
#include "db/queries.h"
#include "db/schema.h"

namespace pathscope::cli {

namespace {

/// "an HTML report", "a Markdown report": the format as a reader names it.
std::string report_format_name(const std::string& format) {
    if (format == "html") return "an HTML";
    if (format == "md" || format == "markdown") return "a Markdown";
    if (format == "json") return "a JSON";
    if (format == "svg") return "an SVG";
    return "a " + format;
}

struct CompareArgs {
    /// "": 95, or the level an "auto" experiment's runs were decided at.
    std::string db, base, cand, confidence;
    std::string experiment, by, format = "text", out = "-";
    std::vector<std::string> metrics;
    bool ministat = false;
};

struct ReportArgs {
    std::string db, base, cand, format = "text", out = "-", confidence;
};

/// The confidence to judge at: --confidence when given, else the level the
/// runs' experiment decided at (an "auto" experiment), else 95.
double confidence_of(const std::string& given, const db::RunData& base, const db::RunData& cand) {
    if (!given.empty()) return confidence_value(given);
    return analysis::judged_confidence(base, cand, 95);
}

// --format's names, read as the analysis reads them (one table for the CLI
// and the desktop program's export).
const CLI::IsMember kFormats{std::vector<std::string>(analysis::kReportFormatNames.begin(),
                                                      analysis::kReportFormatNames.end())};

analysis::ReportFormat format(const std::string& name) {
    if (const auto f = analysis::report_format_from_name(name)) return *f;
    throw UsageError("--format " + name + ": use text, md, html or json");
}

// Both runs, loaded; a run compared with itself is said, not hidden.
std::pair<db::RunData, db::RunData> load_pair(const std::string& path, const std::string& base,
                                              const std::string& cand) {
    auto db = open_existing_store(path, db::Database::Mode::read_only);
    const db::RunInfo b = resolve_run(*db, base), c = resolve_run(*db, cand);
    if (b.id == c.id)
        std::cerr << "pathscope: note: '" << analysis::printable(base) << "' and '"
                  << analysis::printable(cand) << "' are the same run ("
                  << b.id << "); every verdict compares it with itself\n";
    return {db::load_run(*db, b.id), db::load_run(*db, c.id)};
}

void warn_starved(const db::RunData& run) {
    const std::string w = analysis::starved_warning(
        "run " + std::to_string(run.info.id) + " \"" + analysis::printable(run.info.label) + "\"",
        analysis::worker_load(run));
    if (!w.empty()) std::cout << analysis::fold_lines("WARNING: " + w);
}

int compare_experiment(const CompareArgs& a) {
    if (!a.base.empty() || !a.cand.empty())
        throw UsageError("compare --experiment takes no BASE and CAND: it compares the cells");
    if (a.by.empty())
        throw UsageError("compare --experiment needs --by SETTING, the setting to judge (like "
                         "--by engine.route_cache)");
    auto db = open_existing_store(a.db, db::Database::Mode::read_only);
    std::vector<db::RunData> runs;
    for (const auto& info : db::experiment_runs(*db, a.experiment)) {
        runs.push_back(db::load_run(*db, info.id));
        if (a.format == "text") warn_starved(runs.back());
    }
    const double confidence =
        a.confidence.empty() ? analysis::judged_confidence(runs, 95) : confidence_value(a.confidence);
    const auto e = analysis::compare_experiment(runs, a.by, a.metrics, confidence);
    if (a.ministat && a.format != "text")
        throw UsageError("--ministat prints ministat's text blocks: use it with --format text");
    std::string text;
    switch (format(a.format)) {
        case analysis::ReportFormat::text:
            text = analysis::render_experiment_text(e);
            if (a.ministat) text += analysis::render_experiment_ministat(e);
            break;
        case analysis::ReportFormat::markdown: text = analysis::render_experiment_markdown(e); break;
        case analysis::ReportFormat::html: text = analysis::render_experiment_html(e); break;
        case analysis::ReportFormat::json: text = analysis::render_experiment_json(e); break;
    }
    write_output(a.out, text);
    if (a.out != "-")
        std::cerr << "wrote the " << a.format << " comparison of experiment " << analysis::printable(e.experiment)
                  << " by " << analysis::printable(a.by) << " (" << text.size() << " bytes) to " << a.out << "\n";
    return 0;
}

int compare(const CompareArgs& a) {
    if (!a.experiment.empty()) return compare_experiment(a);
    if (a.base.empty() || a.cand.empty())
        throw UsageError("compare needs BASE and CAND (two runs), or --experiment ID --by SETTING");
    if (!a.by.empty() || !a.metrics.empty() || a.format != "text" || a.out != "-" || a.ministat)
        throw UsageError("--by, --metric, --ministat, --format and --output go with --experiment "
                         "(pathscope report BASE CAND shows two runs' ministat blocks)");
    const auto [base, cand] = load_pair(a.db, a.base, a.cand);
    const double confidence = confidence_of(a.confidence, base, cand);
    // The report's verdicts and, where both runs sampled stacks, its
    // functions: an import holds stacks only, and compares with a capture.
    analysis::ReportOptions opt;
    opt.confidence = confidence;
    const analysis::Report r = analysis::build_report(base, &cand, opt);
    std::cout << "compare: " << analysis::printable(cand.info.label) << " (run " << cand.info.id
              << ") against " << analysis::printable(base.info.label) << " (run " << base.info.id
              << ")\n";
    for (const auto& w : r.warnings) std::cout << analysis::fold_lines("WARNING: " + analysis::printable(w));
    const std::string event = analysis::main_stack_event(base);
    const bool functions = !event.empty() && event == analysis::main_stack_event(cand);
    if (!r.verdicts.empty() || !functions)
        std::cout << "\n" << analysis::render_verdicts_text(r.verdicts, confidence);
    if (functions) std::cout << analysis::render_hottest_text(r);
    return r.verdicts.empty() && !functions ? 1 : 0;  // nothing in common is no comparison
}

int report(const ReportArgs& a) {
    const analysis::ReportFormat f = format(a.format);
    auto render = [f](const analysis::Report& r) { return analysis::render_report(r, f); };
    analysis::ReportOptions opt;
    opt.confidence = a.confidence.empty() ? 95 : confidence_value(a.confidence);
    std::string text;
    if (a.cand.empty()) {
        auto db = open_existing_store(a.db, db::Database::Mode::read_only);
        const db::RunData base = db::load_run(*db, resolve_run(*db, a.base).id);
        text = render(analysis::build_report(base, nullptr, opt));
    } else {
        const auto [base, cand] = load_pair(a.db, a.base, a.cand);
        opt.confidence = confidence_of(a.confidence, base, cand);
        text = render(analysis::build_report(base, &cand, opt));
    }
    write_output(a.out, text);
    if (a.out != "-")
        std::cerr << "wrote " << report_format_name(a.format) << " report (" << text.size() << " bytes) to " << a.out
                  << "\n";
    return 0;
}

}  // namespace

void add_report_verbs(CLI::App& app, Verbs& verbs) {
    {
        auto a = std::make_shared<CompareArgs>();
        CLI::App* v = app.add_subcommand(
            "compare", "verdicts on every metric of two runs: throughput, cycles, latency");
        v->footer(
            "A verdict on every metric the two runs share: receive, forward and deliver\n"
            "rates per trial; busy cycles per received packet at each stage (they add up\n"
            "to \"all stages\"); the per-call cycle median and 99th percentile of each\n"
            "stage (per packet when the runs' packets per call differ); perf counters\n"
            "per packet; latency percentiles (\"forwarded p50\", \"delivered p99\", ...: a\n"
            "packet's time from receive to its outcome; \"rr p50/p90/p99\": request/response\n"
            "round trips; \"route-output p50\": a micro-benchmark's calls), all in cycles;\n"
            "and the path events the runs counted: \"rr rate\" (kT/s), \"busy cyc/transaction\",\n"
            "\"worker busy\" (%), \"rule entries/lookup\", \"rules/lookup\", \"tables/lookup\",\n"
            "\"demux hits\" (%), \"translations/pkt\". Every one is a per-trial value.\n"
            "Rates, cycles, latencies and counters use Student's t with pooled variance\n"
            "(as ministat); the skewed per-call percentiles use Mann-Whitney U. Each\n"
            "verdict says better, worse, or no difference proven, and warns when there are\n"
            "too few trials to tell. Exit status 1 when the runs share no metric.\n"
            "\n"
            "With --experiment ID --by SETTING, it judges one setting of a matrix run\n"
            "(pathscope run on a scenario with a [matrix]): for every combination of the\n"
            "other settings, each value of SETTING against its first value, on the run's\n"
            "rate and cycles per packet (or the --metric list), e.g.\n"
            "  pathscope compare --experiment 3f2a --by engine.route_cache\n"
            "  pathscope compare --experiment 3f2a --by engine.route_cache --metric udp6_output\n"
            "--ministat adds, for every cell and metric, ministat's output for the runs of\n"
            "SETTING's values (baseline first), the block report prints for two runs.");
        v->add_option("BASE", a->base, "the baseline: id, label or label@N");
        v->add_option("CAND", a->cand, "the candidate: id, label or label@N");
        add_db_option(v, a->db);
        v->add_option("--experiment", a->experiment,
                      "an experiment: its id (or 4+ leading characters), or any of its runs");
        v->add_option("--by", a->by, "with --experiment: the setting to judge, as the matrix names it");
        v->add_option("--metric", a->metrics,
                      "with --experiment: a metric to compare (repeat for more): \"tx rate\",\n"
                      "\"rx rate\", \"rr rate\", \"all stages\", a stage name, \"STAGE p50\",\n"
                      "\"rr p99\", \"demux hits\"... (every name above)")
            ->type_name("NAME")
            ->allow_extra_args(false);
        v->add_flag("--ministat", a->ministat,
                    "with --experiment: ministat's plot, vitals and verdict for every cell");
        v->add_option("--format", a->format, "with --experiment: text (default), md, html or json")
            ->check(kFormats);
        v->add_option("-o,--output", a->out, "with --experiment: write there instead of standard output")
            ->type_name("FILE");
        v->add_option("--confidence", a->confidence, "80, 90, 95 (default; an \"auto\" experiment's runs: the level it decided at), 98, 99\nor 99.5")
            ->check(kConfidence);
        verbs.add(v, [a] { return compare(*a); });
    }
    {
        auto a = std::make_shared<ReportArgs>();
        CLI::App* v = app.add_subcommand(
            "report", "a code-review report of one run or two: text, md, html, json");
        v->footer(
            "A report for code review of one run, or of CAND against BASE: environment\n"
            "and scenario difference, verdicts and a ministat plot of the receive rate,\n"
            "cycles per packet by stage (changes within noise marked), per-call cycle\n"
            "histograms of the busiest stages, queue shares with skew flags, and the\n"
            "hottest sampled functions. text fits 80 columns, for mailing lists; md is\n"
            "for review comments; html is one file with inline SVG flame graphs (click\n"
            "to zoom, type to search); json holds every figure, for scripts.");
        v->add_option("BASE", a->base, "a run: id, label or label@N")->required();
        v->add_option("CAND", a->cand, "a second run, reported against BASE");
        add_db_option(v, a->db);
        v->add_option("--format", a->format, "text (default), md, html or json")
            ->check(kFormats);
        v->add_option("-o,--output", a->out, "write there instead of standard output")
            ->type_name("FILE");
        v->add_option("--confidence", a->confidence, "80, 90, 95 (default; an \"auto\" experiment's runs: the level it decided at), 98, 99\nor 99.5")
            ->check(kConfidence);
        verbs.add(v, [a] { return report(*a); });
    }
}

}  // namespace pathscope::cli
