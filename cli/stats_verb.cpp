// pathscope stats: ministat on columns of numbers, with the same options.
#include <fstream>
#include <iostream>

#include "analysis/stats/ministat.h"
#include "analysis/text/safe_text.h"
#include "cli/cli_support.h"

namespace pathscope::cli {

namespace {

struct StatsArgs {
    bool A = false, n = false, q = false, s = false;
    int column = 1, width = 74;
    std::string confidence = "95", delimiters = " \t";
    std::vector<std::string> files;
};

int stats(const StatsArgs& a) {
    analysis::MinistatOptions opt;
    opt.confidence = confidence_value(a.confidence);
    opt.width = a.width;
    opt.plot = !a.A && !a.n;
    opt.verdicts = !a.n;
    opt.quiet = a.q;
    opt.separate_bars = a.s;
    const int column = a.column;
    const std::string& delimiters = a.delimiters;
    if (delimiters.empty()) throw UsageError("-d needs at least one delimiter");
    std::vector<std::string> files = a.files;
    if (files.empty()) files.push_back("-");
    if (files.size() > analysis::kMaxDataSets)
        throw UsageError("at most " + std::to_string(analysis::kMaxDataSets) +
                         " files can be told apart in one plot");
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
    // File names in the legend are shown, never obeyed, by the terminal.
    write_output("-", analysis::printable_lines(analysis::render_ministat(sets, opt)));
    return 0;
}

}  // namespace

void add_stats_verb(CLI::App& app, Verbs& verbs) {
    auto a = std::make_shared<StatsArgs>();
    CLI::App* v =
        app.add_subcommand("stats", "ministat on files of numbers: table, plot, Student's t");
    v->footer(
        "ministat, inside pathscope: reads one number a line from each FILE ('-' or\n"
        "none for standard input), prints a text plot, the N/Min/Max/Median/Avg/Stddev\n"
        "table and, for every file after the first, Student's t against the first:\n"
        "  Difference at 95.0% confidence / No difference proven at 95.0% confidence\n"
        "Lines starting with '#' and empty lines are skipped. The t values are\n"
        "ministat's own table, so intervals match it to the last digit. Two things\n"
        "follow today's FreeBSD ministat rather than Debian's 2015 package, on purpose:\n"
        "the median of an even count is the mean of the middle two, and the relative\n"
        "interval (\"% +/- %\") scales the baseline's variance by the ratio of the means\n"
        "(the published 22x2 result needs it). Exit status as ministat's: 1 for a file\n"
        "it cannot open, 2 for bad data or options.");
    v->add_flag("-A", a->A, "statistics only, no plot");
    v->add_flag("-n", a->n, "the table only: no plot, no test");
    v->add_flag("-q", a->q, "no legend and no table header");
    v->add_flag("-s", a->s, "mean/median bars a line per file");
    v->add_option("-C", a->column, "use column N (from 1)")->type_name("N")->check(CLI::PositiveNumber);
    v->add_option("-c", a->confidence, "confidence: 80 90 95 98 99 99.5")->check(kConfidence);
    v->add_option("-d", a->delimiters, "field delimiters (default space and tab)")->type_name("S");
    v->add_option("-w", a->width, "plot width in characters (default 74)")
        ->type_name("N")
        ->check(CLI::Range(2, 10000));
    v->add_option("FILE", a->files, "files of numbers; '-' is standard input");
    verbs.add(v, [a] { return stats(*a); });
}

}  // namespace pathscope::cli
