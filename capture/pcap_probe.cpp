#include "capture/pcap_probe.h"

#include <pcap/pcap.h>

#include <stdexcept>

namespace pathscope::capture {

PcapInfo probe_ethernet_capture(const std::string& path) {
    char err[PCAP_ERRBUF_SIZE] = {};
    pcap_t* p = pcap_open_offline(path.c_str(), err);
    if (!p) throw std::runtime_error(path + ": cannot read capture: " + err);
    PcapInfo info;
    info.link_type = pcap_datalink(p);
    const char* name = pcap_datalink_val_to_name(info.link_type);
    info.link_name = name ? name : std::to_string(info.link_type);
    if (info.link_type != DLT_EN10MB) {
        pcap_close(p);
        throw std::runtime_error(
            path + ": link type " + info.link_name +
            " is not Ethernet; only Ethernet captures can be replayed on a port");
    }
    pcap_pkthdr* hdr;
    const u_char* data;
    int rc;
    while ((rc = pcap_next_ex(p, &hdr, &data)) == 1) ++info.packets;
    const std::string tail_error = rc == PCAP_ERROR ? pcap_geterr(p) : "";
    pcap_close(p);
    if (!tail_error.empty())
        throw std::runtime_error(path + ": capture damaged after packet " +
                                 std::to_string(info.packets) + ": " + tail_error);
    if (info.packets == 0) throw std::runtime_error(path + ": capture holds no packets");
    return info;
}

}  // namespace pathscope::capture
