// A stage plugin's shared object: loaded, its declaration (include/pathscope/
// stage.h) checked and copied. Loading needs no EAL; probe_plugin() first
// loads it in a child process, so that one that crashes while loading is
// reported instead of taking pathscope with it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pathscope/stage.h"

namespace pathscope::engine {

struct StageConfigKey {
    std::string name;
    bool is_text = false;
    int64_t min = 0, max = 0;
    int64_t default_int = 0;
    std::string default_text;
    std::string help;
};

struct StageDrop {
    std::string name, text;
};

/// What a plugin declares, checked: names well formed and unique, exactly
/// one process function, config defaults in their ranges.
struct StageDeclaration {
    std::string path;  ///< the shared object
    std::string name, summary;
    std::vector<std::string> next_stages;
    std::vector<StageDrop> drops;
    std::vector<StageConfigKey> config;
    const pathscope_stage* raw = nullptr;  ///< its functions (the library stays loaded)
};

/// Limits of a plugin stage: the engine counts at most EdgeCounters::kEdges
/// edges a stage (its main edge, its next stages, drop), and a drop reason
/// index must fit PATHSCOPE_EDGE_DROP's 15 bits and the process's free slots.
inline constexpr unsigned kMaxPluginNextStages = 5;
inline constexpr unsigned kMaxPluginDrops = 32;
inline constexpr size_t kMaxStageNameLength = 31;

/// Checks a declaration read from `path` and copies it. Throws
/// std::runtime_error naming the plugin and what is wrong (another API
/// version, a malformed or duplicate name, no process function, ...).
StageDeclaration check_declaration(const pathscope_stage* s, const std::string& path);

/// The plugin at `path`, loaded once per process (by its canonical path) and
/// never unloaded: stages registered from it live as long as the process.
/// Throws std::runtime_error naming the plugin.
const StageDeclaration& load_plugin(const std::string& path);

/// Loads `path` in a child process and checks its declaration there: a
/// plugin that crashes while loading (a constructor, its entry function)
/// gives an error naming it and the signal. Call it before the EAL starts
/// threads (fork copies only the caller). Throws std::runtime_error.
void probe_plugin(const std::string& path);

}  // namespace pathscope::engine
