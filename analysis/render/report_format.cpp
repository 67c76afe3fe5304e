// Choosing a report's rendering by name or by file ending: one table for
// the CLI and the desktop program.
#include <algorithm>
#include <cctype>
#include <string>

#include "analysis/render/report.h"

namespace pathscope::analysis {

std::optional<ReportFormat> report_format_from_name(std::string_view name) {
    if (name == "text") return ReportFormat::text;
    if (name == "md" || name == "markdown") return ReportFormat::markdown;
    if (name == "html") return ReportFormat::html;
    if (name == "json") return ReportFormat::json;
    return std::nullopt;
}

std::optional<ReportFormat> report_format_from_file(std::string_view file) {
    const size_t dot = file.rfind('.');
    if (dot == std::string_view::npos || file.find('/', dot) != std::string_view::npos)
        return std::nullopt;
    std::string ending(file.substr(dot + 1));
    std::transform(ending.begin(), ending.end(), ending.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ending == "txt") return ReportFormat::text;
    if (ending == "md") return ReportFormat::markdown;
    if (ending == "html" || ending == "htm") return ReportFormat::html;
    if (ending == "json") return ReportFormat::json;
    return std::nullopt;
}

std::string render_report(const Report& r, ReportFormat format) {
    switch (format) {
        case ReportFormat::text: return render_report_text(r);
        case ReportFormat::markdown: return render_report_markdown(r);
        case ReportFormat::html: return render_report_html(r);
        case ReportFormat::json: return render_report_json(r);
    }
    return render_report_text(r);
}

}  // namespace pathscope::analysis
