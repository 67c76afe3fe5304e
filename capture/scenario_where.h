// What the scenario readers share (scenario.cpp, scenario_stages.cpp): where
// a value came from, for messages, and file names taken from the scenario's
// folder.
#pragma once

#include <toml++/toml.h>

#include <string>

namespace pathscope::capture {

/// Where a value came from: "FILE:LINE", or "--set KEY=VALUE" for a value
/// from the command line (set_value parses it with that as its source).
std::string where(const toml::node& n, const std::string& file);

/// `p` taken from `base_dir` (the scenario's folder) unless it is absolute or empty.
std::string resolve(const std::string& base_dir, const std::string& p);

}  // namespace pathscope::capture
