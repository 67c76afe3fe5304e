// Reading pcap and pcapng files with libpcap, with errors that name the file
// and the byte offset where it went wrong.
#pragma once

#include <sys/time.h>

#include <cstdint>
#include <string>

typedef struct pcap pcap_t;

namespace pathscope::capture {

class PcapReader {
  public:
    struct Packet {
        const uint8_t* data = nullptr;
        uint32_t cap_len = 0;   ///< bytes in the file
        uint32_t wire_len = 0;  ///< bytes on the wire
        timeval ts{};
        uint64_t offset = 0;  ///< where its record starts in the file
    };

    /// Throws std::runtime_error "PATH: cannot read capture: ...".
    explicit PcapReader(const std::string& path);
    ~PcapReader();
    PcapReader(const PcapReader&) = delete;
    PcapReader& operator=(const PcapReader&) = delete;

    int link_type() const { return link_type_; }
    /// libpcap's name for the link type ("EN10MB", "LINUX_SLL", ...).
    std::string link_name() const;
    /// The next packet, or false at the end of the file. Throws
    /// std::runtime_error "PATH: damaged at byte offset N (packet K): ..." on a bad record.
    bool next(Packet& p);
    uint64_t packets() const { return packets_; }

  private:
    std::string path_;
    pcap_t* pcap_ = nullptr;
    int link_type_ = 0;
    uint64_t packets_ = 0;
};

}  // namespace pathscope::capture
