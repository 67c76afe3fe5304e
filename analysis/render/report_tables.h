// The report's sections as plain tables of strings, shared by the Markdown
// and HTML renderers (the text renderer lays out its own 80 columns).
#pragma once

#include <string>
#include <vector>

#include "analysis/render/report.h"
#include "analysis/text/safe_text.h"

namespace pathscope::analysis {

struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};

Table environment_table(const Report& r);
Table verdict_table(const Report& r);  ///< one run: mean and stddev per metric
Table stage_table(const Report& r);
Table queue_table(const Report& r);
Table hottest_table(const Report& r);
/// A table as Markdown (numbers right-aligned after the first column).
std::string markdown_table(const Table& t);
/// A table as HTML; rows whose `verdict_column` says better or worse get that class.
std::string html_table(const Table& t, int verdict_column = -1);
/// The HTML reports' style sheet.
extern const char* const kReportStyle;

/// The report's title line.
std::string report_title(const Report& r);
/// The footnote under the verdict table: tests, confidence, N, warnings.
std::vector<std::string> verdict_notes(const Report& r);

}  // namespace pathscope::analysis
