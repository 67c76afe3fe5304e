#include "analysis/render/chart_svg.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/render/flame_svg.h"
#include "analysis/render/histogram_bars.h"

namespace pathscope::analysis {

namespace {

constexpr int kLeft = 64, kRight = 24, kTop = 16, kBottom = 56;

std::string tick_label(double v) { return fmt::format("{:.6g}", v); }

}  // namespace

double LogAxis::fraction(double v) const {
    return (std::log10(std::max(1.0, v)) - log_lo) / std::max(1e-9, log_hi - log_lo);
}

LogAxis log_axis(uint64_t lo, uint64_t hi) {
    LogAxis a;
    a.log_lo = std::log10(double(std::max<uint64_t>(1, lo))) - 0.15;
    a.log_hi = std::log10(double(bucket_upper(bucket_index(hi))) + 1) + 0.15;
    if (a.log_hi - a.log_lo < 0.6) {
        const double mid = (a.log_lo + a.log_hi) / 2;
        a.log_lo = mid - 0.3;
        a.log_hi = mid + 0.3;
    }
    a.log_lo = std::max(0.0, a.log_lo);
    const double vlo = std::pow(10, a.log_lo), vhi = std::pow(10, a.log_hi);
    const bool narrow = a.log_hi - a.log_lo < 1.2;
    for (double decade = std::pow(10, std::floor(a.log_lo)); decade <= vhi; decade *= 10)
        for (int m = 1; m <= 9; ++m) {
            if (!narrow && m != 1 && m != 2 && m != 5) continue;
            if (decade * m >= vlo && decade * m <= vhi) a.ticks.push_back(decade * m);
        }
    return a;
}

std::string histogram_svg(const std::vector<SvgHistogram>& series, const std::string& unit,
                          int width, int height) {
    const int legend = 18 * static_cast<int>(series.size()) + 8;
    std::string o = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\">\n",
        width, height + legend);
    const double pw = width - kLeft - kRight, ph = height - kTop - kBottom;
    std::vector<const Histogram*> histograms;
    for (const auto& s : series) histograms.push_back(s.histogram);
    const HistogramBars bars = histogram_bars(histograms, pw, ph);  // shared with the GUI's widget
    if (bars.empty()) return o + "<text x=\"10\" y=\"20\">no values recorded</text>\n</svg>\n";
    auto x = [&](double v) { return kLeft + bars.x(v, pw); };
    const double top = bars.top_share;
    const double bottom = kTop + ph;
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888\"/>\n", kLeft,
                     bottom, kLeft + pw);
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>\n", kLeft,
                     kTop, bottom);
    for (const double v : bars.axis.ticks)
            o += fmt::format(
                "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#888\"/>"
                "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" font-size=\"11\">{4}</text>\n",
                x(v), bottom, bottom + 4, bottom + 16, tick_label(v));
    o += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">{} (log scale)</text>\n",
        kLeft + pw / 2, bottom + 34, xml_escape(unit));
    for (int k = 0; k <= 4; ++k)
        o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\">{:.1f}%</text>\n",
                         kLeft - 4, bottom - ph * k / 4 + 4, top * k / 4 * 100);
    int legend_y = height + 4;
    for (size_t si = 0; si < series.size(); ++si) {
        const SvgHistogram& s = series[si];
        if (!s.histogram || !s.histogram->count()) continue;
        const Histogram& h = *s.histogram;
        for (const HistogramBar& b : bars.series[si])
            o += fmt::format(
                "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
                "fill-opacity=\"{}\"/>\n",
                kLeft + b.x0, bottom - b.height, b.x1 - b.x0, b.height, s.colour,
                series.size() > 1 ? "0.45" : "0.75");
        int k = 0;
        for (const auto& [pct, name] : {std::pair{50.0, "p50"}, {90.0, "p90"}, {99.0, "p99"}}) {
            const double px = x(h.percentile(pct));
            o += fmt::format(
                "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"{3}\" "
                "stroke-dasharray=\"4 3\"/><text x=\"{4:.1f}\" y=\"{5}\" font-size=\"10\" "
                "fill=\"{3}\">{6}</text>\n",
                px, kTop, bottom, s.colour, px + 2, kTop + 10 + 11 * k++, name);
        }
        o += fmt::format(
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{}\">{}: {} calls, min {}, p50 {:.0f}, "
            "p90 {:.0f}, p99 {:.0f}, max {}, MAD {:.0f}</text>\n",
            kLeft, legend_y + 12, s.colour, xml_escape(s.name), h.count(), h.min(),
            h.percentile(50), h.percentile(90), h.percentile(99), h.max(), h.mad());
        legend_y += 18;
    }
    return o + "</svg>\n";
}

std::string line_chart_svg(const std::vector<SvgLine>& lines, const std::string& x_unit,
                           const std::string& y_unit, const std::vector<double>& boundaries,
                           int width, int height) {
    double xmax = 0, ymax = 0;
    for (const auto& l : lines)
        for (const auto& [px, py] : l.points) {
            xmax = std::max(xmax, px);
            ymax = std::max(ymax, py);
        }
    const int legend = 18 * static_cast<int>(lines.size()) + 8;
    std::string o = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\">\n",
        width, height + legend);
    if (xmax <= 0 || ymax <= 0) return o + "<text x=\"10\" y=\"20\">no intervals</text>\n</svg>\n";
    ymax *= 1.1;
    const double pw = width - kLeft - kRight, ph = height - kTop - kBottom, bottom = kTop + ph;
    auto X = [&](double v) { return kLeft + v / xmax * pw; };
    auto Y = [&](double v) { return bottom - v / ymax * ph; };
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888\"/>\n", kLeft,
                     bottom, kLeft + pw);
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>\n", kLeft,
                     kTop, bottom);
    for (int k = 0; k <= 5; ++k) {
        const double vx = xmax * k / 5, vy = ymax * k / 5;
        o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{}</text>\n",
                         X(vx), bottom + 16, tick_label(std::round(vx * 100) / 100));
        o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\">{}</text>\n",
                         kLeft - 4, Y(vy) + 4, tick_label(std::round(vy * 1000) / 1000));
    }
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">{}</text>\n",
                     kLeft + pw / 2, bottom + 34, xml_escape(x_unit));
    o += fmt::format(
        "<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 "
        "14 {0})\">{1}</text>\n",
        kTop + ph / 2, xml_escape(y_unit));
    for (double b : boundaries)
        o += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#aaa\" "
            "stroke-dasharray=\"4 3\"/>\n",
            X(b), kTop, bottom);
    int legend_y = height + 4;
    for (const auto& l : lines) {
        std::string pts;
        for (const auto& [px, py] : l.points) pts += fmt::format("{:.1f},{:.1f} ", X(px), Y(py));
        o += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/>\n",
                         l.colour, pts);
        o += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{}\">{}</text>\n", kLeft,
                         legend_y + 12, l.colour, xml_escape(l.name));
        legend_y += 18;
    }
    return o + "</svg>\n";
}

}  // namespace pathscope::analysis
