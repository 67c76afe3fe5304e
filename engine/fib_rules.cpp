#include "engine/fib_rules.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "engine/routes.h"

namespace pathscope::engine {

bool in_prefix(const uint8_t* a, const uint8_t* p, uint8_t len) {
    const unsigned bytes = len / 8, bits = len % 8;
    if (memcmp(a, p, bytes) != 0) return false;
    if (!bits) return true;
    const uint8_t mask = static_cast<uint8_t>(0xff00u >> bits);
    return ((a[bytes] ^ p[bytes]) & mask) == 0;
}

FibShape fib_shape(uint32_t table, const std::vector<Prefix6>& routes) {
    FibShape s;
    s.table = table;
    s.prefixes = static_cast<uint32_t>(routes.size());
    // The trie (lib/fib/trie.c) resolves the first 24 bits in tbl24 and each
    // further byte in a tbl8 group; a route of length L needs a group under
    // each of its prefixes of 24, 32, ... bits shorter than L, shared with
    // every route under the same prefix.
    std::set<std::pair<uint8_t, std::array<uint8_t, 16>>> groups;
    for (const auto& r : routes) {
        ++s.per_length[r.len];
        for (uint8_t depth = 24; depth < r.len; depth = static_cast<uint8_t>(depth + 8)) {
            std::array<uint8_t, 16> key{};
            memcpy(key.data(), r.addr.data(), depth / 8);
            groups.insert({depth, key});
        }
    }
    s.tbl8_groups = groups.size();
    return s;
}

FibRules::~FibRules() {
    for (auto& [id, fib] : tables_) rte_fib6_free(fib);
}

void FibRules::build(const std::string& name, const std::map<uint32_t, TableRoutes>& tables,
                     uint32_t max_nexthop) {
    for (const auto& [id, content] : tables) {
        std::vector<Prefix6> prefixes;
        prefixes.reserve(content.routes.size());
        for (const auto& r : content.routes) prefixes.push_back(r.first);
        rte_fib6_conf conf{};
        conf.type = RTE_FIB6_TRIE;
        conf.default_nh = kNexthopNone;
        conf.max_routes = static_cast<int>(content.routes.size() + 4096);
        // 2-byte next hops halve the 16M-entry tbl24 (64 MB -> 32 MB) of the
        // small tables; one bit of the entry marks an extended one.
        conf.trie.nh_sz = max_nexthop < (1u << 15) && id != kTableMain ? RTE_FIB6_TRIE_2B
                                                                       : RTE_FIB6_TRIE_4B;
        // The trie reserves groups per route as it adds it (a group for each
        // byte past the 24th, before it knows which are shared), so size for
        // that bound rather than for the groups finally used.
        uint64_t reserve = 0;
        for (const auto& r : content.routes) reserve += r.first.len > 24 ? (r.first.len + 7) / 8 - 3 : 0;
        conf.trie.num_tbl8 = static_cast<uint32_t>(std::max<uint64_t>(1 << 12, reserve + 1024));
        const std::string fib_name = name + "_" + std::to_string(id);
        rte_fib6* fib = rte_fib6_create(fib_name.c_str(), SOCKET_ID_ANY, &conf);
        if (!fib)
            throw std::runtime_error("cannot create routing table " + std::to_string(id) +
                                     " for " + std::to_string(content.routes.size()) +
                                     " routes: " + rte_strerror(rte_errno) +
                                     " (give the EAL more memory with -m)");
        tables_[id] = fib;
        for (const auto& [p, nh] : content.routes) {
            const int rc = rte_fib6_add(fib, p.addr.data(), p.len, nh);
            if (rc < 0)
                throw std::runtime_error("cannot add route " + format_prefix6(p) + " to table " +
                                         std::to_string(id) + ": " + rte_strerror(-rc));
        }
        prefixes_[id] = std::move(prefixes);
    }
    main_ = table(kTableMain);
    if (!main_) throw std::logic_error("FibRules::build: no main table");
}

const std::vector<FibShape>& FibRules::shapes() const {
    if (shapes_.empty())
        for (const auto& [id, prefixes] : prefixes_) shapes_.push_back(fib_shape(id, prefixes));
    return shapes_;
}

rte_fib6* FibRules::table(uint32_t id) const {
    const auto it = tables_.find(id);
    return it == tables_.end() ? nullptr : it->second;
}

void FibRules::set_rules(const std::vector<Rule>& custom, bool fast_path) {
    rules_.clear();
    for (const uint32_t id : {kTableLocal, kTableMain, kTableDefault}) {
        Rule r;
        r.priority = id == kTableLocal ? 0 : id == kTableMain ? 32766 : 32767;
        r.table_id = id;
        rules_.push_back(r);
    }
    for (Rule r : custom) {
        r.custom = true;
        rules_.push_back(r);
    }
    // Stable: among equal priorities the default rule, then the order given
    // (Linux appends a new rule after those of its priority).
    std::stable_sort(rules_.begin(), rules_.end(),
                     [](const Rule& a, const Rule& b) { return a.priority < b.priority; });
    for (Rule& r : rules_) r.table = r.action == RuleAction::table ? table(r.table_id) : nullptr;
    custom_ = !custom.empty();
    // Without custom rules Linux looks up local then main only, even when the
    // default table has routes; here a default table with routes keeps the
    // rules walk, so that fast path on and off always give the same answer.
    direct_ = fast_path && !custom_ && !table(kTableDefault);
}

uint32_t FibRules::walk(const uint8_t* dst, const uint8_t* src, uint16_t iif,
                        RuleTally& t) const {
    ++t.routes;
    ++t.entries;
    for (const Rule& r : rules_) {
        ++t.evaluated;
        if (r.iif != kIifAny && r.iif != iif) continue;
        if (r.from_len && !in_prefix(src, r.from, r.from_len)) continue;
        if (r.to_len && !in_prefix(dst, r.to, r.to_len)) continue;
        switch (r.action) {
            case RuleAction::table: {
                if (!r.table) continue;  // Linux: -EAGAIN, the next rule
                ++t.lookups;
                const uint32_t nh = lookup_in(r.table, dst);
                if (nh != kNexthopNone) return nh;
                continue;  // a miss goes on to the next rule
            }
            case RuleAction::unreachable: return kNexthopUnreachable;
            case RuleAction::prohibit: return kNexthopProhibit;
            case RuleAction::blackhole: return kNexthopBlackhole;
        }
    }
    return kNexthopNone;
}

}  // namespace pathscope::engine
