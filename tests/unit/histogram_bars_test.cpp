// The bars of a histogram chart, computed once (analysis::histogram_bars)
// for the HTML report's SVG and the desktop program's widget: the SVG draws
// exactly these bars, each as tall as its bucket's share of the values.
#include "analysis/render/histogram_bars.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "analysis/render/chart_svg.h"

using namespace pathscope::analysis;

namespace {

struct SvgRect {
    double x, y, width, height;
};

std::vector<SvgRect> svg_rects(const std::string& svg) {
    std::vector<SvgRect> out;
    const std::regex rect(
        R"re(<rect x="([-0-9.]+)" y="([-0-9.]+)" width="([-0-9.]+)" height="([-0-9.]+)")re");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect); it != std::sregex_iterator();
         ++it)
        out.push_back({std::stod((*it)[1]), std::stod((*it)[2]), std::stod((*it)[3]),
                       std::stod((*it)[4])});
    return out;
}

}  // namespace

TEST(HistogramBars, TheSvgDrawsExactlyTheSharedBars) {
    Histogram base, cand;
    for (uint64_t v = 100; v < 400; v += 3) base.add(v);
    for (uint64_t v = 0; v < 50; ++v) cand.add(900 + v % 7, 3);
    const std::string svg = histogram_svg(
        {{"base", "#c00", &base}, {"cand", "#00c", &cand}}, "cycles per busy call", 900, 280);
    const std::vector<SvgRect> drawn = svg_rects(svg);
    // The SVG's plot: 900 x 280 less its margins (64 left, 24 right, 16 top, 56 bottom).
    const double left = 64, width = 900 - 64 - 24, bottom = 280 - 56, height = 280 - 16 - 56;
    const HistogramBars bars = histogram_bars({&base, &cand}, width, height);
    ASSERT_EQ(bars.series.size(), 2u);
    ASSERT_EQ(drawn.size(), bars.series[0].size() + bars.series[1].size());
    ASSERT_GT(bars.series[0].size(), 10u);
    size_t k = 0;
    for (const auto& series : bars.series)
        for (const HistogramBar& b : series) {
            const SvgRect& r = drawn[k++];
            EXPECT_NEAR(r.x, left + b.x0, 0.051) << k;
            EXPECT_NEAR(r.width, b.x1 - b.x0, 0.051) << k;
            EXPECT_NEAR(r.height, b.height, 0.051) << k;
            EXPECT_NEAR(r.y, bottom - b.height, 0.051) << k;
        }
}

TEST(HistogramBars, HeightIsTheBucketsShareNotItsDensity) {
    // Two values in a 1-wide bucket and two in a 64-wide one: the same share,
    // so the same height (the axis reads "share of all values, per bucket").
    Histogram h;
    h.add(5, 2);
    h.add(1 << 10, 2);
    const HistogramBars bars = histogram_bars({&h}, 800, 200);
    ASSERT_EQ(bars.series[0].size(), 2u);
    EXPECT_DOUBLE_EQ(bars.top_share, 0.5);
    for (const HistogramBar& b : bars.series[0]) {
        EXPECT_DOUBLE_EQ(b.share, 0.5);
        EXPECT_DOUBLE_EQ(b.height, 200);  // the tallest share reaches the top
    }
    const HistogramBar& wide = bars.series[0][1];
    EXPECT_GT(wide.x1 - wide.x0, 1.5);
    // On the log axis, from the bucket's lower bound to past its upper one.
    EXPECT_DOUBLE_EQ(wide.x0, bars.x(double(bucket_lower(wide.bucket)), 800));
    EXPECT_DOUBLE_EQ(wide.x1, bars.x(double(bucket_upper(wide.bucket)) + 1, 800));
}

TEST(HistogramBars, NarrowBucketsKeepAMinimumWidthAndStayInThePlot) {
    Histogram h;
    h.add(1'000'000, 10);  // one bucket at the right end of the axis
    h.add(1'000, 1);
    const HistogramBars bars = histogram_bars({&h, nullptr}, 300, 100, 2.0);
    ASSERT_EQ(bars.series.size(), 2u);
    EXPECT_TRUE(bars.series[1].empty());
    for (const HistogramBar& b : bars.series[0]) {
        EXPECT_GE(b.x1 - b.x0, std::min(2.0, 300 - b.x0) - 1e-9);
        EXPECT_LE(b.x1, 300);
        EXPECT_GE(b.x0, 0);
        EXPECT_LE(b.height, 100);
    }
}

TEST(HistogramBars, NothingRecordedIsEmpty) {
    Histogram empty, zeros;
    zeros.add(0, 5);
    EXPECT_TRUE(histogram_bars({&empty}, 100, 100).empty());
    EXPECT_TRUE(histogram_bars({&zeros}, 100, 100).empty());
    EXPECT_TRUE(histogram_bars({}, 100, 100).empty());
    EXPECT_NE(histogram_svg({{"z", "#000", &zeros}}, "cycles").find("no values recorded"),
              std::string::npos);
}
