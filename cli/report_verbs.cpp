// pathscope compare / report: verdicts and code-review reports on stored runs.
#include <iostream>

#include "analysis/compare.h"
#include "analysis/report.h"
#include "cli/args.h"
#include "cli/verbs.h"
#include "db/queries.h"
#include "db/schema.h"

namespace pathscope::cli {

const char* const kCompareUsage =
    "usage: pathscope compare BASE CAND [--db FILE] [--confidence PERCENT]\n"
    "\n"
    "A verdict on every metric the two runs share: receive, forward and deliver\n"
    "rates per trial, cycles per packet at each stage, the per-call cycle median\n"
    "and 99th percentile of each stage, and perf counters per packet. Rates,\n"
    "cycles and counters use Student's t with pooled variance (as ministat);\n"
    "the skewed per-call percentiles use Mann-Whitney U. Each verdict says\n"
    "better, worse, or no difference proven, and warns when there are too few\n"
    "trials to tell. BASE and CAND are run ids or labels.\n"
    "\n"
    "  --confidence  80, 90, 95 (default), 98, 99 or 99.5\n";

const char* const kReportUsage =
    "usage: pathscope report BASE [CAND] [--db FILE] [--format text|md|html|json]\n"
    "                        [-o FILE] [--confidence PERCENT]\n"
    "\n"
    "A report for code review of one run, or of CAND against BASE: environment\n"
    "and scenario difference, verdicts and a ministat plot of the receive rate,\n"
    "cycles per packet by stage (changes within noise marked), per-call cycle\n"
    "histograms of the busiest stages, queue shares with skew flags, and the\n"
    "hottest sampled functions.\n"
    "\n"
    "  --format text  80 columns, for mailing lists (the default)\n"
    "           md    Markdown, for review comments\n"
    "           html  one file with inline SVG flame graphs: click to zoom,\n"
    "                 type to search\n"
    "           json  every figure, for scripts\n"
    "  -o FILE        write there instead of standard output\n"
    "  --confidence   80, 90, 95 (default), 98, 99 or 99.5\n";

int cmd_compare(const std::vector<std::string>& argv) {
    const Args a = parse_args(argv, {"--db", "--confidence"}, {}, kCompareUsage);
    if (a.positional.size() != 2) usage_error("compare needs BASE and CAND", kCompareUsage);
    const double confidence =
        parse_confidence("--confidence", a.get("--confidence", "95"), kCompareUsage);
    auto db = db::open_store(db_path(a), db::Database::Mode::read_only);
    const db::RunData base = db::load_run(*db, db::find_run(*db, a.positional[0]).id);
    const db::RunData cand = db::load_run(*db, db::find_run(*db, a.positional[1]).id);
    std::cout << "compare: " << cand.info.label << " (run " << cand.info.id << ") against "
              << base.info.label << " (run " << base.info.id << ")\n\n"
              << analysis::render_verdicts_text(
                     analysis::compare_metrics(analysis::run_metrics(base),
                                               analysis::run_metrics(cand), confidence),
                     confidence);
    return 0;
}

int cmd_report(const std::vector<std::string>& argv) {
    const Args a =
        parse_args(argv, {"--db", "--format", "-o", "--output", "--confidence"}, {}, kReportUsage);
    if (a.positional.empty() || a.positional.size() > 2)
        usage_error("report needs BASE, and optionally CAND", kReportUsage);
    const std::string format = a.get("--format", "text");
    std::string (*render)(const analysis::Report&) = nullptr;
    if (format == "text") render = analysis::render_report_text;
    if (format == "md" || format == "markdown") render = analysis::render_report_markdown;
    if (format == "html") render = analysis::render_report_html;
    if (format == "json") render = analysis::render_report_json;
    if (!render) usage_error("unknown --format '" + format + "' (text, md, html or json)", kReportUsage);
    analysis::ReportOptions opt;
    opt.confidence = parse_confidence("--confidence", a.get("--confidence", "95"), kReportUsage);

    auto db = db::open_store(db_path(a), db::Database::Mode::read_only);
    const db::RunData base = db::load_run(*db, db::find_run(*db, a.positional[0]).id);
    db::RunData cand;
    if (a.positional.size() == 2) cand = db::load_run(*db, db::find_run(*db, a.positional[1]).id);
    const std::string text =
        render(analysis::build_report(base, a.positional.size() == 2 ? &cand : nullptr, opt));

    const std::string out = a.get("-o", a.get("--output", "-"));
    write_output(out, text);
    if (out != "-") std::cerr << "wrote a " << format << " report (" << text.size() << " bytes) to " << out << "\n";
    return 0;
}

}  // namespace pathscope::cli
