// pathscope: the command line. Each verb is a thin layer over the libraries.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/verbs.h"

using namespace pathscope::cli;

namespace {

const Verb kVerbs[] = {
    {"run", "run a scenario, record it into the store, print the stage table", kRunUsage, cmd_run},
    {"list", "list the runs in a store", kListUsage, cmd_list},
    {"show", "print one stored run: stages, ledger, queues, perf, histograms", kShowUsage,
     cmd_show},
    {"compare", "verdicts on every metric of two runs: throughput, cycles, latency", kCompareUsage,
     cmd_compare},
    {"report", "a code-review report of one run or two: text, md, html, json", kReportUsage,
     cmd_report},
    {"stats", "ministat on files of numbers: table, plot, Student's t", kStatsUsage, cmd_stats},
    {"import", "store a pcap capture, or a folded / perf script profile", kImportUsage,
     cmd_import},
    {"export", "write a run as pcapng, folded stacks, speedscope JSON or CSV", kExportUsage, cmd_export},
    {"merge", "bring stores from several machines into one", kMergeUsage, cmd_merge},
    {"routes", "write a route table shaped like a full IPv6 BGP view", kRoutesUsage, cmd_routes},
};

std::string usage() {
    std::string s = "usage: pathscope VERB [options]\n\nverbs:\n";
    for (const auto& v : kVerbs) {
        char line[160];
        std::snprintf(line, sizeof line, "  %-10s %s\n", v.name, v.summary);
        s += line;
    }
    s += "  help [VERB] show this text, or a verb's own help\n\n"
         "Every verb takes --help. The store is pathscope.db in the current folder\n"
         "unless --db names another.\n";
    return s;
}

const Verb* find_verb(const std::string& name) {
    for (const auto& v : kVerbs)
        if (name == v.name) return &v;
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    const std::string top = usage();
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::cout << top;
        return args.empty() ? 2 : 0;
    }
    const std::string name = args[0];
    args.erase(args.begin());
    if (name == "help") {
        if (args.empty()) {
            std::cout << top;
            return 0;
        }
        const Verb* v = find_verb(args[0]);
        if (!v) usage_error("no verb named '" + args[0] + "'", top.c_str());
        std::cout << v->usage;
        return 0;
    }
    const Verb* verb = find_verb(name);
    if (!verb) usage_error("no verb named '" + name + "'", top.c_str());
    if (wants_help(args)) {
        std::cout << verb->usage;
        return 0;
    }
    try {
        return verb->run(args);
    } catch (const std::exception& e) {
        std::cerr << "pathscope " << name << ": " << e.what() << "\n";
        return 1;
    }
}
