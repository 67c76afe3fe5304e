// `pathscope import pcap`: a capture file's summary (packets, flows,
// protocols) and what the engine's parser makes of every packet in it (drop
// reasons included), stored as a run of kind "pcap-import".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/queries.h"
#include "engine/config.h"

namespace pathscope::engine {
class Engine;
}

namespace pathscope::capture {

/// Imports `file` into the store at `db_path`. Ethernet captures go in as
/// they are; raw IPv6, BSD loopback and Linux cooked captures get an Ethernet
/// header first. Throws std::runtime_error naming the file (and the byte
/// offset, for a damaged record) when it cannot be imported.
db::RunData import_pcap(const std::string& file, const std::string& db_path,
                        const std::string& label = "");

/// The engine import_pcap parses a capture with: a promiscuous ring port
/// "capture" and a default route out of a null port.
engine::EngineConfig import_engine_config();

/// The import summary's facts ("pcap.packets", "pcap.protocol.udp", ...).
using CaptureFacts = std::vector<std::pair<std::string, std::string>>;

/// import_pcap's reading of `file`, without the store: every packet, as the
/// import gives it to the engine, goes into `engine` (one made from
/// import_engine_config(), which may be reused for many files); returns the
/// summary. Throws as import_pcap does.
CaptureFacts read_capture(const std::string& file, engine::Engine& engine);

/// A packet of a capture whose link type is `dlt`, as the Ethernet frame the
/// engine is given: raw IPv6, loopback and Linux cooked captures get an
/// Ethernet header. Empty for a link type pathscope does not parse, or a
/// packet shorter than its link-layer header.
std::vector<uint8_t> ethernet_frame(int dlt, const uint8_t* data, uint32_t cap_len);

/// What the import summary counts an Ethernet frame as: "udp", "tcp",
/// "icmpv6", "ipv6-proto-N", "ipv6-fragment", "ipv6-ext-truncated", "ipv4",
/// ... (the upper layer found by the engine's extension-header walk).
std::string frame_protocol(const uint8_t* frame, size_t n);

}  // namespace pathscope::capture
