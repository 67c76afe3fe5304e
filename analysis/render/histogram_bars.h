// Where the bars of a histogram chart go: the log value axis over the
// series' range, and per non-empty bucket a bar from the bucket's lower to
// its upper bound on that axis, as tall as the bucket's share of its
// series' values (a linear share axis, the tallest share on top). Computed
// once here and drawn by both the HTML report's SVG and the desktop
// program's histogram widget, so that both show the same bars.
#pragma once

#include <vector>

#include "analysis/render/chart_svg.h"
#include "common/histogram.h"

namespace pathscope::analysis {

struct HistogramBar {
    unsigned bucket = 0;
    double share = 0;  ///< the bucket's count over its series' count (0..1)
    /// In plot coordinates: x from the plot's left edge, y up from its
    /// bottom. At least `min_width` wide, never past the plot's right edge.
    double x0 = 0, x1 = 0, height = 0;
};

struct HistogramBars {
    LogAxis axis;            ///< the value axis, shared by every series
    double top_share = 0;    ///< the share at the plot's top (the largest bucket's)
    /// One list per series given, in order; empty for an empty series.
    std::vector<std::vector<HistogramBar>> series;
    bool empty() const { return top_share <= 0; }
    /// Where value v lies on the value axis, from the plot's left edge.
    double x(double v, double plot_width) const { return axis.fraction(v) * plot_width; }
};

/// The bars of `series` (null entries count as empty) in a plot of
/// `plot_width` by `plot_height`; a bar is at least `min_width` wide so a
/// one-value bucket still shows.
HistogramBars histogram_bars(const std::vector<const Histogram*>& series, double plot_width,
                             double plot_height, double min_width = 1.5);

}  // namespace pathscope::analysis
