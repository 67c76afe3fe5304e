// The verbs of the pathscope command: each a thin layer over the libraries.
#pragma once

#include <string>
#include <vector>

namespace pathscope::cli {

struct Verb {
    const char* name;
    const char* summary;
    const char* usage;
    int (*run)(const std::vector<std::string>& args);
};

int cmd_run(const std::vector<std::string>& args);
int cmd_list(const std::vector<std::string>& args);
int cmd_show(const std::vector<std::string>& args);
int cmd_merge(const std::vector<std::string>& args);
int cmd_import(const std::vector<std::string>& args);
int cmd_export(const std::vector<std::string>& args);
int cmd_routes(const std::vector<std::string>& args);
int cmd_stats(const std::vector<std::string>& args);
int cmd_compare(const std::vector<std::string>& args);
int cmd_report(const std::vector<std::string>& args);

extern const char* const kRunUsage;
extern const char* const kListUsage;
extern const char* const kShowUsage;
extern const char* const kMergeUsage;
extern const char* const kImportUsage;
extern const char* const kExportUsage;
extern const char* const kRoutesUsage;
extern const char* const kStatsUsage;
extern const char* const kCompareUsage;
extern const char* const kReportUsage;

}  // namespace pathscope::cli
