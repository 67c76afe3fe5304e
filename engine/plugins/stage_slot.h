// The hot path of a plugin stage: what its node's process function reads.
// A plugin stage's node is registered with one of kMaxPluginStages process
// functions, each a template instance reading its own slot, so the function
// finds the plugin's instance and functions with one load (a node's context
// area is full: worker and edge-row pointers). An engine fills the slots of
// the stages it runs; one engine at a time runs in a process.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/dpdk.h"
#include "engine/plugins/plugin_library.h"

namespace pathscope::engine {

inline constexpr unsigned kMaxPluginStages = 16;

struct StageSlot {
    void* instance = nullptr;
    pathscope_classify_fn classify = nullptr;
    pathscope_burst_fn burst = nullptr;
    /// Edges below this a process function may return as they are: its main
    /// edge and its next stages (the node's edges in that order, then drop).
    uint16_t nb_next = 1;
    uint16_t drop_edge = 1;  ///< the node's edge to the drop stage
    uint16_t nb_drops = 0;
    uint8_t bad_edge_slot = 0;  ///< DropReason of a packet sent to an undeclared edge
    uint8_t drop_slot[kMaxPluginDrops] = {};  ///< DropReason of the plugin's reason i
    /// The first undeclared edge a process function returned, plus one (0:
    /// none yet). Workers write it only on that error path.
    std::atomic<uint32_t> bad_edge{0};
};

StageSlot& stage_slot(unsigned i);
/// The process function that reads slot `i`.
rte_node_process_t stage_slot_process(unsigned i);

}  // namespace pathscope::engine
