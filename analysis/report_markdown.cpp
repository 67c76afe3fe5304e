// The report as Markdown for review comments: tables, and the ministat plot
// and histograms in code blocks.
#include "analysis/report.h"
#include "analysis/report_tables.h"

namespace pathscope::analysis {

namespace {

std::string cell(std::string s) {
    std::string out;
    for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out.empty() ? " " : out;
}

}  // namespace

std::string markdown_table(const Table& t) {
    std::string out = "|";
    for (const auto& h : t.header) out += " " + cell(h) + " |";
    out += "\n|";
    for (size_t i = 0; i < t.header.size(); ++i) out += i ? " ---: |" : " --- |";
    out += "\n";
    for (const auto& row : t.rows) {
        out += "|";
        for (const auto& c : row) out += " " + cell(c) + " |";
        out += "\n";
    }
    return out;
}

std::string render_report_markdown(const Report& r) {
    std::string o = "# " + report_title(r) + "\n\n";
    for (const auto& w : r.warnings) o += "> **Warning:** " + w + "\n\n";
    o += "## Environment\n\n" + markdown_table(environment_table(r));
    if (r.has_cand) {
        o += "\n## Scenario difference\n\n```diff\n";
        bool any = false;
        for (const auto& l : r.scenario_diff)
            if (l[0] != ' ') o += l + "\n", any = true;
        if (!any) o += " (none: same scenario and settings)\n";
        o += "```\n";
    }
    o += std::string("\n## ") + (r.has_cand ? "Verdicts" : "Measurements") + "\n\n" +
         markdown_table(verdict_table(r));
    for (const auto& n : verdict_notes(r)) o += "\n" + n + "\n";
    for (const auto& plot : r.ministat_plots)
        o += "\n## " + plot.title + "\n\n```\n" + plot.text + "```\n";
    o += "\n## Cycles per " + r.per_packet + " by stage\n\n" + markdown_table(stage_table(r));
    if (r.has_cand) o += "\n" + r.stages.method + "\n";
    for (const auto& h : r.histograms) {
        o += "\n## Cycles per call of " + h.stage + "\n\n```\n" +
             (r.has_cand ? "base:\n" : "") + render_text(h.base, "cycles", 12, 76);
        if (r.has_cand) o += "candidate:\n" + render_text(h.cand, "cycles", 12, 76);
        o += "```\n";
    }
    o += "\n## Queues\n\n" + markdown_table(queue_table(r));
    o += "\n## Hottest functions (self share of " +
         (r.stack_event.empty() ? std::string("samples") : r.stack_event) + ")\n\n";
    o += r.hottest.empty() ? "No sampled stacks.\n" : markdown_table(hottest_table(r));
    if (r.has_cand && !r.hottest.empty()) o += "\n" + r.stacks.method + "\n";
    return o;
}

}  // namespace pathscope::analysis
