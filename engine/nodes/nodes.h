// Registration entry points of the stages, one file each.
#pragma once

#include "engine/nodes/node.h"

namespace pathscope::engine {

void register_eth_rx();
void register_eth_input();
void register_ip6_input();
void register_early_demux();
void register_ila();  ///< ila_early and ila_late
void register_ip6_lookup();
void register_ip6_local();
void register_ip6_forward();
void register_icmp6_input();
void register_udp6_input();
void register_udp6_output();
void register_ip6_output();
void register_nd_resolve();  ///< and nd_timer
void register_txq_select();
void register_eth_tx();
void register_drop();

}  // namespace pathscope::engine
