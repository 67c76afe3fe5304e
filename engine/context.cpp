#include "engine/context.h"

#include <algorithm>
#include <cstring>

namespace pathscope::engine {

WorkerContext*& building_worker() {
    static WorkerContext* w = nullptr;
    return w;
}

void EngineContext::wire_address(uint8_t* a) const {
    if (ila == IlaMode::nptv6) {
        nptv6.tx(a);  // unchanged unless translated
        return;
    }
    uint8_t locator[8];
    if (ila != IlaMode::off && ila_table && ila_table->tx(a, locator)) memcpy(a, locator, 8);
}

bool EngineContext::is_local(const uint8_t* a) const {
    for (const auto& l : local_addresses)
        if (memcmp(l.data(), a, 16) == 0) return true;
    return false;
}

bool EngineContext::joined(const uint8_t* g) const {
    static const uint8_t all_nodes[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    if (memcmp(g, all_nodes, 16) == 0) return true;
    static const uint8_t sn_prefix[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff};
    if (memcmp(g, sn_prefix, 13) != 0) return false;
    for (const auto& l : local_addresses)
        if (memcmp(l.data() + 13, g + 13, 3) == 0) return true;
    return false;
}

WorkerContext::WorkerContext(EngineContext& e, unsigned i, unsigned node_rows)
    : engine(e),
      index(i),
      edges(std::make_unique<EdgeCounters[]>(node_rows + 1)),
      neighbour_edges(&edges[node_rows]),
      call_cycles(std::make_unique<HistogramRecorder[]>(node_rows)),
      idle(std::make_unique<IdleCounters[]>(node_rows)),
      untimed(std::make_unique<UntimedCounters[]>(node_rows)) {}

bool WorkerContext::icmp_error_allowed(uint64_t now) {
    if (icmp_per_s == 0) return false;
    const uint64_t per_token = engine.tsc_hz / icmp_per_s;
    if (icmp_last_tsc == 0) icmp_last_tsc = now, icmp_tokens = icmp_per_s;
    if (per_token && now - icmp_last_tsc >= per_token) {
        const uint64_t add = (now - icmp_last_tsc) / per_token;
        icmp_tokens = std::min<uint64_t>(icmp_per_s, icmp_tokens + add);
        icmp_last_tsc += add * per_token;
    }
    if (icmp_tokens == 0) return false;
    --icmp_tokens;
    return true;
}

}  // namespace pathscope::engine
