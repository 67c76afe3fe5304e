#include "engine/nodes/node.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

namespace pathscope::engine {

namespace {
int bind_context(const rte_graph*, rte_node* node) {
    WorkerContext* w = building_worker();
    memcpy(node->ctx, &w, sizeof w);
    EdgeCounters* edges = w->edges.get() + node->id;
    static_assert(sizeof w + sizeof edges <= RTE_NODE_CTX_SZ);
    memcpy(node->ctx + sizeof w, &edges, sizeof edges);
    return 0;
}
}  // namespace

rte_node_t register_node(const char* name, rte_node_process_t process,
                         std::initializer_list<const char*> next_nodes, bool source) {
    if (next_nodes.size() > EdgeCounters::kEdges)
        throw std::runtime_error(std::string("graph node ") + name + " has " +
                                 std::to_string(next_nodes.size()) + " next edges, more than " +
                                 std::to_string(EdgeCounters::kEdges) +
                                 " (EdgeCounters::kEdges in engine/counters.h)");
    const size_t size = sizeof(rte_node_register) + next_nodes.size() * sizeof(const char*);
    // The graph library copies the name and the edge names, so the
    // registration can go once registered.
    auto* reg = static_cast<rte_node_register*>(calloc(1, size));
    strncpy(reg->name, name, RTE_NODE_NAMESIZE - 1);
    reg->flags = source ? RTE_NODE_SOURCE_F : 0;
    reg->parent_id = RTE_NODE_ID_INVALID;  // not a clone (as RTE_NODE_REGISTER sets it)
    reg->process = process;
    reg->init = bind_context;
    reg->nb_edges = static_cast<rte_edge_t>(next_nodes.size());
    unsigned i = 0;
    for (const char* n : next_nodes) reg->next_nodes[i++] = n;
    const rte_node_t id = __rte_node_register(reg);
    free(reg);
    if (id == RTE_NODE_ID_INVALID)
        throw std::runtime_error(std::string("cannot register graph node ") + name + ": " +
                                 rte_strerror(rte_errno));
    return id;
}

bool make_icmp6_error(EngineContext& ctx, rte_mbuf* m, uint8_t type, uint8_t code,
                      const uint8_t* src) {
    constexpr uint32_t kMinMtu = 1280;
    const PacketMeta* pm = meta(m);
    // RFC 4443 2.4(e): never answer an error message with another.
    if (pm->l4_proto == IPPROTO_ICMPV6 &&
        rte_pktmbuf_data_len(m) > static_cast<uint32_t>(kL3Offset + pm->l4_off) &&
        *rte_pktmbuf_mtod_offset(m, const uint8_t*, kL3Offset + pm->l4_off) < 128)
        return false;
    uint8_t from[16], to[16];
    memcpy(from, src, 16);
    memcpy(to, ip6_hdr(m)->src_addr, 16);
    const rte_ether_addr peer_mac = rte_pktmbuf_mtod(m, const rte_ether_hdr*)->src_addr;
    constexpr uint16_t kAdd = sizeof(rte_ipv6_hdr) + 8;
    if (!rte_pktmbuf_prepend(m, kAdd)) return false;
    // The old Ethernet header now sits where the new IPv6 header goes and is
    // overwritten; the original IPv6 packet follows the ICMPv6 header.
    const uint32_t ip_total = rte_pktmbuf_pkt_len(m) - kL3Offset;
    if (ip_total > kMinMtu) trim_frame(m, ip_total - kMinMtu);
    const uint32_t icmp_len = rte_pktmbuf_pkt_len(m) - kL3Offset - sizeof(rte_ipv6_hdr);
    auto* eth = rte_pktmbuf_mtod(m, rte_ether_hdr*);
    eth->src_addr = peer_mac;  // reply_ethernet swaps it into the destination
    eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
    rte_ipv6_hdr* ip = ip6_hdr(m);
    ip->vtc_flow = RTE_BE32(6u << 28);
    ip->payload_len = rte_cpu_to_be_16(static_cast<uint16_t>(icmp_len));
    ip->proto = IPPROTO_ICMPV6;
    ip->hop_limits = 64;
    memcpy(ip->src_addr, from, 16);
    memcpy(ip->dst_addr, to, 16);
    auto* icmp = reinterpret_cast<uint8_t*>(ip + 1);
    icmp[0] = type;
    icmp[1] = code;
    memset(icmp + 2, 0, 6);
    const uint16_t c =
        l4_checksum_field(m, ip, kL3Offset + sizeof(rte_ipv6_hdr), IPPROTO_ICMPV6, icmp_len);
    memcpy(icmp + 2, &c, 2);
    reply_ethernet(ctx, m);
    return true;
}

void reply_ethernet(EngineContext& ctx, rte_mbuf* m) {
    auto* eth = rte_pktmbuf_mtod(m, rte_ether_hdr*);
    PacketMeta* pm = meta(m);
    eth->dst_addr = eth->src_addr;
    eth->src_addr = ctx.ports[pm->rx_port].mac;
    pm->tx_port = pm->rx_port;
    pm->tx_queue = 0;  // replies made in place skip txq_select
    pm->fate = Fate::reply;
}

}  // namespace pathscope::engine
