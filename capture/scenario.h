// Scenario files: TOML (read with toml++) describing EAL arguments, ports and
// queues, addresses, next hops and routes, applications and the workload.
// Unknown keys and wrong types are errors naming the file, line and key.
#pragma once

#include <stdexcept>
#include <string>

#include "engine/config.h"

namespace pathscope::capture {

class ScenarioError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// Reads `path`; relative file names inside it are taken relative to the
/// scenario's own folder. Throws ScenarioError.
engine::EngineConfig load_scenario(const std::string& path);

/// Same, from text (for tests); `name` is used in messages, `base_dir` for relative paths.
engine::EngineConfig parse_scenario(const std::string& text, const std::string& name,
                                    const std::string& base_dir);

}  // namespace pathscope::capture
