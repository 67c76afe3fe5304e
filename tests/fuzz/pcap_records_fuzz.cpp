// libFuzzer target: the records of a capture file behind a fixed, valid
// file header, so that mutations land in the records instead of being
// refused at the header (pcap_file_fuzz mutates both). The first input byte
// picks the header (modulo kHeaders): pcap little or big endian, micro- or
// nanosecond, of each link type the importer adapts (Ethernet, raw IPv6,
// BSD loopback, Linux cooked v1 and v2), or a pcapng section header and
// interface description (Ethernet, or Linux cooked v2); the rest of the
// input follows it as records (pcap record headers, or pcapng blocks).
#include <pcap/dlt.h>

#include <vector>

#include "tests/fuzz/pcap_fuzz.h"

namespace {

struct Header {
    enum Kind { pcap_le, pcap_le_nsec, pcap_be, pcapng } kind;
    uint32_t linktype;
};
// LINKTYPE_ values as files hold them (libpcap maps them to DLT_ values).
constexpr Header kHeaders[] = {
    {Header::pcap_le, 1},        // Ethernet
    {Header::pcap_le_nsec, 1},   // Ethernet, nanosecond time stamps
    {Header::pcap_be, 1},        // Ethernet, big endian
    {Header::pcap_le, 101},      // LINKTYPE_RAW
    {Header::pcap_le, 229},      // LINKTYPE_IPV6
    {Header::pcap_le, 0},        // LINKTYPE_NULL (BSD loopback)
    {Header::pcap_le, 113},      // LINKTYPE_LINUX_SLL
    {Header::pcap_le, 276},      // LINKTYPE_LINUX_SLL2
    {Header::pcapng, 1},         // pcapng, Ethernet
    {Header::pcapng, 276},       // pcapng, Linux cooked v2
};
constexpr size_t kHeaderCount = sizeof kHeaders / sizeof kHeaders[0];

void put32(std::vector<uint8_t>& b, uint32_t v, bool big = false) {
    for (int i = 0; i < 4; ++i)
        b.push_back(static_cast<uint8_t>(v >> (big ? 24 - 8 * i : 8 * i)));
}
void put16(std::vector<uint8_t>& b, uint16_t v) {
    b.push_back(static_cast<uint8_t>(v));
    b.push_back(static_cast<uint8_t>(v >> 8));
}

std::vector<uint8_t> file_header(const Header& h) {
    std::vector<uint8_t> b;
    if (h.kind == Header::pcapng) {
        put32(b, 0x0A0D0D0A);  // section header block
        put32(b, 28);
        put32(b, 0x1A2B3C4D);  // byte-order magic
        put16(b, 1);
        put16(b, 0);
        put32(b, 0xffffffff);  // section length: not given
        put32(b, 0xffffffff);
        put32(b, 28);
        put32(b, 1);  // interface description block
        put32(b, 20);
        put16(b, static_cast<uint16_t>(h.linktype));
        put16(b, 0);
        put32(b, 262144);  // snap length
        put32(b, 20);
        return b;
    }
    const bool big = h.kind == Header::pcap_be;
    put32(b, h.kind == Header::pcap_le_nsec ? 0xa1b23c4d : 0xa1b2c3d4, big);
    b.push_back(big ? 0 : 2);  // version 2.4
    b.push_back(big ? 2 : 0);
    b.push_back(big ? 0 : 4);
    b.push_back(big ? 4 : 0);
    put32(b, 0, big);       // time zone
    put32(b, 0, big);       // sigfigs
    put32(b, 262144, big);  // snap length
    put32(b, h.linktype, big);
    return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    std::vector<uint8_t> file = file_header(kHeaders[data[0] % kHeaderCount]);
    file.insert(file.end(), data + 1, data + size);
    pathscope::fuzz::read_capture_file(file.data(), file.size());
    return 0;
}
