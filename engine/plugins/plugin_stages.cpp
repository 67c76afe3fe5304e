#include "engine/plugins/plugin_stages.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "engine/context.h"
#include "engine/drop_names.h"
#include "engine/nodes/node.h"
#include "engine/packet_meta.h"
#include "engine/plugins/stage_slot.h"

namespace pathscope::engine {

// A plugin reads the first fields of PacketMeta through stage.h's
// struct pathscope_packet: they may only change with the API version.
static_assert(offsetof(pathscope_packet, rx_tsc) == offsetof(PacketMeta, rx_tsc));
static_assert(offsetof(pathscope_packet, nexthop) == offsetof(PacketMeta, nexthop));
static_assert(offsetof(pathscope_packet, rx_port) == offsetof(PacketMeta, rx_port));
static_assert(offsetof(pathscope_packet, tx_port) == offsetof(PacketMeta, tx_port));
static_assert(offsetof(pathscope_packet, tx_queue) == offsetof(PacketMeta, tx_queue));
static_assert(offsetof(pathscope_packet, l4_off) == offsetof(PacketMeta, l4_off));
static_assert(offsetof(pathscope_packet, l4_proto) == offsetof(PacketMeta, l4_proto));
static_assert(sizeof(pathscope_packet) <= sizeof(PacketMeta));
static_assert(PATHSCOPE_L3_OFFSET == kL3Offset);
static_assert(kMaxPluginNextStages + 2 <= EdgeCounters::kEdges);

namespace {

/// The drop reason a packet sent to an undeclared edge is counted under:
/// the stage's own (a run's reasons are unique, store rows are keyed by them).
std::string undeclared_edge(const std::string& stage) { return stage + "_undeclared_edge"; }

struct Registered {
    rte_node_t node;
    unsigned slot;
    std::vector<uint8_t> drop_slots;
    uint8_t bad_edge_slot;
};

/// Plugin stages registered in this process, by stage name: a node and a
/// slot each, kept for the process's life (DPDK cannot unregister a node).
std::map<std::string, Registered>& registered() {
    static std::map<std::string, Registered> r;
    return r;
}

const Registered& register_stage(const StageDeclaration& d) {
    auto& reg = registered();
    if (const auto it = reg.find(d.name); it != reg.end()) {
        // Another plugin (another build of it) may declare more reasons.
        Registered& r = it->second;
        r.drop_slots.clear();
        for (const StageDrop& x : d.drops)
            r.drop_slots.push_back(static_cast<uint8_t>(claim_drop_slot(d.name, x.name)));
        return r;
    }
    if (rte_node_from_name(d.name.c_str()) != RTE_NODE_ID_INVALID)
        throw std::runtime_error("plugin " + d.path + ": its stage name '" + d.name +
                                 "' is a built-in stage's: give the stage a name of its own");
    if (reg.size() == kMaxPluginStages)
        throw std::runtime_error("plugin " + d.path + ": stage " + d.name + " would be the " +
                                 std::to_string(kMaxPluginStages + 1) +
                                 "th plugin stage of this process, which takes " +
                                 std::to_string(kMaxPluginStages) + " (kMaxPluginStages)");
    Registered r;
    r.slot = static_cast<unsigned>(reg.size());
    for (const StageDrop& x : d.drops)
        r.drop_slots.push_back(static_cast<uint8_t>(claim_drop_slot(d.name, x.name)));
    r.bad_edge_slot = static_cast<uint8_t>(claim_drop_slot(d.name, undeclared_edge(d.name)));
    // Its real edges are set when an engine splices it (start()).
    r.node = register_node(d.name.c_str(), stage_slot_process(r.slot), {kDrop});
    return reg.emplace(d.name, std::move(r)).first->second;
}

/// A node's next edges by name, as the graph library holds them now.
std::vector<std::string> edges_of(rte_node_t id) {
    const rte_node_t bytes = rte_node_edge_get(id, nullptr);
    if (bytes == RTE_NODE_ID_INVALID || bytes == 0) return {};
    std::vector<char*> names(bytes / sizeof(char*));
    rte_node_edge_get(id, names.data());
    return {names.begin(), names.end()};
}

void set_edges(rte_node_t id, rte_edge_t from, const std::vector<std::string>& to) {
    std::vector<const char*> names;
    for (const auto& n : to) names.push_back(n.c_str());
    const rte_edge_t n = static_cast<rte_edge_t>(names.size());
    if (rte_node_edge_update(id, from, const_cast<const char**>(names.data()), n) != n)
        throw std::runtime_error(std::string("cannot set the edges of graph node ") +
                                 rte_node_id_to_name(id) + ": " + rte_strerror(rte_errno));
}

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

}  // namespace

std::string PluginStages::who(const Stage& st) const {
    return "plugin " + st.cfg.plugin + " (stage " + st.decl->name +
           (st.cfg.origin.empty() ? "" : ", from " + st.cfg.origin) + ")";
}

PluginStages::PluginStages(const std::vector<StageConfig>& stages) {
    for (const StageConfig& c : stages) {
        Stage st;
        st.cfg = c;
        st.decl = &load_plugin(c.plugin);
        for (const Stage& o : stages_)
            if (o.decl->name == st.decl->name)
                throw std::runtime_error(who(st) + ": stage " + st.decl->name +
                                         " is in the path twice (from " + o.cfg.plugin +
                                         " too): a stage runs once an engine");
        configure(st);
        check_drop_names(st);
        const Registered& r = register_stage(*st.decl);
        st.node = r.node;
        st.slot = r.slot;
        stages_.push_back(std::move(st));
    }
}

PluginStages::~PluginStages() {
    for (auto it = spliced_.rbegin(); it != spliced_.rend(); ++it) {
        try {
            set_edges(it->node, it->edge, {it->to});
        } catch (const std::exception&) {
            // The engine is going; a later one reports the path it cannot build.
        }
    }
    for (Stage& st : stages_) {
        StageSlot& s = stage_slot(st.slot);
        s.instance = nullptr;
        if (st.created && st.decl->raw->destroy) st.decl->raw->destroy(st.instance);
    }
}

void PluginStages::check_drop_names(const Stage& st) const {
    for (const StageDrop& d : st.decl->drops) {
        for (unsigned r = 0; r < kDropReasonCount; ++r)
            if (kDropReasonNames[r] == d.name)
                throw std::runtime_error(who(st) + ": its drop reason '" + d.name +
                                         "' is a built-in reason's (" +
                                         std::string(kDropReasonStage[r]) +
                                         "'s): a run's drop reasons are named once; rename it");
        for (const Stage& o : stages_)
            for (const StageDrop& x : o.decl->drops)
                if (x.name == d.name)
                    throw std::runtime_error(who(st) + ": its drop reason '" + d.name +
                                             "' is stage " + o.decl->name +
                                             "'s too: a run's drop reasons are named once");
        if (d.name.size() > std::string("_undeclared_edge").size() &&
            d.name.rfind("_undeclared_edge") == d.name.size() - std::string("_undeclared_edge").size())
            throw std::runtime_error(who(st) + ": its drop reason '" + d.name +
                                     "': names ending in _undeclared_edge are pathscope's");
    }
}

void PluginStages::configure(Stage& st) const {
    const StageDeclaration& d = *st.decl;
    std::vector<std::string> takes;
    for (const auto& k : d.config) takes.push_back(k.name);
    for (const StageSetting& s : st.cfg.config)
        if (std::find(takes.begin(), takes.end(), s.key) == takes.end())
            throw std::runtime_error(who(st) + ": config key '" + s.key.substr(0, 40) +
                                     "' is not one the stage takes (" +
                                     (takes.empty() ? "it takes none" : "it takes " + join(takes)) +
                                     ")");
    for (const StageConfigKey& k : d.config) {
        const auto s = std::find_if(st.cfg.config.begin(), st.cfg.config.end(),
                                    [&](const StageSetting& x) { return x.key == k.name; });
        const bool given = s != st.cfg.config.end();
        const std::string range = std::to_string(k.min) + " to " + std::to_string(k.max);
        if (given && s->is_text != k.is_text)
            throw std::runtime_error(
                who(st) + ": config '" + k.name + "' takes " +
                (k.is_text ? "text (a string, or an array of strings)" : "an integer, " + range) +
                ", not " + (s->is_text ? "text" : "a number") +
                (k.help.empty() ? "" : " (" + k.help + ")"));
        const int64_t v = k.is_text ? static_cast<int64_t>(given ? s->text.size() : k.default_text.size())
                                    : (given ? s->number : k.default_int);
        if (v < k.min || v > k.max)
            throw std::runtime_error(
                who(st) + ": config '" + k.name + "' " +
                (k.is_text ? "is " + std::to_string(v) + " bytes long; it takes " + range + " bytes"
                           : "= " + std::to_string(v) + " is outside " + range) +
                (k.help.empty() ? "" : " (" + k.help + ")"));
    }
}

bool PluginStages::known_stage(const std::string& name, const Stage* before) const {
    for (const char* n : register_all_nodes())
        if (name == n) return true;
    for (const Stage& st : stages_) {
        if (&st == before) break;
        if (st.decl->name == name) return true;
    }
    return false;
}

std::string PluginStages::known_stages(const Stage* before) const {
    std::vector<std::string> names(register_all_nodes().begin(), register_all_nodes().end());
    for (const Stage& st : stages_) {
        if (&st == before) break;
        names.push_back(st.decl->name);
    }
    return join(names);
}

void PluginStages::start(const EngineContext& ctx, const std::vector<rte_node_t>& rx_nodes) {
    for (Stage& st : stages_) {
        splice(st, rx_nodes);
        const StageDeclaration& d = *st.decl;
        // Every declared key with its value (the scenario's or the default).
        st.texts.clear();
        st.texts.reserve(d.config.size());  // values[].text points into these
        st.values.clear();
        for (const StageConfigKey& k : d.config) {
            const auto s = std::find_if(st.cfg.config.begin(), st.cfg.config.end(),
                                        [&](const StageSetting& x) { return x.key == k.name; });
            const bool given = s != st.cfg.config.end();
            pathscope_config_value v{k.name.c_str(), 0, ""};
            if (k.is_text) {
                st.texts.push_back(given ? s->text : k.default_text);
                v.text = st.texts.back().c_str();
            } else {
                v.int_value = given ? s->number : k.default_int;
            }
            st.values.push_back(v);
        }
        const pathscope_config config{st.values.data(), static_cast<uint32_t>(st.values.size())};
        // The stage may keep the env (stage.h): it lives as long as the instance.
        st.env = {sizeof(pathscope_stage_env),
                  ctx.worker_count,
                  ctx.tsc_hz,
                  static_cast<int32_t>(rte_socket_id()),
                  g_packet_meta_offset,
                  d.name.c_str(),
                  st.cfg.plugin.c_str(),
                  st.cfg.base_dir.c_str()};
        if (d.raw->create) {
            char error[512] = "";
            st.instance = d.raw->create(&st.env, &config, error, sizeof error);
            error[sizeof error - 1] = '\0';
            if (!st.instance)
                throw std::runtime_error(who(st) + ": the stage could not be created: " +
                                         (error[0] ? error : "its create() returned NULL and said nothing"));
        }
        st.created = true;
        const Registered& r = registered().at(d.name);
        StageSlot& s = stage_slot(st.slot);
        s.instance = st.instance;
        s.classify = d.raw->classify;
        s.burst = d.raw->burst;
        s.nb_next = static_cast<uint16_t>(1 + d.next_stages.size());
        s.drop_edge = s.nb_next;
        s.nb_drops = static_cast<uint16_t>(d.drops.size());
        std::copy(r.drop_slots.begin(), r.drop_slots.end(), s.drop_slot);
        s.bad_edge_slot = r.bad_edge_slot;
        s.bad_edge.store(0, std::memory_order_relaxed);
    }
}

void PluginStages::splice(Stage& st, const std::vector<rte_node_t>& rx_nodes) {
    const StageConfig& c = st.cfg;
    // `after` may name a built-in stage or one given earlier (already in the path).
    if (!known_stage(c.after, &st))
        throw std::runtime_error(who(st) + ": after = '" + c.after.substr(0, 40) +
                                 "' names no stage it can follow (the stages: " + known_stages(&st) + ")");
    if (c.after == kDrop)
        throw std::runtime_error(who(st) + ": after = 'drop': drop has no edge to splice a stage into");
    const rte_node_t after = rte_node_from_name(c.after.c_str());
    const bool after_plugin = std::any_of(stages_.begin(), stages_.end(),
                                          [&](const Stage& o) { return o.node == after; });
    // The edges as they were before this engine spliced anything into them.
    std::vector<std::string> edges = edges_of(after);
    for (const SplicedEdge& e : spliced_)
        if (e.node == after) edges[e.edge] = e.to;
    if (edges.empty())
        throw std::runtime_error(who(st) + ": after = '" + c.after + "': that stage has no edges");
    rte_edge_t e = 0;
    if (!c.before.empty()) {
        const auto it = std::find(edges.begin(), edges.end(), c.before);
        if (it == edges.end())
            throw std::runtime_error(who(st) + ": before = '" + c.before.substr(0, 40) + "': " +
                                     c.after + "'s edges go to " + join(edges) +
                                     ", and the stage is spliced into one of those");
        e = static_cast<rte_edge_t>(it - edges.begin());
    }
    if (edges[e] == kDrop)
        throw std::runtime_error(who(st) + ": " + c.after +
                                 "'s edge to drop carries only dropped packets: splice the stage "
                                 "into another (before = ...)");
    // Stages spliced into the same edge before this one keep their places:
    // this one goes behind the last of them, so stages run in the order given.
    rte_node_t from = after;
    rte_edge_t from_edge = e;
    for (auto t = tail_.find({from, from_edge}); t != tail_.end(); t = tail_.find({from, from_edge}))
        from = t->second, from_edge = 0;
    // The stage's edges: on to where `from`'s edge went, its next stages, drop.
    std::vector<std::string> out{from == after ? edges[e] : edges_of(from).at(from_edge)};
    for (const std::string& n : st.decl->next_stages) {
        if (!known_stage(n))
            throw std::runtime_error(who(st) + ": it declares next stage '" + n.substr(0, 40) +
                                     "', which is no stage here (the stages: " + known_stages() + ")");
        out.push_back(n);
    }
    out.push_back(kDrop);
    set_edges(st.node, 0, out);
    rte_node_edge_shrink(st.node, static_cast<rte_edge_t>(out.size()));
    std::vector<rte_node_t> rewired{from};
    if (from == after && c.after == kEthRx)  // each receive queue's eth_rx instance too
        for (const rte_node_t id : rx_nodes)
            if (id != after) rewired.push_back(id);
    for (const rte_node_t id : rewired) {
        if (from == after && !after_plugin) spliced_.push_back({id, from_edge, edges[e]});
        set_edges(id, from_edge, {st.decl->name});
    }
    tail_[{from, from_edge}] = st.node;
    st.follows = from;
}

void PluginStages::place(std::vector<rte_node_t>& order) const {
    for (const Stage& st : stages_) {
        auto at = std::find(order.begin(), order.end(), st.follows);
        if (st.cfg.after == kEthRx && st.follows == rte_node_from_name(kEthRx)) {
            // Behind every eth_rx instance: they come first in the order.
            at = std::find_if(order.begin(), order.end(), [](rte_node_t id) {
                return std::string_view(rte_node_id_to_name(id)).rfind(kEthRx, 0) != 0;
            });
            order.insert(at, st.node);
            continue;
        }
        order.insert(at == order.end() ? at : std::next(at), st.node);
    }
}

std::string PluginStages::fault() const {
    for (const Stage& st : stages_) {
        const uint32_t bad = stage_slot(st.slot).bad_edge.load(std::memory_order_relaxed);
        if (!st.created || bad == 0) continue;
        const StageDeclaration& d = *st.decl;
        std::string declared = "0 (PATHSCOPE_EDGE_NEXT)";
        for (size_t i = 0; i < d.next_stages.size(); ++i)
            declared += ", " + std::to_string(i + 1) + " (" + d.next_stages[i] + ")";
        declared += d.drops.empty() ? ", and no drop reason"
                                    : ", and PATHSCOPE_EDGE_DROP(0) to PATHSCOPE_EDGE_DROP(" +
                                          std::to_string(d.drops.size() - 1) + ")";
        return who(st) + ": its process function returned edge " + std::to_string(bad - 1) +
               " for a packet, which the stage did not declare (it declares " + declared + ")";
    }
    return "";
}

}  // namespace pathscope::engine
