// The report as Markdown for review comments: tables, and the ministat plot
// and histograms in code blocks.
#include "analysis/report.h"
#include "analysis/report_tables.h"

#include <cctype>
#include <string_view>

namespace pathscope::analysis {

namespace {

bool word_char(unsigned char c) { return std::isalnum(c) != 0; }

std::string cell(const std::string& s) {
    const std::string out = markdown_text(s);
    return out.empty() ? " " : out;
}

}  // namespace

// Backslash-escapes what CommonMark (and GitHub's tables) would read as
// markup: emphasis, code, links, HTML tags and entities, table pipes. An
// underscore inside a word ("eth_rx") cannot open emphasis, so it stays as
// it is; line breaks become spaces (a cell is one line).
std::string markdown_text(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '\n' || c == '\r') {
            out += ' ';
            continue;
        }
        bool escape = std::string_view("\\`*[]<>|~&").find(c) != std::string_view::npos;
        if (c == '_')
            escape = i == 0 || i + 1 == s.size() || !word_char(static_cast<unsigned char>(s[i - 1])) ||
                     !word_char(static_cast<unsigned char>(s[i + 1]));
        if (escape) out += '\\';
        out += c;
    }
    return out;
}

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
    std::string o = "# " + markdown_text(report_title(r)) + "\n\n";
    for (const auto& w : r.warnings) o += "> **Warning:** " + markdown_text(w) + "\n\n";
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
    for (const auto& n : verdict_notes(r)) o += "\n" + markdown_text(n) + "\n";
    for (const auto& plot : r.ministat_plots)
        o += "\n## " + markdown_text(plot.title) + "\n\n```\n" + plot.text + "```\n";
    o += "\n## Cycles per " + r.per_packet + " by stage\n\n" + markdown_table(stage_table(r));
    if (r.has_cand) o += "\n" + markdown_text(r.stages.method) + "\n";
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
    if (r.has_cand && !r.hottest.empty()) o += "\n" + markdown_text(r.stacks.method) + "\n";
    return o;
}

}  // namespace pathscope::analysis
