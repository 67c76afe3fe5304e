// Test support: one fact of a stored run, by key ("" when it has none).
#pragma once

#include <string>

#include "db/records.h"

namespace pathscope::test {

inline std::string fact(const db::RunData& run, const std::string& key) {
    for (const auto& [k, v] : run.rows.facts)
        if (k == key) return v;
    return "";
}

}  // namespace pathscope::test
