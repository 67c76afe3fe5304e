#include "analysis/render/histogram_bars.h"

#include <algorithm>
#include <cstdint>

namespace pathscope::analysis {

HistogramBars histogram_bars(const std::vector<const Histogram*>& series, double plot_width,
                             double plot_height, double min_width) {
    HistogramBars bars;
    bars.series.resize(series.size());
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const Histogram* h : series)
        if (h && h->count()) {
            lo = std::min(lo, h->min());
            hi = std::max(hi, h->max());
            for (uint64_t c : h->counts())
                bars.top_share = std::max(bars.top_share, double(c) / double(h->count()));
        }
    if (hi == 0) {  // nothing recorded, or only zeros: no axis to draw on
        bars.top_share = 0;
        return bars;
    }
    bars.axis = log_axis(lo, hi);
    for (size_t s = 0; s < series.size(); ++s) {
        const Histogram* h = series[s];
        if (!h || !h->count()) continue;
        for (unsigned i = 0; i < h->counts().size(); ++i) {
            if (!h->counts()[i]) continue;
            HistogramBar b;
            b.bucket = i;
            b.share = double(h->counts()[i]) / double(h->count());
            b.x0 = bars.x(double(bucket_lower(i)), plot_width);
            b.x1 = std::min(plot_width, std::max(b.x0 + min_width,
                                                 bars.x(double(bucket_upper(i)) + 1, plot_width)));
            b.height = b.share / bars.top_share * plot_height;
            bars.series[s].push_back(b);
        }
    }
    return bars;
}

}  // namespace pathscope::analysis
