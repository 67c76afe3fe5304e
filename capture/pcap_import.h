// `pathscope import pcap`: a capture file's summary (packets, flows,
// protocols) and what the engine's parser makes of every packet in it (drop
// reasons included), stored as a run of kind "pcap-import".
#pragma once

#include <string>

#include "db/queries.h"

namespace pathscope::capture {

/// Imports `file` into the store at `db_path`. Ethernet captures go in as
/// they are; raw IPv6, BSD loopback and Linux cooked captures get an Ethernet
/// header first. Throws std::runtime_error naming the file (and the byte
/// offset, for a damaged record) when it cannot be imported.
db::RunData import_pcap(const std::string& file, const std::string& db_path,
                        const std::string& label = "");

}  // namespace pathscope::capture
