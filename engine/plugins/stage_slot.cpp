#include "engine/plugins/stage_slot.h"

#include <utility>

#include "engine/nodes/node.h"

namespace pathscope::engine {

namespace {

StageSlot g_slots[kMaxPluginStages];

/// Kept out of line: the packet goes to drop under the slot's bad-edge
/// reason, and the run is stopped by the control thread, which reads bad_edge.
[[gnu::noinline, gnu::cold]] rte_edge_t undeclared(StageSlot& s, rte_mbuf* m, uint16_t e) {
    uint32_t none = 0;
    s.bad_edge.compare_exchange_strong(none, uint32_t{e} + 1, std::memory_order_relaxed);
    meta(m)->drop = static_cast<DropReason>(s.bad_edge_slot);
    return s.drop_edge;
}

/// The node's edge for what the plugin returned (stage.h's PATHSCOPE_EDGE_*):
/// its main edge and next stages map to themselves, a drop to the drop edge
/// with the reason's slot in the packet's metadata.
inline rte_edge_t host_edge(StageSlot& s, rte_mbuf* m, uint16_t e) {
    if (likely(e < s.nb_next)) return e;
    const uint16_t r = e & 0x7fffu;
    if (likely((e & 0x8000u) && r < s.nb_drops)) {
        meta(m)->drop = static_cast<DropReason>(s.drop_slot[r]);
        return s.drop_edge;
    }
    return undeclared(s, m, e);
}

template <unsigned S>
uint16_t slot_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    StageSlot& s = g_slots[S];
    const uint32_t worker = node_worker(node)->index;
    if (s.classify) {
        dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
            return host_edge(s, m, s.classify(s.instance, worker, m));
        });
        return n;
    }
    // A whole-burst function: its edges a chunk at a time (a node's input
    // may hold more than one burst), read back in dispatch()'s order.
    constexpr uint16_t kChunk = RTE_GRAPH_BURST_SIZE;
    auto** pkts = reinterpret_cast<rte_mbuf**>(objs);
    uint16_t edges[kChunk];
    uint16_t at = 0, filled = 0, done = 0;
    auto refill = [&] {
        filled = static_cast<uint16_t>(std::min<unsigned>(kChunk, n - done));
        s.burst(s.instance, worker, pkts + done, filled, edges);
        done = static_cast<uint16_t>(done + filled);
        at = 0;
    };
    if (n) refill();
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        if (unlikely(at == filled)) refill();
        return host_edge(s, m, edges[at++]);
    });
    return n;
}

template <unsigned... I>
constexpr std::array<rte_node_process_t, sizeof...(I)> process_table(std::integer_sequence<unsigned, I...>) {
    return {&slot_process<I>...};
}

constexpr auto kProcess = process_table(std::make_integer_sequence<unsigned, kMaxPluginStages>{});

}  // namespace

StageSlot& stage_slot(unsigned i) { return g_slots[i]; }

rte_node_process_t stage_slot_process(unsigned i) { return kProcess[i]; }

}  // namespace pathscope::engine
