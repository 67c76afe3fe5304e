#include "capture/kernel/stage_map.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pathscope::capture {

StageMap StageMap::load(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error(path + ": cannot read the stage map (linux.stage_map, or "
                                 "--stage-map FILE)");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse(ss.str(), path);
}

int StageMap::stage_index(const std::string& stage) {
    const auto it = std::find(stages_.begin(), stages_.end(), stage);
    if (it != stages_.end()) return static_cast<int>(it - stages_.begin());
    stages_.push_back(stage);
    return static_cast<int>(stages_.size() - 1);
}

StageMap StageMap::parse(const std::string& text, const std::string& name) {
    StageMap m;
    m.source_ = name;
    std::istringstream in(text);
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        line = line.substr(0, line.find('#'));
        std::istringstream fields(line);
        std::string function, stage, extra;
        if (!(fields >> function)) continue;
        const std::string where = name + ":" + std::to_string(lineno) + ": ";
        if (!(fields >> stage) || (fields >> extra))
            throw std::runtime_error(where + "expected FUNCTION STAGE (like: ip6_forward ip6_forward)");
        if (stage == kUnmappedKernel || stage == kUnmappedUser)
            throw std::runtime_error(where + "'" + stage + "' is the row of unmapped samples");
        const int index = m.stage_index(stage);
        if (function == "[user]") {
            m.user_ = index;
        } else if (function.size() > 1 && function.back() == '*') {
            m.prefixes_.emplace_back(function.substr(0, function.size() - 1), index);
        } else if (function.find('*') != std::string::npos) {
            throw std::runtime_error(where + "'" + function +
                                     "': a pattern ends in * (a prefix), nowhere else");
        } else if (!m.exact_.emplace(function, index).second) {
            throw std::runtime_error(where + "'" + function + "' is named twice");
        }
    }
    if (m.stages_.empty()) throw std::runtime_error(name + ": the stage map names no function");
    // The longest prefix wins where two match (neigh_resolve_* before neigh_*).
    std::stable_sort(m.prefixes_.begin(), m.prefixes_.end(),
                     [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    m.unmapped_ = m.stage_index(kUnmappedKernel);
    if (m.user_ < 0) m.user_ = m.stage_index(kUnmappedUser);
    return m;
}

int StageMap::stage_of(const std::string& function) const {
    if (const auto it = exact_.find(function); it != exact_.end()) return it->second;
    // A compiler's clone of a function is the function: fn.isra.0, fn.constprop.0, fn.cold.
    if (const auto dot = function.find('.'); dot != std::string::npos && dot > 0)
        if (const auto it = exact_.find(function.substr(0, dot)); it != exact_.end())
            return it->second;
    if (prefixes_.empty()) return -1;
    if (const auto it = cache_.find(function); it != cache_.end()) return it->second;
    int found = -1;
    for (const auto& [prefix, index] : prefixes_)
        if (function.compare(0, prefix.size(), prefix) == 0) {
            found = index;
            break;
        }
    cache_.emplace(function, found);
    return found;
}

int StageMap::classify(const std::vector<const std::string*>& kernel,
                       const std::vector<const std::string*>& user) const {
    // A sample in the kernel is the kernel's, whatever user code called it:
    // its unnamed time stays unmapped kernel time.
    const auto& frames = kernel.empty() ? user : kernel;
    for (const std::string* f : frames)
        if (const int s = stage_of(*f); s >= 0) return s;
    return kernel.empty() ? user_ : unmapped_;
}

}  // namespace pathscope::capture
