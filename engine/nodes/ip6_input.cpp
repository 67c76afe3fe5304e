// ip6_input: RFC 8200 checks. Version, source not multicast, payload length
// against the frame (padding is trimmed, short frames dropped), and a bounded
// walk of the extension headers in which hop-by-hop may only come first.
// Fragments are not reassembled (dropped as ip6_fragment).
#include "common/ip6_ext.h"
#include "engine/nodes/nodes.h"

namespace pathscope::engine {

namespace {

using analysis::Ip6ExtStop;
using analysis::Ip6ExtWalk;
using analysis::walk_ip6_ext;

enum Edge : rte_edge_t { to_lookup, to_drop, to_early_demux, to_ila_early };

uint16_t ip6_input_process(rte_graph* graph, rte_node* node, void** objs, uint16_t n) {
    // Where a checked packet goes next: the optional stages, when switched
    // on, sit between here and the route lookup (chosen once a burst).
    const EngineContext& ctx = *node_context(node);
    const rte_edge_t next = ctx.ila == IlaMode::early ? to_ila_early
                            : ctx.early_demux         ? to_early_demux
                                                      : to_lookup;
    dispatch(graph, node, objs, n, [&](rte_mbuf* m) -> rte_edge_t {
        if (unlikely(rte_pktmbuf_data_len(m) < kL3Offset + sizeof(rte_ipv6_hdr)))
            return drop_as(m, DropReason::ip6_short, to_drop);
        const rte_ipv6_hdr* ip = ip6_hdr(m);
        if (unlikely((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6))
            return drop_as(m, DropReason::ip6_bad_version, to_drop);
        if (unlikely(ip->src_addr[0] == 0xff))
            return drop_as(m, DropReason::ip6_bad_source, to_drop);
        const uint32_t plen = rte_be_to_cpu_16(ip->payload_len);
        if (unlikely(plen == 0 && ip->proto == IPPROTO_HOPOPTS))
            return drop_as(m, DropReason::ip6_jumbogram, to_drop);
        const uint32_t ip_len = sizeof(rte_ipv6_hdr) + plen;
        const uint32_t frame_ip_len = rte_pktmbuf_pkt_len(m) - kL3Offset;
        if (unlikely(ip_len > frame_ip_len)) return drop_as(m, DropReason::ip6_truncated, to_drop);
        if (ip_len < frame_ip_len) trim_frame(m, frame_ip_len - ip_len);

        // Extension header walk, bounded in count and within the first segment.
        const Ip6ExtWalk w = walk_ip6_ext(reinterpret_cast<const uint8_t*>(ip), ip_len,
                                          rte_pktmbuf_data_len(m) - kL3Offset);
        switch (w.stop) {
            case Ip6ExtStop::upper: {
                PacketMeta* pm = meta(m);
                pm->l4_proto = w.proto;
                pm->l4_off = static_cast<uint16_t>(w.off);
                return next;
            }
            case Ip6ExtStop::hbh_not_first:
                return drop_as(m, DropReason::ip6_hbh_not_first, to_drop);
            case Ip6ExtStop::truncated:
                return drop_as(m, DropReason::ip6_ext_truncated, to_drop);
            case Ip6ExtStop::too_many:
                return drop_as(m, DropReason::ip6_ext_too_many, to_drop);
            case Ip6ExtStop::fragment:
                break;
        }
        return drop_as(m, DropReason::ip6_fragment, to_drop);
    });
    // engine.extra_work: a known slowdown, the core kept busy on the TSC as
    // real work would keep it (on a loaded machine the stage also absorbs
    // the time the worker is preempted, as any stage's cycles do).
    if (unlikely(ctx.extra_work_cycles)) {
        const uint64_t until = rte_rdtsc() + uint64_t{ctx.extra_work_cycles} * n;
        while (rte_rdtsc() < until) {
        }
    }
    return n;
}

}  // namespace

void register_ip6_input() {
    register_node(kIp6Input, ip6_input_process, {kIp6Lookup, kDrop, kEarlyDemux, kIlaEarly});
}

}  // namespace pathscope::engine
