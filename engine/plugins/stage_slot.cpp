#include "engine/plugins/stage_slot.h"

#include <algorithm>
#include <array>
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

/// The plugin's edges for pkts[0, n), n at most a burst: its burst
/// function, or its classifier called per packet. 0 when every packet takes
/// the main edge (`edges` then need not have been written).
inline uint16_t plugin_edges(StageSlot& s, uint32_t worker, rte_mbuf** pkts, uint16_t n,
                             uint16_t* edges) {
    if (s.burst) return s.burst(s.instance, worker, pkts, n, edges);
    // Read once: the slot is a global, which the compiler would otherwise
    // load again after every call it cannot see into.
    const pathscope_classify_fn classify = s.classify;
    void* const instance = s.instance;
    uint16_t any = 0;
    for (uint16_t i = 0; i < n; ++i) any |= edges[i] = classify(instance, worker, pkts[i]);
    return any;
}

/// Moves `n` objects along the node's edges as `edges` says. A stage that
/// passed every packet on (`any` is 0: the usual case) costs what a
/// built-in stage that does the same costs: dispatch() with a constant
/// classifier, which hands the whole stream over without a copy.
inline void enqueue(StageSlot& s, rte_graph* graph, rte_node* node, void** objs, uint16_t n,
                    const uint16_t* edges, uint16_t any) {
    if (likely(any == PATHSCOPE_EDGE_NEXT)) {
        dispatch(graph, node, objs, n, [](rte_mbuf*) -> rte_edge_t { return PATHSCOPE_EDGE_NEXT; });
        return;
    }
    uint16_t i = 0;
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t { return host_edge(s, m, edges[i++]); });
}

/// A node's input of more than a burst (pathscope_burst_fn takes at most
/// RTE_GRAPH_BURST_SIZE): the plugin's edges a burst at a time.
[[gnu::noinline]] void process_in_bursts(StageSlot& s, uint32_t worker, rte_graph* graph,
                                         rte_node* node, void** objs, uint16_t n) {
    uint16_t edges[RTE_GRAPH_BURST_SIZE];
    for (uint16_t done = 0; done < n;) {
        const uint16_t k = static_cast<uint16_t>(std::min<unsigned>(RTE_GRAPH_BURST_SIZE, n - done));
        const uint16_t any =
            plugin_edges(s, worker, reinterpret_cast<rte_mbuf**>(objs + done), k, edges);
        enqueue(s, graph, node, objs + done, k, edges, any);
        done = static_cast<uint16_t>(done + k);
    }
}

template <unsigned S>
uint16_t slot_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    StageSlot& s = g_slots[S];
    const uint32_t worker = node_worker(node)->index;
    if (unlikely(n > RTE_GRAPH_BURST_SIZE)) {
        process_in_bursts(s, worker, graph, node, objs, n);
        return n;
    }
    uint16_t edges[RTE_GRAPH_BURST_SIZE];
    const uint16_t any = plugin_edges(s, worker, reinterpret_cast<rte_mbuf**>(objs), n, edges);
    enqueue(s, graph, node, objs, n, edges, any);
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
