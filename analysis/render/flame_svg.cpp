#include "analysis/render/flame_svg.h"

#include "analysis/trees/flame_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/printf.h>

namespace pathscope::analysis {

namespace {

constexpr int kRow = 17;
constexpr double kCharWidth = 7.0;

// The same rule as the desktop widget: the whole name with its share where
// it fits, else the end of the name (the function, not the namespace).
std::string label(const std::string& name, double share, double px) {
    return flame_label(name, share, static_cast<size_t>(std::max(0.0, (px - 6) / kCharWidth)));
}

std::string css(FlameRgb c) {
    return fmt::sprintf("rgb(%d,%d,%d)", c.r, c.g, c.b);
}

std::string fill(const DiffNode& n, bool differential) {
    return css(differential ? diff_colour(n) : name_colour(n.name));
}

std::string hover(const DiffNode& n, const FlameSvgOptions& opt, double share) {
    // fmt, never the C library: the same digits under any locale (a GUI's
    // LC_NUMERIC would print "12,5").
    if (!opt.differential)
        return fmt::sprintf(" | %.4g %s, %.2f%% of all", n.base, opt.unit, share * 100);
    const std::string rel =
        std::isfinite(n.relative) ? fmt::sprintf("%+.1f%%", n.relative * 100) : "new";
    return fmt::sprintf(" | base %.4g, cand %.4g %s (%+.4g, %s)%s", n.base, n.cand, opt.unit,
                        n.delta, rel, n.noise ? ", " + change_word(n) : "");
}

}  // namespace

std::string flame_svg(const FlameDiff& d, const FlameSvgOptions& opt) {
    if (d.nodes.empty()) return "";
    FlameLayoutOptions lo;
    lo.differential = opt.differential;
    lo.min_fraction = opt.min_fraction;
    const FlameLayout layout = layout_flame(d, lo);
    int max_depth = 0;
    std::string body;
    for (const FlameRect& r : layout.rects) {
        max_depth = std::max(max_depth, r.depth);
        const double px = r.width * opt.width;
        const bool others = r.node < 0;
        const std::string name = others ? "others (" + std::to_string(r.merged) + " frames)"
                                 : r.node == 0 ? "all"
                                               : d.nodes[static_cast<size_t>(r.node)].name;
        const std::string geometry =
            fmt::sprintf("<g class=\"f\" data-x=\"%.6f\" data-w=\"%.6f\" data-d=\"%d\">", r.x,
                         r.width, r.depth);
        const std::string rect = fmt::sprintf(
            "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"2\" fill=\"%s\"/>",
            r.x * opt.width, r.depth * kRow + 24, std::max(0.1, px - 0.5), kRow - 1,
            others ? css(kOthersColour)
                   : fill(d.nodes[static_cast<size_t>(r.node)], opt.differential));
        const std::string text = fmt::sprintf("<text x=\"%.1f\" y=\"%d\">", r.x * opt.width + 3,
                                              r.depth * kRow + 24 + 12);
        const std::string details =
            others ? " | " + std::to_string(r.merged) + " frames each under " +
                         fmt::sprintf("%g", opt.min_fraction * 100) + "% of all"
                   : hover(d.nodes[static_cast<size_t>(r.node)], opt, r.width);
        body += std::string(geometry) + "<title>" + xml_escape(name + details) + "</title>" + rect +
                text + xml_escape(label(name, r.width, px)) + "</text></g>\n";
    }
    char head[512];
    const int height = (max_depth + 1) * kRow + 30;
    std::snprintf(head, sizeof head,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" id=\"%s\" "
                  "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" data-width=\"%d\">\n"
                  "<text class=\"hint\" x=\"4\" y=\"15\">click a frame to zoom, click 'all' to "
                  "reset</text>\n",
                  xml_escape(opt.id).c_str(), opt.width, height, opt.width, height, opt.width);
    return head + body + "</svg>\n";
}

}  // namespace pathscope::analysis
