// The kernel's tracepoints as tracefs describes them: an event's id (what
// perf_event_open takes as a PERF_TYPE_TRACEPOINT config), where a field
// lies in its raw record, and the names its symbolic values print as
// (skb:kfree_skb's drop reasons as this kernel names them).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace pathscope::capture {

/// tracefs's folder (/sys/kernel/tracing), mounted there first when no
/// tracefs is mounted. Throws std::runtime_error saying what is missing.
std::string tracefs_root();

/// The id of tracepoint SYSTEM:NAME. Throws naming the event when this kernel lacks it.
uint64_t tracepoint_id(const std::string& system, const std::string& name);

struct TracepointField {
    uint32_t offset = 0, size = 0;  ///< in the raw record (PERF_SAMPLE_RAW's data)
};
/// Where FIELD lies in SYSTEM:NAME's records. Throws when it has no such field.
TracepointField tracepoint_field(const std::string& system, const std::string& name,
                                 const std::string& field);

/// The names a field's values print as (__print_symbolic in the event's
/// format): skb:kfree_skb's `reason` gives {2: "NOT_SPECIFIED", 3: "NO_SOCKET", ...}.
std::map<uint64_t, std::string> tracepoint_symbols(const std::string& system,
                                                   const std::string& name,
                                                   const std::string& field);

/// Same, from a format file's text (tests).
std::map<uint64_t, std::string> parse_print_symbolic(const std::string& format,
                                                     const std::string& field);

}  // namespace pathscope::capture
