// pathscope stats: ministat on columns of numbers, with the same options.
#include <fstream>
#include <iostream>

#include "analysis/ministat.h"
#include "cli/args.h"
#include "cli/verbs.h"

namespace pathscope::cli {

const char* const kStatsUsage =
    "usage: pathscope stats [-A] [-n] [-q] [-s] [-C COLUMN] [-c CONFIDENCE] [-d DELIMITERS]\n"
    "                       [-w WIDTH] [FILE ...]\n"
    "\n"
    "ministat, inside pathscope: reads one number a line from each FILE ('-' or none\n"
    "for standard input), prints a text plot, the N/Min/Max/Median/Avg/Stddev table\n"
    "and, for every file after the first, Student's t against the first:\n"
    "  Difference at 95.0% confidence / No difference proven at 95.0% confidence\n"
    "Lines starting with '#' and empty lines are skipped.\n"
    "\n"
    "  -A   statistics only, no plot          -n   the table only: no plot, no test\n"
    "  -q   no legend and no table header     -s   mean/median bars a line per file\n"
    "  -C N use column N (from 1)             -c C confidence: 80 90 95 98 99 99.5\n"
    "  -d S field delimiters (default space and tab)\n"
    "  -w N plot width in characters (default 74)\n";

int cmd_stats(const std::vector<std::string>& argv) {
    const Args a = parse_args(argv, {"-C", "-c", "-d", "-w"}, {"-A", "-n", "-q", "-s"},
                              kStatsUsage);
    analysis::MinistatOptions opt;
    if (a.has("-c")) opt.confidence = parse_confidence("-c", a.get("-c"), kStatsUsage);
    const int column = a.has("-C") ? static_cast<int>(parse_count("-C", a.get("-C"), kStatsUsage)) : 1;
    if (column < 1) usage_error("-C counts columns from 1", kStatsUsage);
    if (a.has("-w")) opt.width = static_cast<int>(parse_count("-w", a.get("-w"), kStatsUsage));
    if (opt.width < 2) usage_error("-w needs a width of at least 2", kStatsUsage);
    const std::string delimiters = a.get("-d", " \t");
    if (delimiters.empty()) usage_error("-d needs at least one delimiter", kStatsUsage);
    opt.plot = !a.has("-A") && !a.has("-n");
    opt.verdicts = !a.has("-n");
    opt.quiet = a.has("-q");
    opt.separate_bars = a.has("-s");

    std::vector<std::string> files = a.positional;
    if (files.empty()) files.push_back("-");
    if (files.size() > analysis::kMaxDataSets)
        usage_error("at most " + std::to_string(analysis::kMaxDataSets) +
                        " files can be told apart in one plot",
                    kStatsUsage);
    std::vector<analysis::DataSet> sets;
    // ministat's exit statuses: 1 for a file it cannot open, 2 for bad data.
    for (const auto& f : files) {
        analysis::DataSet ds;
        std::ifstream file;
        if (f != "-") {
            file.open(f);
            if (!file) {
                std::cerr << "pathscope stats: cannot open '" << f << "'\n";
                return 1;
            }
        }
        try {
            ds = analysis::read_data_set(f == "-" ? std::cin : file, f == "-" ? "<stdin>" : f,
                                         column, delimiters);
        } catch (const std::runtime_error& e) {
            std::cerr << "pathscope stats: " << e.what() << "\n";
            return 2;
        }
        if (ds.values.size() < 3) {
            std::cerr << "pathscope stats: " << ds.name << " has " << ds.values.size()
                      << (ds.values.size() == 1 ? " number" : " numbers") << " in column "
                      << column << "; a data set needs at least 3\n";
            return 2;
        }
        sets.push_back(std::move(ds));
    }
    write_output("-", analysis::render_ministat(sets, opt));
    return 0;
}

}  // namespace pathscope::cli
