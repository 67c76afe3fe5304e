#include "analysis/flame_svg.h"

#include "analysis/flame_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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
    char buf[32];
    std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", c.r, c.g, c.b);
    return buf;
}

std::string fill(const DiffNode& n, bool differential) {
    return css(differential ? diff_colour(n) : name_colour(n.name));
}

std::string hover(const DiffNode& n, const FlameSvgOptions& opt, double share) {
    char buf[256];
    if (!opt.differential) {
        std::snprintf(buf, sizeof buf, " | %.4g %s, %.2f%% of all", n.base, opt.unit.c_str(),
                      share * 100);
        return buf;
    }
    char rel[32] = "new";
    if (std::isfinite(n.relative)) std::snprintf(rel, sizeof rel, "%+.1f%%", n.relative * 100);
    std::snprintf(buf, sizeof buf, " | base %.4g, cand %.4g %s (%+.4g, %s)%s", n.base, n.cand,
                  opt.unit.c_str(), n.delta, rel, n.noise ? ", within noise" : "");
    return buf;
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
        char geometry[256];
        std::snprintf(geometry, sizeof geometry,
                      "<g class=\"f\" data-x=\"%.6f\" data-w=\"%.6f\" data-d=\"%d\">", r.x,
                      r.width, r.depth);
        char rect[256];
        std::snprintf(rect, sizeof rect,
                      "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"2\" fill=\"%s\"/>",
                      r.x * opt.width, r.depth * kRow + 24, std::max(0.1, px - 0.5), kRow - 1,
                      others ? css(kOthersColour).c_str() : fill(d.nodes[static_cast<size_t>(r.node)], opt.differential).c_str());
        char text[128];
        std::snprintf(text, sizeof text, "<text x=\"%.1f\" y=\"%d\">", r.x * opt.width + 3,
                      r.depth * kRow + 24 + 12);
        const std::string details =
            others ? " | " + std::to_string(r.merged) + " frames each under " +
                         std::to_string(opt.min_fraction * 100) + "% of all"
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
