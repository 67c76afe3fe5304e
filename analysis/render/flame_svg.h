// A flame graph (icicle: the root on top) as an inline SVG element for the
// HTML report. Widths follow the candidate; in a difference, red grows, blue
// shrinks and grey is within noise. The report's script zooms on click and
// highlights search matches; the SVG itself is well-formed XML.
#pragma once

#include <string>

#include "analysis/trees/flame_diff.h"
#include "analysis/text/safe_text.h"

namespace pathscope::analysis {

struct FlameSvgOptions {
    std::string id;     ///< unique in the page: the search box refers to it
    std::string unit;   ///< what a node's value is, for the hover text
    bool differential = false;
    int width = 1200;
    double min_fraction = 0.0005;  ///< narrower nodes are left out
};

std::string flame_svg(const FlameDiff& d, const FlameSvgOptions& opt);

}  // namespace pathscope::analysis
