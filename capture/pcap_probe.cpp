#include "capture/pcap_probe.h"

#include <pcap/dlt.h>

#include <stdexcept>

#include "capture/pcap_reader.h"

namespace pathscope::capture {

PcapInfo probe_ethernet_capture(const std::string& path) {
    PcapReader r(path);
    PcapInfo info;
    info.link_type = r.link_type();
    info.link_name = r.link_name();
    if (info.link_type != DLT_EN10MB)
        throw std::runtime_error(
            path + ": link type " + info.link_name +
            " is not Ethernet; only Ethernet captures can be replayed on a port");
    PcapReader::Packet p;
    while (r.next(p)) {
        if (p.cap_len > info.largest) {
            info.largest = p.cap_len;
            info.largest_packet = r.packets();
        }
    }
    info.packets = r.packets();
    if (info.packets == 0) throw std::runtime_error(path + ": capture holds no packets");
    return info;
}

}  // namespace pathscope::capture
