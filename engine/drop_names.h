// The name and owning stage of every drop slot: the built-in reasons from
// drop_reason.h's table, and the reasons stage plugins declare at run time
// (slots from kDropReasonCount on), claimed once per process and kept, so
// that a snapshot names its drops however many engines came and went.
#pragma once

#include <string>
#include <string_view>

#include "engine/drop_reason.h"

namespace pathscope::engine {

/// The reason's name ("ip6_no_route", "acl_deny"); "" for a slot no plugin claimed.
std::string drop_slot_name(unsigned slot);
/// The stage that drops packets for it ("ip6_lookup", "acl6"); "" when unclaimed.
std::string drop_slot_stage(unsigned slot);

/// The slot of plugin stage `stage`'s reason `name`: the one it had before
/// in this process, or a new one. Throws std::runtime_error when all
/// kPluginDropSlots are taken.
unsigned claim_drop_slot(const std::string& stage, const std::string& name);

}  // namespace pathscope::engine
