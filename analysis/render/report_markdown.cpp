// The report as Markdown for review comments: tables, and the ministat plot
// and histograms in code blocks.
#include "analysis/render/report.h"
#include "analysis/render/report_tables.h"

#include <cctype>
#include <optional>
#include <string_view>

namespace pathscope::analysis {

namespace {

std::string cell(const std::string& s) {
    const std::string out = markdown_text(s);
    return out.empty() ? " " : out;
}

}  // namespace

/// A cell that reads as a number ("1541 ±51", "+443.0%", "-0.5"); "" and "-"
/// say nothing either way.
static std::optional<bool> numeric_cell(const std::string& c) {
    if (c.empty() || c == "-") return std::nullopt;
    const size_t at = c[0] == '+' || c[0] == '-' ? 1 : 0;
    return at < c.size() && (std::isdigit(static_cast<unsigned char>(c[at])) || c[at] == '.');
}

std::string markdown_table(const Table& t) {
    std::string out = "|";
    for (const auto& h : t.header) out += " " + cell(h) + " |";
    out += "\n|";
    // Numbers right-aligned, text (names, verdicts, tests) left-aligned.
    for (size_t i = 0; i < t.header.size(); ++i) {
        bool numbers = false, text = false;
        for (const auto& row : t.rows)
            if (i < row.size())
                if (const auto n = numeric_cell(row[i])) (*n ? numbers : text) = true;
        out += numbers && !text ? " ---: |" : " --- |";
    }
    out += "\n";
    for (const auto& row : t.rows) {
        out += "|";
        for (const auto& c : row) out += " " + cell(c) + " |";
        out += "\n";
    }
    return out;
}

std::string render_report_markdown(const Report& r) {
    std::string o = "# " + markdown_text(report_title(r)) + "\n\n";
    for (const auto& w : r.warnings) o += "> **Warning:** " + markdown_text(w) + "\n\n";
    o += "## Environment\n\n" + markdown_table(environment_table(r));
    if (r.has_cand) {
        o += "\n## Scenario difference\n\n";
        std::string diff;
        for (const auto& l : r.scenario_diff)
            if (l[0] != ' ') diff += l + "\n";
        if (diff.empty()) diff = " (none: same scenario and settings)\n";
        o += markdown_code(diff, "diff");
    } else {
        std::string lines;
        for (const auto& l : r.settings) lines += l + "\n";
        o += "\n## Settings\n\n" +
             markdown_code(lines.empty() ? "(none: the scenario as written)\n" : lines);
    }
    o += std::string("\n## ") + (r.has_cand ? "Verdicts" : "Measurements") + "\n\n" +
         markdown_table(verdict_table(r));
    for (const auto& n : verdict_notes(r)) o += "\n" + markdown_text(n) + "\n";
    for (const auto& plot : r.ministat_plots)
        o += "\n## " + markdown_text(plot.title) + "\n\n" + markdown_code(plot.text) +
             (plot.verdict.empty() ? "" : "\n" + markdown_text(plot.verdict) + "\n");
    o += "\n## Cycles per " + r.per_packet + " by stage" +
         (r.absent.empty() ? "" : " (" + r.stage_source + ")") + "\n\n" + markdown_table(stage_table(r));
    if (r.has_cand) o += "\n" + markdown_text(r.stages.method) + "\n";
    for (const auto& t : r.timing) o += "\n" + markdown_text(t) + "\n";
    for (const auto& h : r.histograms) {
        std::string text = (r.has_cand ? "base:\n" : "") + render_text(h.base, "cycles", 12, 76);
        if (r.has_cand) text += "candidate:\n" + render_text(h.cand, "cycles", 12, 76);
        o += "\n## Cycles per call of " + markdown_text(h.stage) + "\n\n" + markdown_code(text);
    }
    o += "\n## Queues\n\n" + markdown_table(queue_table(r));
    if (!r.absent.empty()) o += "\n" + markdown_text(r.absent) + "\n";
    o += "\n## Hottest functions (self share of " +
         (r.stack_event.empty() ? std::string("samples") : markdown_text(r.stack_event)) + ")\n\n";
    o += r.hottest.empty() ? "No sampled stacks.\n" : markdown_table(hottest_table(r));
    if (r.has_cand && !r.hottest.empty()) o += "\n" + markdown_text(r.stacks.method) + "\n";
    return o;
}

}  // namespace pathscope::analysis
