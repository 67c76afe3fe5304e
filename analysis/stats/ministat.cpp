#include "analysis/stats/ministat.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>

#include <fmt/printf.h>

#include "analysis/text/number_text.h"

namespace pathscope::analysis {

DataSet read_data_set(std::istream& in, const std::string& name, int column,
                      const std::string& delimiters) {
    DataSet ds;
    ds.name = name;
    bool is_delimiter[256] = {};
    for (unsigned char c : delimiters) is_delimiter[c] = true;
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
            line.pop_back();
        // Fields are runs of non-delimiter characters; '#' starts a comment.
        const char* p = line.c_str();
        const char* field = nullptr;
        size_t length = 0;
        for (int index = 1;; ++index) {
            while (*p && is_delimiter[static_cast<unsigned char>(*p)]) ++p;
            if (!*p || *p == '#') break;
            const char* start = p;
            while (*p && !is_delimiter[static_cast<unsigned char>(*p)]) ++p;
            if (index == column) {
                field = start;
                length = static_cast<size_t>(p - start);
                break;
            }
        }
        if (!field) continue;
        // ministat reads with strtod in the C locale; from_chars reads the
        // same under any (parse_number).
        const std::optional<double> parsed = parse_number(std::string_view(field, length));
        const double v = parsed ? *parsed : 0;
        if (!parsed || !std::isfinite(v))
            throw std::runtime_error(name + ":" + std::to_string(line_no) + ": '" +
                                     std::string(field, length) + "' is not a finite number (column " +
                                     std::to_string(column) +
                                     "; pick another with -C, or other delimiters with -d)");
        ds.values.push_back(v);
    }
    std::sort(ds.values.begin(), ds.values.end());
    return ds;
}


namespace {

const char* const kHeader =
    "    N           Min           Max        Median           Avg        Stddev\n";

// A plot cell holds the bit set of the data sets that have a point there;
// set i (from 0) ORs in i + 1, as ministat does, so sets 1 and 2 meeting
// show as "*".
const char kSymbols[] = " x+*%#@O";

char symbol_of(size_t set_index) { return kSymbols[(set_index + 1) % 8]; }

// One row of the vitals table: "x  22   1880281 ...".
std::string ministat_vitals_row(char symbol, const Summary& s) {
    return fmt::sprintf("%c %3zu %13.8g %13.8g %13.8g %13.8g %13.8g\n", symbol, s.n, s.min, s.max,
                        s.median, s.mean, s.stddev);
}

// Appends the plot to `out`: no copy of a plot that can be many megabytes.
void append_plot(std::string& out, const std::vector<DataSet>& sets,
                 const std::vector<Summary>& sum, int width, bool separate_bars) {
    double lo = INFINITY, hi = -INFINITY;
    for (const Summary& s : sum) {
        for (double v : {s.min, s.max, s.mean - s.stddev, s.mean + s.stddev}) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    const double span = hi - lo;
    if (!(span > 0) || width < 2) {
        out += "[no plot, span is zero width]\n";
        return;
    }
    const double dx = span / (width - 1.0);
    const double x0 = lo - 0.5 * dx;
    // Clamped before the cast: extreme sets can make the position NaN or huge.
    auto column = [&](double v) {
        const double c = (v - x0) / dx;
        return c >= 0 ? static_cast<int>(std::min(c, width - 1.0)) : 0;
    };

    // cells[r * width + x]: bit set of the data sets with an r-th stacked
    // point in column x.
    std::vector<unsigned char> cells;
    size_t height = 0;
    std::vector<std::string> bars(separate_bars ? sets.size() : 1, std::string(width, ' '));
    for (size_t i = 0; i < sets.size(); ++i) {
        // Stacks are counted along sorted values; read_data_set's already are.
        std::vector<double> sorted;
        const std::vector<double>* values = &sets[i].values;
        if (!std::is_sorted(values->begin(), values->end())) {
            sorted = *values;
            std::sort(sorted.begin(), sorted.end());
            values = &sorted;
        }
        const std::vector<double>& v = *values;
        int prev = -1, depth = 0;
        for (double x : v) {
            const int c = column(x);
            depth = c == prev ? depth + 1 : 0;
            prev = c;
            if (static_cast<size_t>(depth) >= height) {
                height = static_cast<size_t>(depth) + 1;
                cells.resize(height * static_cast<size_t>(width), 0);
            }
            cells[static_cast<size_t>(depth) * width + c] |= static_cast<unsigned char>(i + 1);
        }
        std::string& bar = bars[separate_bars ? i : 0];
        const Summary& s = sum[i];
        if (s.n > 1) {
            const int a = column(s.mean - s.stddev), b = column(s.mean + s.stddev);
            for (int k = a + 1; k < b; ++k)
                if (bar[k] == ' ') bar[k] = '_';
            bar[a] = '|';
            bar[b] = '|';
        }
        bar[column(s.median)] = 'M';
        bar[column(s.mean)] = 'A';
    }

    const std::string rule = "+" + std::string(width, '-') + "+\n";
    out.reserve(out.size() + (height + bars.size() + 2) * (static_cast<size_t>(width) + 3));
    out += rule;
    for (size_t r = height; r-- > 0;) {
        out += '|';
        for (int x = 0; x < width; ++x) out += kSymbols[cells[r * width + x] & 7];
        out += "|\n";
    }
    for (const auto& bar : bars) out += "|" + bar + "|\n";
    out += rule;
}

}  // namespace

std::string render_ministat(const std::vector<DataSet>& sets, const MinistatOptions& opt) {
    std::vector<Summary> sum;
    for (const auto& ds : sets) sum.push_back(summarize(ds.values));
    std::string out;
    if (!opt.quiet)
        for (size_t i = 0; i < sets.size(); ++i)
            out += std::string(1, symbol_of(i)) + " " + sets[i].name + "\n";
    if (opt.plot) append_plot(out, sets, sum, opt.width, opt.separate_bars);
    if (!opt.quiet) out += kHeader;
    for (size_t i = 0; i < sets.size(); ++i) {
        out += ministat_vitals_row(symbol_of(i), sum[i]);
        if (i > 0 && opt.verdicts) out += ministat_verdict(student_t(sum[0], sum[i], opt.confidence));
    }
    return out;
}

}  // namespace pathscope::analysis
