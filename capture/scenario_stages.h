// Plugin stages in a scenario ([[stage]] tables) and on run's command line
// (--stage FILE.so:after=STAGE,...): parsed into engine::StageConfig. What
// a plugin accepts in its config is its own declaration's business
// (engine/plugins/); here only the shape is checked.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <vector>

#include "engine/config.h"

namespace pathscope::capture {

/// The [[stage]] tables of `root` (none: empty). Relative plugin paths are
/// taken from `base_dir`, the scenario's folder, as every file it names.
/// Throws ScenarioError naming the file, line and key.
std::vector<engine::StageConfig> read_stages(const toml::table& root, const std::string& file,
                                             const std::string& base_dir);

/// run --stage FILE.so:after=STAGE[,before=STAGE][,KEY=VALUE...]: FILE is
/// taken from the current folder; a VALUE of digits (or true/false) is an
/// integer, anything else text. Throws ScenarioError saying the form.
engine::StageConfig parse_stage_option(const std::string& text);

/// How a run stores a stage it ran (a fact "stage.N"): "plugin=PATH
/// after=STAGE before=STAGE KEY=VALUE ..." (a text value's newlines as "\n").
std::string describe_stage(const engine::StageConfig& stage);

}  // namespace pathscope::capture
