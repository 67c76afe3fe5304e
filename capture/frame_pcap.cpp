#include "capture/frame_pcap.h"

#include <pcap/pcap.h>

#include <stdexcept>

#include "workload/frame_builder.h"
#include "engine/routes.h"

namespace pathscope::capture {

using namespace engine;

std::optional<UdpTarget> parse_udp_target(const std::string& text) {
    const auto close = text.find(']');
    if (text.empty() || text[0] != '[' || close == std::string::npos ||
        close + 2 >= text.size() || text[close + 1] != ':')
        return std::nullopt;
    UdpTarget t;
    const auto addr = parse_ip6(text.substr(1, close - 1));
    if (!addr) return std::nullopt;
    t.addr = *addr;
    std::string rest = text.substr(close + 2);
    std::string weight;
    if (const auto star = rest.find('*'); star != std::string::npos) {
        weight = rest.substr(star + 1);
        rest = rest.substr(0, star);
    }
    auto number = [](const std::string& s, unsigned long max) -> std::optional<unsigned long> {
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        const unsigned long v = std::stoul(s);
        if (v == 0 || v > max) return std::nullopt;
        return v;
    };
    const auto port = number(rest, 65535);
    if (!port) return std::nullopt;
    t.port = static_cast<uint16_t>(*port);
    if (!weight.empty()) {
        const auto w = number(weight, 1000);
        if (!w) return std::nullopt;
        t.weight = static_cast<unsigned>(*w);
    }
    return t;
}

size_t write_udp6_pcap(const std::string& path, const FramesSpec& spec) {
    if (spec.targets.empty()) throw std::runtime_error("no destination for the frames");
    if (spec.frame_size < kEthLen + kIp6Len + kUdpLen || spec.frame_size > 9000)
        throw std::runtime_error("a frame takes 62 to 9000 bytes, not " +
                                 std::to_string(spec.frame_size));
    // The destinations in turn, each as often as its weight says.
    std::vector<const UdpTarget*> turn;
    for (const auto& t : spec.targets)
        for (unsigned w = 0; w < t.weight; ++w) turn.push_back(&t);
    pcap_t* dead = pcap_open_dead(DLT_EN10MB, 65535);
    pcap_dumper_t* d = pcap_dump_open(dead, path.c_str());
    if (!d) {
        const std::string why = pcap_geterr(dead);
        pcap_close(dead);
        throw std::runtime_error(path + ": cannot write: " + why);
    }
    const uint32_t flows = std::max<uint32_t>(spec.flows, 1);
    for (uint32_t i = 0; i < spec.count; ++i) {
        const uint32_t flow = i % flows;
        const UdpTarget& t = *turn[i % turn.size()];
        FrameSpec s;
        s.dst_mac = spec.dst_mac;
        s.src_mac = {0x02, 0x00, 0x00, static_cast<uint8_t>(flow >> 16),
                     static_cast<uint8_t>(flow >> 8), static_cast<uint8_t>(flow)};
        s.src = spec.sources.addr;
        const uint32_t host = flow + 1;  // sources + 1, + 2, ...: never the subnet-router anycast
        s.src[12] = static_cast<uint8_t>(host >> 24), s.src[13] = static_cast<uint8_t>(host >> 16);
        s.src[14] = static_cast<uint8_t>(host >> 8), s.src[15] = static_cast<uint8_t>(host);
        s.src_port = static_cast<uint16_t>(1024 + flow % 60000);
        s.dst = t.addr;
        s.dst_port = t.port;
        s.payload = static_cast<uint16_t>(spec.frame_size - kEthLen - kIp6Len - kUdpLen);
        const auto frame = udp6_frame(s);
        pcap_pkthdr h{};
        h.ts.tv_sec = i / 1000000;
        h.ts.tv_usec = i % 1000000;
        h.caplen = h.len = static_cast<bpf_u_int32>(frame.size());
        pcap_dump(reinterpret_cast<u_char*>(d), &h, frame.data());
    }
    const bool ok = pcap_dump_flush(d) == 0;
    pcap_dump_close(d);
    pcap_close(dead);
    if (!ok) throw std::runtime_error(path + ": cannot write the frames");
    return spec.count;
}

}  // namespace pathscope::capture
