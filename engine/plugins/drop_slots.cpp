#include <mutex>
#include <stdexcept>
#include <vector>

#include "engine/drop_names.h"

namespace pathscope::engine {

namespace {

struct Claimed {
    std::string stage, name;
};

// Written by the control thread when a plugin stage is registered, read when
// snapshots are turned into rows: never on a worker.
std::mutex g_mu;
std::vector<Claimed> g_claimed;  ///< slot kDropReasonCount + i

}  // namespace

std::string drop_slot_name(unsigned slot) {
    if (slot < kDropReasonCount) return std::string(kDropReasonNames[slot]);
    const std::lock_guard lock(g_mu);
    const unsigned i = slot - kDropReasonCount;
    return i < g_claimed.size() ? g_claimed[i].name : "";
}

std::string drop_slot_stage(unsigned slot) {
    if (slot < kDropReasonCount) return std::string(kDropReasonStage[slot]);
    const std::lock_guard lock(g_mu);
    const unsigned i = slot - kDropReasonCount;
    return i < g_claimed.size() ? g_claimed[i].stage : "";
}

unsigned claim_drop_slot(const std::string& stage, const std::string& name) {
    const std::lock_guard lock(g_mu);
    for (unsigned i = 0; i < g_claimed.size(); ++i)
        if (g_claimed[i].stage == stage && g_claimed[i].name == name) return kDropReasonCount + i;
    if (g_claimed.size() == kPluginDropSlots)
        throw std::runtime_error(
            "stage " + stage + ": no slot left for drop reason '" + name + "': this process has " +
            "given all " + std::to_string(kPluginDropSlots) +
            " plugin drop slots (kPluginDropSlots in engine/drop_reason.h) to other stages");
    g_claimed.push_back({stage, name});
    return kDropReasonCount + static_cast<unsigned>(g_claimed.size() - 1);
}

}  // namespace pathscope::engine
