// pathscope compare / report: verdicts and code-review reports on stored runs.
#include "cli/verbs.h"

namespace pathscope::cli {
const char* const kCompareUsage = "usage: pathscope compare BASE CAND [--db FILE] [--confidence 95]\n";
const char* const kReportUsage = "usage: pathscope report BASE [CAND] [--db FILE] [--format text|md|html|json] [-o FILE]\n";
int cmd_compare(const std::vector<std::string>&) { return 2; }
int cmd_report(const std::vector<std::string>&) { return 2; }
}  // namespace pathscope::cli
