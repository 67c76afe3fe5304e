#include "capture/scenario_where.h"

#include <filesystem>

namespace pathscope::capture {

std::string where(const toml::node& n, const std::string& file) {
    const auto& src = n.source();
    if (src.path && src.path->rfind("--set ", 0) == 0) return *src.path;
    if (src.begin.line == 0) return "--set";  // a table that a --set made on its way
    return file + ":" + std::to_string(src.begin.line);
}

std::string resolve(const std::string& base_dir, const std::string& p) {
    if (p.empty() || std::filesystem::path(p).is_absolute()) return p;
    return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

}  // namespace pathscope::capture
