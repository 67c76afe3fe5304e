// Policy routing as Linux does it (net/ipv6/fib6_rules.c): several routing
// tables, each an rte_fib6, with Linux's ids (local 255, main 254, default
// 253, any other for a custom table), and a rule list tried lowest priority
// number first. A rule matches on source prefix, destination prefix and input
// port; it then looks a table up (a miss there goes on to the next rule) or
// ends the lookup as unreachable, prohibit or blackhole, each a named drop.
//
// The fast path (engine.fib_rules_fast_path = on) skips the rules layer while
// only Linux's default rules exist: the lookup is then one lookup in the main
// table, which also holds a copy of every local-table route. Linux in that
// case looks local up, then main (fib6_lookup without custom rules); our copy
// gives the same answer in one lookup, because a local route is always a /128
// of our own address and the local table wins over main for it in both.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/counters.h"
#include "engine/dpdk.h"

namespace pathscope::engine {

// Next hop indices below kNexthopFirstRoute are outcomes, not next hops:
// no route (the FIB's default), local delivery, the rule actions that end a
// lookup, and translation (engine.ila late or nptv6: the route of a
// locator or external prefix, as a lightweight tunnel).
inline constexpr uint32_t kNexthopNone = 0;
inline constexpr uint32_t kNexthopLocal = 1;
inline constexpr uint32_t kNexthopUnreachable = 2;
inline constexpr uint32_t kNexthopProhibit = 3;
inline constexpr uint32_t kNexthopBlackhole = 4;
inline constexpr uint32_t kNexthopTranslate = 5;
inline constexpr uint32_t kNexthopFirstRoute = 6;

/// Input "port" of a datagram we send (Linux's loopback: `iif lo`).
inline constexpr uint16_t kIifLocal = 0xfffe;
/// A rule without an input-port selector.
inline constexpr uint16_t kIifAny = 0xffff;

/// What one or more lookups did, summed by the caller and added to the
/// engine's path events once (a burst's totals, not one add per packet).
struct RuleTally {
    uint64_t entries = 0;    ///< lookups that entered the rules layer
    uint64_t evaluated = 0;  ///< rules tested
    uint64_t lookups = 0;    ///< table lookups
    uint64_t routes = 0;     ///< routes resolved (the per-lookup figures' denominator)
    void flush(EventCounters& events) {
        if (routes) events.add(PathEvent::routes_resolved, routes);
        if (lookups) events.add(PathEvent::fib_lookups, lookups);
        if (entries) events.add(PathEvent::rule_layer_entries, entries);
        if (evaluated) events.add(PathEvent::rules_evaluated, evaluated);
        *this = RuleTally{};
    }
};

/// One table's contents while the engine builds it: prefix -> next hop index.
struct TableRoutes {
    std::vector<std::pair<Prefix6, uint32_t>> routes;
};

/// Counted while loading a table (rte_fib6 cannot tell them afterwards).
struct FibShape {
    uint32_t table = 0;
    uint32_t prefixes = 0;
    uint32_t per_length[129] = {};
    /// tbl8 groups of the DIR-24-8-8... trie: one per distinct prefix of 24,
    /// 32, ... 120 bits that some longer route extends.
    uint64_t tbl8_groups = 0;
};

class FibRules {
  public:
    FibRules() = default;
    ~FibRules();
    FibRules(const FibRules&) = delete;
    FibRules& operator=(const FibRules&) = delete;

    /// A rule with its selectors resolved (iif a port id, kIifLocal or kIifAny).
    struct Rule {
        uint32_t priority = 0;
        uint8_t from_len = 0, to_len = 0;  ///< 0: any
        uint8_t from[16] = {}, to[16] = {};
        uint16_t iif = kIifAny;
        RuleAction action = RuleAction::table;
        uint32_t table_id = kTableMain;
        rte_fib6* table = nullptr;  ///< nullptr: no such table (Linux: go on to the next rule)
        bool custom = false;
    };

    /// Creates one rte_fib6 per table and fills it. `name` makes the DPDK
    /// object names unique. Throws std::runtime_error on failure.
    void build(const std::string& name, const std::map<uint32_t, TableRoutes>& tables,
               uint32_t max_nexthop);
    /// Adds Linux's default rules and `custom` ones (sorted by priority, a
    /// default rule first among equals), and picks the direct lookup when
    /// `fast_path` is on and only default rules exist.
    void set_rules(const std::vector<Rule>& custom, bool fast_path);

    /// True when a lookup is one lookup in the main table (fast path).
    bool direct() const { return direct_; }
    rte_fib6* main() const { return main_; }
    rte_fib6* table(uint32_t id) const;
    const std::vector<Rule>& rules() const { return rules_; }
    /// Each table's shape, counted when first asked for (only the route
    /// micro-benchmark asks: counting a 40,000-route table's groups takes
    /// about a tenth of a second, which every trial paid).
    const std::vector<FibShape>& shapes() const;
    bool has_custom_rules() const { return custom_; }

    /// The route for `dst` from `src` (16 zero bytes when not chosen yet)
    /// arriving on `iif`: a next hop index, or kNexthopNone / an outcome
    /// below kNexthopFirstRoute. Counts what it did in `t`.
    uint32_t lookup(const uint8_t* dst, const uint8_t* src, uint16_t iif, RuleTally& t) const {
        if (likely(direct_)) {
            ++t.routes;
            ++t.lookups;
            return lookup_in(main_, dst);
        }
        return walk(dst, src, iif, t);
    }
    /// The rules layer: tries the rules in order.
    uint32_t walk(const uint8_t* dst, const uint8_t* src, uint16_t iif, RuleTally& t) const;

    static uint32_t lookup_in(rte_fib6* fib, const uint8_t* dst) {
        uint8_t key[1][RTE_FIB6_IPV6_ADDR_SIZE];
        memcpy(key[0], dst, 16);
        uint64_t nh = 0;
        rte_fib6_lookup_bulk(fib, key, &nh, 1);
        return static_cast<uint32_t>(nh);
    }

  private:
    std::map<uint32_t, rte_fib6*> tables_;
    rte_fib6* main_ = nullptr;
    std::vector<Rule> rules_;
    std::map<uint32_t, std::vector<Prefix6>> prefixes_;  ///< what shapes() counts
    mutable std::vector<FibShape> shapes_;
    bool direct_ = false;
    bool custom_ = false;
};

/// Whether `a` lies in prefix (`p`, `len`): compares whole bytes, then the
/// remaining bits.
bool in_prefix(const uint8_t* a, const uint8_t* p, uint8_t len);

/// The shape of a table of `routes` (prefixes per length, tbl8 groups).
FibShape fib_shape(uint32_t table, const std::vector<Prefix6>& routes);

/// The drop reason of an outcome below kNexthopFirstRoute (none and local:
/// ip6_no_route, for a datagram sent to our own address).
inline DropReason outcome_drop(uint32_t nh) {
    switch (nh) {
        case kNexthopUnreachable: return DropReason::ip6_rule_unreachable;
        case kNexthopProhibit: return DropReason::ip6_rule_prohibit;
        case kNexthopBlackhole: return DropReason::ip6_rule_blackhole;
        default: return DropReason::ip6_no_route;
    }
}

}  // namespace pathscope::engine
