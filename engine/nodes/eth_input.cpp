// eth_input: Ethernet checks. Accepts frames for our MAC (or any, on a
// promiscuous port) and multicast, with EtherType IPv6; VLAN tags are not
// handled and count as eth_unknown_type.
#include "engine/nodes/nodes.h"

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_ip6_input, to_drop };

uint16_t eth_input_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    EngineContext& ctx = *node_context(node);
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        if (unlikely(rte_pktmbuf_data_len(m) < sizeof(rte_ether_hdr)))
            return drop_as(m, DropReason::eth_short, to_drop);
        const auto* eth = rte_pktmbuf_mtod(m, const rte_ether_hdr*);
        if (unlikely(eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6)))
            return drop_as(m, DropReason::eth_unknown_type, to_drop);
        const PortRuntime& port = ctx.ports[meta(m)->rx_port];
        if (unlikely(!port.promiscuous && !rte_is_same_ether_addr(&eth->dst_addr, &port.mac) &&
                     !rte_is_multicast_ether_addr(&eth->dst_addr)))
            return drop_as(m, DropReason::eth_not_for_us, to_drop);
        return to_ip6_input;
    });
    return n;
}

}  // namespace

void register_eth_input() { register_node(kEthInput, eth_input_process, {kIp6Input, kDrop}); }

}  // namespace pathscope::engine
