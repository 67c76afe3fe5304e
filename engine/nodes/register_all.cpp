#include <mutex>

#include "engine/nodes/nodes.h"

namespace pathscope::engine {

const std::vector<const char*>& register_all_nodes() {
    static const std::vector<const char*> names = {
        kEthRx,     kEthInput,   kIp6Input,  kIlaEarly,  kEarlyDemux, kIp6Lookup,
        kIlaLate,   kIp6Local,   kIp6Forward, kIcmp6Input, kUdp6Input, kUdp6Output,
        kIp6Output, kNdResolve,  kNdTimer,   kTxqSelect, kEthTx,      kDrop};
    static std::once_flag once;
    std::call_once(once, [] {
        register_eth_rx();
        register_eth_input();
        register_ip6_input();
        register_early_demux();
        register_ila();
        register_ip6_lookup();
        register_ip6_local();
        register_ip6_forward();
        register_icmp6_input();
        register_udp6_input();
        register_udp6_output();
        register_ip6_output();
        register_nd_resolve();
        register_txq_select();
        register_eth_tx();
        register_drop();
    });
    return names;
}

}  // namespace pathscope::engine
