// Checks a capture file before the engine replays it through net_pcap.
#pragma once

#include <cstdint>
#include <string>

namespace pathscope::capture {

struct PcapInfo {
    int link_type = 0;
    std::string link_name;
    uint64_t packets = 0;
    uint32_t largest = 0;         ///< bytes of the largest frame in the file
    uint64_t largest_packet = 0;  ///< which packet that is (1 = the first)
};

/// Opens `path` with libpcap (pcap or pcapng) and counts its packets. Throws
/// std::runtime_error naming the file when it cannot be read or when its link
/// type is not Ethernet, which is all a DPDK port can replay.
PcapInfo probe_ethernet_capture(const std::string& path);

}  // namespace pathscope::capture
