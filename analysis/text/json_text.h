// JSON out of nlohmann::json, one way for every writer (reports, speedscope).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/text/safe_text.h"

namespace pathscope::analysis {

/// The document, indented by one space a level. Text that is not UTF-8 (a
/// label, a path, a symbol from a damaged binary) becomes U+FFFD rather than
/// an invalid file; every control character is escaped (C0 by nlohmann, DEL,
/// C1 and bidi overrides by json_controls_escaped); numbers that are not
/// finite become null (nlohmann's own rule).
inline std::string dump_json(const nlohmann::ordered_json& doc) {
    return json_controls_escaped(
               doc.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)) +
           "\n";
}

}  // namespace pathscope::analysis
