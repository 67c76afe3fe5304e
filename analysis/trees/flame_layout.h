// Where each frame of a flame graph goes at a zoom: computed once here and
// drawn by both the HTML report's SVG and the desktop program's widget.
// Icicle layout: the root on top, children under their parent, left to
// right in the tree's order, widths in proportion to their value.
#pragma once

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "analysis/trees/flame_diff.h"

namespace pathscope::analysis {

struct FlameRect {
    int node = -1;      ///< index into FlameDiff::nodes; -1: merged tiny frames ("others")
    int depth = 0;      ///< row, 0 on top
    double x = 0;       ///< left edge, a fraction of the zoom root's width (0..1)
    double width = 0;   ///< a fraction of the zoom root's width
    double value = 0;   ///< the value drawn (base, or cand in a difference)
    int merged = 0;     ///< "others": how many frames it stands for
};

struct FlameLayoutOptions {
    int root = 0;               ///< the zoomed-into node; its ancestors span the full width above it
    bool differential = false;  ///< widths follow the candidate
    /// Children narrower than this (fraction of the zoom root) are merged
    /// into one "others" rectangle under their parent.
    double min_fraction = 0.001;
};

struct FlameLayout {
    std::vector<FlameRect> rects;  ///< parents before children
    int depth = 0;                 ///< rows used
    double total = 0;              ///< the zoom root's value
};

FlameLayout layout_flame(const FlameDiff& d, const FlameLayoutOptions& opt = {});

/// Frame colours, the same in the HTML report and the desktop program.
struct FlameRgb {
    int r = 0, g = 0, b = 0;
};
/// A warm colour from a name (a frame, a stage, a namespace): stable across runs.
FlameRgb name_colour(const std::string& key);
/// A difference: grey within noise, red grew, blue shrank, deeper the larger the change.
FlameRgb diff_colour(const DiffNode& n);
inline constexpr FlameRgb kOthersColour{0xd8, 0xd8, 0xd8};

/// A frame's label in `chars` characters: the name with its share (of all)
/// in percent where that fits, else the whole name, else the part that
/// tells it apart (flame_cuts_front: "~walk" of a C++ name, the function
/// rather than the namespace; "ip6_in~" of a stage); "" when not even 4 fit.
std::string flame_label(const std::string& name, double share, size_t chars);
/// Whether a name too long for its frame loses its front (a qualified C++
/// name, which reads by its end) rather than its end (a stage, ip6_input).
bool flame_cuts_front(const std::string& name);

/// What a frame search matches: a plain substring regardless of case (as
/// the HTML report's search box does), or an ECMAScript regular expression,
/// also regardless of case. Throws std::regex_error on an unfinished one.
class NameMatcher {
  public:
    NameMatcher(const std::string& pattern, bool regex);
    bool empty() const { return pattern_.empty(); }
    bool operator()(const std::string& name) const;

  private:
    std::string pattern_;
    std::string needle_;  ///< the pattern in lower case
    std::shared_ptr<const std::regex> re_;
};

/// The nodes whose name matches `pattern` (a plain substring, or an
/// ECMAScript regular expression when `regex` is set) and the share of the
/// zoom root they cover, counting a match inside another match once.
struct FlameSearch {
    std::vector<bool> matched;  ///< by node
    double share = 0;
};
FlameSearch search_flame(const FlameDiff& d, const std::string& pattern, bool regex,
                         const FlameLayoutOptions& opt = {});

}  // namespace pathscope::analysis
