// Work the engine does besides moving packets, counted per trial so that a
// review can see it next to the cycles: policy-rule evaluations, early-demux
// hits, address translations, request/response transactions. One table (like
// drop_reason.h): the enum, the names and the counters come from this list.
// Columns: event, what one count means.
#pragma once

#include <cstdint>
#include <string_view>

namespace pathscope::engine {

#define PATHSCOPE_PATH_EVENTS(X)                                                              \
    X(routes_resolved, "routes found for a packet or datagram, however many tables it took")  \
    X(fib_lookups, "lookups in a FIB table (a lookup the rules send to two tables counts 2)") \
    X(rule_layer_entries, "route lookups that entered the policy-rules layer")                \
    X(rules_evaluated, "policy rules tested against a lookup")                                \
    X(demux_hits, "early demux found a connected socket (the route lookup was skipped)")      \
    X(demux_misses, "early demux found no connected socket")                                  \
    X(ila_translations, "ILA identifier-locator translations (receive and send)")             \
    X(nptv6_translations, "NPTv6 prefix translations (receive and send)")                     \
    X(rr_transactions, "request/response transactions completed (a response received)")       \
    X(rr_timeouts, "requests sent again after their response did not come in time")           \
    X(rr_server_unconnected,                                                                  \
      "requests a connected echo server answered from its bound socket (client limit reached)")

enum class PathEvent : uint8_t {
#define PATHSCOPE_EVENT_ENUM(name, what) name,
    PATHSCOPE_PATH_EVENTS(PATHSCOPE_EVENT_ENUM)
#undef PATHSCOPE_EVENT_ENUM
};

inline constexpr unsigned kPathEventCount = 0
#define PATHSCOPE_EVENT_COUNT(name, what) +1
    PATHSCOPE_PATH_EVENTS(PATHSCOPE_EVENT_COUNT)
#undef PATHSCOPE_EVENT_COUNT
    ;

inline constexpr std::string_view kPathEventNames[] = {
#define PATHSCOPE_EVENT_NAME(name, what) #name,
    PATHSCOPE_PATH_EVENTS(PATHSCOPE_EVENT_NAME)
#undef PATHSCOPE_EVENT_NAME
};

inline constexpr std::string_view kPathEventMeanings[] = {
#define PATHSCOPE_EVENT_WHAT(name, what) what,
    PATHSCOPE_PATH_EVENTS(PATHSCOPE_EVENT_WHAT)
#undef PATHSCOPE_EVENT_WHAT
};

/// Where a packet's time through the engine (receive TSC to its outcome) is
/// recorded: one histogram per outcome of the receive ledger.
enum class Sojourn : uint8_t { forwarded, delivered, replied, dropped };
inline constexpr unsigned kSojournCount = 4;
inline constexpr std::string_view kSojournNames[] = {"forwarded", "delivered", "replied",
                                                     "dropped"};

}  // namespace pathscope::engine
