#include "analysis/report.h"
namespace pathscope::analysis {
std::string render_report_markdown(const Report&) { return ""; }
std::string render_report_html(const Report&) { return ""; }
std::string render_report_json(const Report&) { return ""; }
}
