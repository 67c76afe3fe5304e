#include "capture/pcap_reader.h"

#include <pcap/pcap.h>

#include <stdexcept>

namespace pathscope::capture {

PcapReader::PcapReader(const std::string& path) : path_(path) {
    char err[PCAP_ERRBUF_SIZE] = {};
    pcap_ = pcap_open_offline(path.c_str(), err);
    if (!pcap_)
        throw std::runtime_error(
            path + ": cannot read capture (at byte offset 0, the file header): " + err);
    link_type_ = pcap_datalink(pcap_);
}

PcapReader::~PcapReader() {
    if (pcap_) pcap_close(pcap_);
}

std::string PcapReader::link_name() const {
    const char* name = pcap_datalink_val_to_name(link_type_);
    return name ? name : "link type " + std::to_string(link_type_);
}

bool PcapReader::next(Packet& p) {
    FILE* f = pcap_file(pcap_);
    const long at = f ? std::ftell(f) : -1;
    pcap_pkthdr* hdr = nullptr;
    const u_char* data = nullptr;
    const int rc = pcap_next_ex(pcap_, &hdr, &data);
    if (rc == PCAP_ERROR_BREAK) return false;
    if (rc != 1)
        throw std::runtime_error(path_ + ": damaged at byte offset " +
                                 (at >= 0 ? std::to_string(at) : std::string("?")) + " (packet " +
                                 std::to_string(packets_ + 1) + "): " + pcap_geterr(pcap_));
    ++packets_;
    p.data = data;
    p.cap_len = hdr->caplen;
    p.wire_len = hdr->len;
    p.ts = hdr->ts;
    p.offset = at >= 0 ? static_cast<uint64_t>(at) : 0;
    return true;
}

}  // namespace pathscope::capture
