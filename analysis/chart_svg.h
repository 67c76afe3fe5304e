// Charts as inline SVG for the HTML report: histograms on a log value axis
// (base and candidate overlaid, p50/p90/p99 markers) and per-interval line
// charts. The same layout choices as the desktop program's painted charts.
#pragma once

#include <string>
#include <vector>

#include "analysis/histogram.h"

namespace pathscope::analysis {

struct SvgHistogram {
    std::string name;    ///< "base: burst32"
    std::string colour;  ///< CSS colour
    const Histogram* histogram = nullptr;
};

/// `unit` names the values ("cycles per busy call").
std::string histogram_svg(const std::vector<SvgHistogram>& series, const std::string& unit,
                          int width = 900, int height = 280);

struct SvgLine {
    std::string name;
    std::string colour;
    std::vector<std::pair<double, double>> points;  ///< (x, y)
};

/// A line chart; `boundaries` are x values marked with dashed lines
/// (trial boundaries).
std::string line_chart_svg(const std::vector<SvgLine>& lines, const std::string& x_unit,
                           const std::string& y_unit, const std::vector<double>& boundaries = {},
                           int width = 900, int height = 260);

}  // namespace pathscope::analysis
