#include "analysis/flame_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace pathscope::analysis {

std::string xml_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

namespace {

constexpr int kRow = 17;
constexpr double kCharWidth = 7.0;

std::string label(const std::string& name, double px) {
    const auto fits = static_cast<size_t>(std::max(0.0, (px - 6) / kCharWidth));
    if (fits < 3) return "";
    if (name.size() <= fits) return name;
    return name.substr(0, fits - 2) + "..";
}

std::string fill(const DiffNode& n, bool differential) {
    char buf[32];
    if (differential) {
        if (n.noise) return "#c8c8c8";
        const double k = std::isfinite(n.relative) ? std::min(1.0, std::fabs(n.relative)) : 1.0;
        const int fade = static_cast<int>(210 - 160 * k);
        if (n.delta > 0)
            std::snprintf(buf, sizeof buf, "rgb(255,%d,%d)", fade, fade);
        else
            std::snprintf(buf, sizeof buf, "rgb(%d,%d,255)", fade, fade);
        return buf;
    }
    const size_t h = std::hash<std::string>{}(n.name);
    std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", 220 + static_cast<int>(h % 35),
                  90 + static_cast<int>((h >> 8) % 130), 40 + static_cast<int>((h >> 16) % 50));
    return buf;
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
    auto value = [&](const DiffNode& n) { return opt.differential ? n.cand : n.base; };
    const double whole = value(d.nodes[0]);
    // x (fraction of the root) and depth of every node drawn.
    std::vector<double> x(d.nodes.size(), 0.0);
    std::vector<int> depth(d.nodes.size(), 0);
    std::vector<bool> shown(d.nodes.size(), false);
    int max_depth = 0;
    std::string body;
    for (size_t i = 0; i < d.nodes.size(); ++i) {
        const DiffNode& n = d.nodes[i];
        if (i > 0 && !shown[n.parent]) continue;
        const double w = whole > 0 ? value(n) / whole : 0;
        if (i > 0 && w < opt.min_fraction) continue;
        shown[i] = true;
        double cx = x[i];
        for (int k : n.children) {
            x[k] = cx;
            depth[k] = depth[i] + 1;
            cx += whole > 0 ? value(d.nodes[k]) / whole : 0;
        }
        max_depth = std::max(max_depth, depth[i]);
        const double px = w * opt.width;
        const std::string name = i == 0 ? "all" : n.name;
        char geometry[256];
        std::snprintf(geometry, sizeof geometry,
                      "<g class=\"f\" data-x=\"%.6f\" data-w=\"%.6f\" data-d=\"%d\">", x[i], w,
                      depth[i]);
        char rect[256];
        std::snprintf(rect, sizeof rect,
                      "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"2\" fill=\"%s\"/>",
                      x[i] * opt.width, depth[i] * kRow + 24, std::max(0.1, px - 0.5), kRow - 1,
                      fill(n, opt.differential).c_str());
        char text[128];
        std::snprintf(text, sizeof text, "<text x=\"%.1f\" y=\"%d\">", x[i] * opt.width + 3,
                      depth[i] * kRow + 24 + 12);
        body += std::string(geometry) + "<title>" + xml_escape(name + hover(n, opt, w)) +
                "</title>" + rect + text + xml_escape(label(name, px)) + "</text></g>\n";
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
