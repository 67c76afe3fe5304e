// ip6_local: local delivery, by the upper-layer protocol found by ip6_input.
// A unicast destination must still be on the interface address list (read
// under engine.ifaddr_sync's protection: the list can change while packets
// arrive); one removed since the route was installed is ip6_addr_gone.
#include "engine/nodes/nodes.h"

#include <cstring>

namespace pathscope::engine {

namespace {

enum Edge : rte_edge_t { to_icmp6, to_udp6, to_drop };

uint16_t ip6_local_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    const InterfaceAddresses& ifaddrs = *node_context(node)->ifaddrs;
    // The last address found on the list in this call: a burst's packets
    // mostly share one, and one lookup then answers for all of them, as if
    // the list had been read once for the call (a reader's view under
    // either engine.ifaddr_sync; an address removed during the call is
    // seen by the next one).
    uint8_t found[16];
    bool have_found = false;
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        const uint8_t* dst = ip6_hdr(m)->dst_addr;
        if (dst[0] != 0xff && !(have_found && memcmp(found, dst, 16) == 0)) {
            if (unlikely(!ifaddrs.is_local(dst)))
                return drop_as(m, DropReason::ip6_addr_gone, to_drop);
            memcpy(found, dst, 16);
            have_found = true;
        }
        switch (meta(m)->l4_proto) {
            case IPPROTO_UDP:
                return to_udp6;
            case IPPROTO_ICMPV6:
                return to_icmp6;
            default:
                return drop_as(m, DropReason::ip6_unknown_proto, to_drop);
        }
    });
    return n;
}

}  // namespace

void register_ip6_local() {
    register_node(kIp6Local, ip6_local_process, {kIcmp6Input, kUdp6Input, kDrop});
}

}  // namespace pathscope::engine
