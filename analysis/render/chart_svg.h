// Charts as inline SVG for the HTML report: histograms on a log value axis
// (base and candidate overlaid, p50/p90/p99 markers) and per-interval line
// charts. The same layout choices as the desktop program's painted charts.
#pragma once

#include <string>
#include <vector>

#include "common/histogram.h"

namespace pathscope::analysis {

/// A log value axis for a histogram's range: at least a factor of 4 wide,
/// so that a narrow distribution (every burst 32) still has ticks; ticks at
/// 1, 2 and 5 of each decade, or at every digit when the axis is narrow.
/// The SVG charts and the desktop program's painted ones share it.
struct LogAxis {
    double log_lo = 0, log_hi = 1;  ///< log10 of the ends
    std::vector<double> ticks;
    double fraction(double v) const;  ///< where v lies, 0..1
};
LogAxis log_axis(uint64_t min, uint64_t max);

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
