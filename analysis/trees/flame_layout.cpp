#include "analysis/trees/flame_layout.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <regex>

#include <fmt/printf.h>

#include "analysis/text/safe_text.h"

namespace pathscope::analysis {

namespace {

double value_of(const DiffNode& n, bool differential) { return differential ? n.cand : n.base; }

bool within(const FlameDiff& d, int node, int root) {
    for (int n = node; n >= 0; n = d.nodes[static_cast<size_t>(n)].parent)
        if (n == root) return true;
    return false;
}

}  // namespace

FlameLayout layout_flame(const FlameDiff& d, const FlameLayoutOptions& opt) {
    FlameLayout out;
    if (d.nodes.empty()) return out;
    const int root = opt.root >= 0 && static_cast<size_t>(opt.root) < d.nodes.size() ? opt.root : 0;
    out.total = value_of(d.nodes[static_cast<size_t>(root)], opt.differential);
    // Ancestors of the zoom root span the whole width above it.
    std::vector<int> ancestors;
    for (int n = d.nodes[static_cast<size_t>(root)].parent; n >= 0;
         n = d.nodes[static_cast<size_t>(n)].parent)
        ancestors.push_back(n);
    std::reverse(ancestors.begin(), ancestors.end());
    int depth = 0;
    for (int a : ancestors)
        out.rects.push_back({a, depth++, 0.0, 1.0,
                             value_of(d.nodes[static_cast<size_t>(a)], opt.differential), 0});
    if (out.total <= 0) {
        out.rects.push_back({root, depth, 0.0, 1.0, 0.0, 0});
        out.depth = depth + 1;
        return out;
    }
    // Breadth of the subtree, parents before children.
    struct Item {
        int node;
        int depth;
        double x;
    };
    std::vector<Item> queue{{root, depth, 0.0}};
    for (size_t q = 0; q < queue.size(); ++q) {
        const Item it = queue[q];
        const DiffNode& n = d.nodes[static_cast<size_t>(it.node)];
        const double w = value_of(n, opt.differential) / out.total;
        out.rects.push_back({it.node, it.depth, it.x, w, value_of(n, opt.differential), 0});
        out.depth = std::max(out.depth, it.depth + 1);
        double cx = it.x;
        FlameRect others{-1, it.depth + 1, 0, 0, 0, 0};
        for (int k : n.children) {
            const double cw = value_of(d.nodes[static_cast<size_t>(k)], opt.differential) / out.total;
            if (cw <= 0) continue;
            if (cw < opt.min_fraction) {
                if (others.merged == 0) others.x = cx;  // placed after the drawn children below
                others.width += cw;
                others.value += cw * out.total;
                ++others.merged;
                continue;
            }
            queue.push_back({k, it.depth + 1, cx});
            cx += cw;
        }
        if (others.merged) {
            others.x = cx;  // tiny frames, together, after their wider siblings
            out.rects.push_back(others);
        }
    }
    return out;
}

FlameRgb name_colour(const std::string& key) {
    const size_t h = std::hash<std::string>{}(key);
    return {220 + static_cast<int>(h % 35), 90 + static_cast<int>((h >> 8) % 130),
            40 + static_cast<int>((h >> 16) % 50)};
}

FlameRgb diff_colour(const DiffNode& n) {
    if (n.noise) return {0xc8, 0xc8, 0xc8};
    const double k = std::isfinite(n.relative) ? std::min(1.0, std::fabs(n.relative)) : 1.0;
    const int fade = static_cast<int>(210 - 160 * k);
    return n.delta > 0 ? FlameRgb{255, fade, fade} : FlameRgb{fade, fade, 255};
}

std::string flame_label(const std::string& raw, double share, size_t chars) {
    if (chars < 4) return "";
    const std::string name = printable(raw);  // a label is one line, controls shown
    const std::string with_share = name + fmt::sprintf(" %.1f%%", share * 100);  // any locale
    if (with_share.size() <= chars) return with_share;
    if (name.size() <= chars) return name;
    if (!flame_cuts_front(name)) {  // a stage, a C function: its start tells it apart
        size_t to = chars - 1;
        while (to > 0 && (static_cast<unsigned char>(name[to]) & 0xC0) == 0x80) --to;
        return name.substr(0, to) + "~";  // cut where a UTF-8 character starts
    }
    size_t from = name.size() - (chars - 1);
    while (from < name.size() && (static_cast<unsigned char>(name[from]) & 0xC0) == 0x80) ++from;
    return "~" + name.substr(from);
}

bool flame_cuts_front(const std::string& name) {
    // A qualified C++ name reads by its end (Engine::walk_loop); anything
    // else by its start (ip6_input, not ~nput).
    return name.find("::") != std::string::npos;
}

namespace {

std::string lower(std::string t) {
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return t;
}

}  // namespace

NameMatcher::NameMatcher(const std::string& pattern, bool regex)
    : pattern_(pattern), needle_(lower(pattern)) {
    if (regex && !pattern.empty())
        re_ = std::make_shared<const std::regex>(pattern, std::regex::ECMAScript | std::regex::icase);
}

bool NameMatcher::operator()(const std::string& name) const {
    if (re_) return std::regex_search(name, *re_);
    return lower(name).find(needle_) != std::string::npos;
}

FlameSearch search_flame(const FlameDiff& d, const std::string& pattern, bool regex,
                         const FlameLayoutOptions& opt) {
    FlameSearch s;
    s.matched.assign(d.nodes.size(), false);
    if (pattern.empty() || d.nodes.empty()) return s;
    const NameMatcher matches(pattern, regex);
    const int root = opt.root >= 0 && static_cast<size_t>(opt.root) < d.nodes.size() ? opt.root : 0;
    const double total = value_of(d.nodes[static_cast<size_t>(root)], opt.differential);
    double covered = 0;
    for (size_t i = 1; i < d.nodes.size(); ++i) {
        const std::string& name = d.nodes[i].name;
        s.matched[i] = matches(name);
        if (!s.matched[i] || !within(d, static_cast<int>(i), root)) continue;
        // Count the outermost match of a path only.
        bool inside = false;
        for (int p = d.nodes[i].parent; p > 0 && !inside; p = d.nodes[static_cast<size_t>(p)].parent)
            inside = s.matched[static_cast<size_t>(p)] && within(d, p, root);
        if (!inside) covered += value_of(d.nodes[i], opt.differential);
    }
    s.share = total > 0 ? covered / total : 0;
    return s;
}

}  // namespace pathscope::analysis
