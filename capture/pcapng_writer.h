// Sampled packet traces written as pcapng, each packet with a comment that
// gives its cycles at every stage it went through (tshark shows it as
// frame.comment, Wireshark in the packet details).
#pragma once

#include <string>

#include "db/queries.h"

namespace pathscope::capture {

/// The comment written for one trace: "pathscope run 3 trial 0 trace 17:
/// eth_rx 46.9 + eth_input 7.3 + ... = 130.2 cycles".
std::string trace_comment(const db::RunInfo& run, const db::PacketTraceRow& t);

/// Writes every trace of `run` to `path`; returns how many. Throws
/// std::runtime_error naming the file when it cannot be written.
size_t write_pcapng(const db::RunData& run, const std::string& path);

}  // namespace pathscope::capture
