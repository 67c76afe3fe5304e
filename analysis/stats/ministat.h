// ministat's output, so reviewers' habits keep working: the legend, the text
// plot (points, mean +/- stddev bars with A and M), the vitals table and a
// Student's t verdict for every set against the first.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "analysis/stats/stats.h"

namespace pathscope::analysis {

struct DataSet {
    std::string name;
    std::vector<double> values;
};

/// Reads one column (1-based) of numbers, sorted; lines that are empty or
/// whose field starts with '#' are skipped. Throws naming the file and line
/// of bad data.
DataSet read_data_set(std::istream& in, const std::string& name, int column = 1,
                      const std::string& delimiters = " \t");

struct MinistatOptions {
    double confidence = 95;
    bool plot = true;           ///< -A and -n turn it off
    bool verdicts = true;       ///< -n turns them off
    bool separate_bars = false; ///< -s
    bool quiet = false;         ///< -q: no legend, no table header
    int width = 74;             ///< -w
};

/// The most data sets one plot can tell apart (symbols x + * % # @ O).
inline constexpr size_t kMaxDataSets = 7;

std::string render_ministat(const std::vector<DataSet>& sets, const MinistatOptions& opt = {});

}  // namespace pathscope::analysis
