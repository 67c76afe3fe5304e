// The plugin stages of one engine (EngineConfig::stages). Each is loaded
// and registered as a graph node when the engine is made (before its
// per-node counter rows are sized), created and spliced into its edge
// before the graphs are built, and taken out of the path when the engine
// goes, so that the next engine in the process starts from the built-in path.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/config.h"
#include "engine/dpdk.h"
#include "engine/plugins/plugin_library.h"

namespace pathscope::engine {

struct EngineContext;

class PluginStages {
  public:
    /// Loads each stage's plugin, checks its [stage.config] against what it
    /// declares, registers its node (once per process) and claims its drop
    /// slots. Throws std::runtime_error naming the plugin and what is wrong.
    explicit PluginStages(const std::vector<StageConfig>& stages);
    /// Destroys the instances and puts the spliced edges back.
    ~PluginStages();
    PluginStages(const PluginStages&) = delete;
    PluginStages& operator=(const PluginStages&) = delete;

    /// Creates each stage (the EAL is up) and splices it into its edge, in
    /// order. `rx_nodes`: the engine's eth_rx instances (a stage after
    /// eth_rx follows each). Throws std::runtime_error naming the plugin.
    void start(const EngineContext& ctx, const std::vector<rte_node_t>& rx_nodes);
    /// Puts each stage's node into `order` (stages in path order) after the stage it follows.
    void place(std::vector<rte_node_t>& order) const;
    /// What a stage did wrong on the packet path ("" when nothing): an edge
    /// it returned and did not declare. The engine goes on (the packet is
    /// dropped, counted); the caller stops the run.
    std::string fault() const;

  private:
    struct Stage {
        const StageDeclaration* decl = nullptr;
        StageConfig cfg;
        rte_node_t node = RTE_NODE_ID_INVALID;
        unsigned slot = 0;
        std::vector<pathscope_config_value> values;  ///< point into cfg.config and decl
        std::vector<std::string> texts;              ///< TEXT values (values[].text points here)
        pathscope_stage_env env{};  ///< what create() was told (a stage may keep a pointer to it)
        void* instance = nullptr;
        bool created = false;
        rte_node_t follows = RTE_NODE_ID_INVALID;  ///< the node it was spliced behind
    };
    /// An edge of a built-in stage (or an eth_rx instance) as it was before the splice.
    struct SplicedEdge {
        rte_node_t node;
        rte_edge_t edge;
        std::string to;
    };
    void configure(Stage& st) const;
    /// A run names each drop reason once: none a built-in's or another stage's.
    void check_drop_names(const Stage& st) const;
    void splice(Stage& st, const std::vector<rte_node_t>& rx_nodes);
    /// Which stage names `after`, `before` and next stages may name: the
    /// built-in stages and this engine's plugin stages (those given before
    /// `before` only, when it is not null).
    bool known_stage(const std::string& name, const Stage* before = nullptr) const;
    std::string known_stages(const Stage* before = nullptr) const;
    std::string who(const Stage& st) const;

    std::vector<Stage> stages_;
    std::vector<SplicedEdge> spliced_;
    /// (node, edge) -> the plugin stage spliced into it, behind which the next
    /// stage for that edge goes (followed until a free edge).
    std::map<std::pair<rte_node_t, rte_edge_t>, rte_node_t> tail_;
};

}  // namespace pathscope::engine
