#include "analysis/ministat.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace pathscope::analysis {

const char* const kMinistatHeader =
    "    N           Min           Max        Median           Avg        Stddev\n";

namespace {
// A plot cell holds the bit set of the data sets that have a point there;
// set i (from 0) ORs in i + 1, as ministat does, so sets 1 and 2 meeting
// show as "*".
const char kSymbols[] = " x+*%#@O";
}  // namespace

char ministat_symbol(size_t set_index) { return kSymbols[(set_index + 1) % 8]; }

DataSet read_data_set(std::istream& in, const std::string& name, int column,
                      const std::string& delimiters) {
    DataSet ds;
    ds.name = name;
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        // Fields are runs of non-delimiter characters.
        std::string field;
        int index = 0;
        size_t pos = 0;
        while (pos < line.size()) {
            const size_t start = line.find_first_not_of(delimiters, pos);
            if (start == std::string::npos) break;
            size_t end = line.find_first_of(delimiters, start);
            if (end == std::string::npos) end = line.size();
            std::string f = line.substr(start, end - start);
            while (!f.empty() && std::isspace(static_cast<unsigned char>(f.back()))) f.pop_back();
            pos = end;
            if (f.empty()) continue;
            if (f[0] == '#') break;
            if (++index == column) {
                field = f;
                break;
            }
        }
        if (field.empty()) continue;
        char* end = nullptr;
        const double v = std::strtod(field.c_str(), &end);
        if (*end != '\0')
            throw std::runtime_error(name + ":" + std::to_string(line_no) + ": '" + field +
                                     "' is not a number (column " + std::to_string(column) +
                                     "; pick another with -C, or other delimiters with -d)");
        ds.values.push_back(v);
    }
    return ds;
}

std::string ministat_vitals_row(char symbol, const Summary& s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%c %3zu %13.8g %13.8g %13.8g %13.8g %13.8g\n", symbol, s.n,
                  s.min, s.max, s.median, s.mean, s.stddev);
    return buf;
}

std::string render_ministat_plot(const std::vector<DataSet>& sets, int width,
                                 bool separate_bars) {
    std::vector<Summary> sum;
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& ds : sets) {
        sum.push_back(summarize(ds.values));
        const Summary& s = sum.back();
        for (double v : {s.min, s.max, s.mean - s.stddev, s.mean + s.stddev}) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    const double span = hi - lo;
    if (!(span > 0) || width < 2) return "[no plot, span is zero width]\n";
    const double dx = span / (width - 1.0);
    const double x0 = lo - 0.5 * dx;
    auto column = [&](double v) {
        return std::clamp(static_cast<int>((v - x0) / dx), 0, width - 1);
    };

    // rows[r][x]: bit set of data sets with an r-th stacked point in column x.
    std::vector<std::vector<int>> rows;
    std::vector<std::string> bars(separate_bars ? sets.size() : 1, std::string(width, ' '));
    for (size_t i = 0; i < sets.size(); ++i) {
        std::vector<double> v = sets[i].values;
        std::sort(v.begin(), v.end());
        int prev = -1, depth = 0;
        for (double x : v) {
            const int c = column(x);
            depth = c == prev ? depth + 1 : 0;
            prev = c;
            if (static_cast<size_t>(depth) >= rows.size()) rows.emplace_back(width, 0);
            rows[depth][c] |= static_cast<int>(i + 1);
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
    std::string out = rule;
    for (size_t r = rows.size(); r-- > 0;) {
        out += '|';
        for (int k : rows[r]) out += kSymbols[k & 7];
        out += "|\n";
    }
    for (const auto& bar : bars) out += "|" + bar + "|\n";
    return out + rule;
}

std::string render_ministat(const std::vector<DataSet>& sets, const MinistatOptions& opt) {
    std::string out;
    if (!opt.quiet)
        for (size_t i = 0; i < sets.size(); ++i)
            out += std::string(1, ministat_symbol(i)) + " " + sets[i].name + "\n";
    if (opt.plot) out += render_ministat_plot(sets, opt.width, opt.separate_bars);
    if (!opt.quiet) out += kMinistatHeader;
    const Summary base = summarize(sets.empty() ? std::vector<double>{} : sets[0].values);
    for (size_t i = 0; i < sets.size(); ++i) {
        const Summary s = i == 0 ? base : summarize(sets[i].values);
        out += ministat_vitals_row(ministat_symbol(i), s);
        if (i > 0 && opt.verdicts) out += ministat_verdict(student_t(base, s, opt.confidence));
    }
    return out;
}

}  // namespace pathscope::analysis
