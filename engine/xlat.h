// Address translation tables of engine.ila: identifier-locator addressing
// (ILA, RFC draft-herbert-intarea-ila, as Linux's ila_xlat does it) on
// rte_hash, and NPTv6 (RFC 6296) prefix pairs. Plain tables and address
// arithmetic: the stages that apply them to packets are in engine/nodes/ila.cpp.
//
// Direction. The host's sockets use SIR addresses (SIR prefix : identifier);
// the wire carries ILA addresses (locator : identifier). Receive rewrites a
// destination's locator to the SIR prefix, send rewrites a source's SIR
// prefix to the locator. Only the upper 64 bits change.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/dpdk.h"

namespace pathscope::engine {

/// One's-complement sum of `n` 16-bit words, in memory order (the Internet
/// checksum does not depend on byte order, RFC 1071 2(B)), not folded.
inline uint32_t ones_sum16(const uint8_t* p, unsigned words) {
    uint32_t s = 0;
    for (unsigned i = 0; i < words; ++i) {
        uint16_t w;
        memcpy(&w, p + 2 * i, 2);
        s += w;
    }
    return s;
}

inline uint16_t fold16(uint32_t s) {
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    return static_cast<uint16_t>(s);
}

/// RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'): the checksum field `field`
/// (as stored) after 64 bits it covers change from `from` to `to`.
inline uint16_t adjust_checksum64(uint16_t field, const uint8_t* from, const uint8_t* to) {
    uint32_t s = static_cast<uint16_t>(~field);
    s += 4 * 0xffff - ones_sum16(from, 4);  // the sum of ~m over four words
    s += ones_sum16(to, 4);
    return static_cast<uint16_t>(~fold16(s));
}

/// The ILA mapping table: rte_hash from (identifier, locator, input port,
/// direction) to the 64 bits to write. Receive tries the most specific key
/// first: locator and port, locator, port, then the identifier alone.
class IlaTable {
  public:
    static constexpr uint16_t kAnyPort = 0xffff;
    IlaTable(const std::string& name, uint32_t entries);
    ~IlaTable();
    IlaTable(const IlaTable&) = delete;
    IlaTable& operator=(const IlaTable&) = delete;

    /// Receive mapping: `identifier` under locator `match` (nullptr: any) in
    /// on `port` (kAnyPort: any) becomes `sir_prefix`. False when that exact
    /// key is already mapped. Throws when the table is full.
    bool add_rx(const uint8_t* identifier, const uint8_t* match, uint16_t port,
                const uint8_t* sir_prefix);
    /// Send mapping: sir_prefix:identifier becomes locator:identifier.
    bool add_tx(const uint8_t* identifier, const uint8_t* sir_prefix, const uint8_t* locator);

    /// The SIR prefix for ILA address `addr` received on `port`; false: no mapping.
    bool rx(const uint8_t* addr, uint16_t port, uint8_t* upper) const {
        const uint64_t id = load64(addr + 8), loc = load64(addr);
        void* v;
        if ((port_keys_ && find(id, loc, false, port, 0, &v)) ||
            find(id, loc, false, kAnyPort, 0, &v) ||
            (any_keys_ && port_keys_ && find(id, 0, true, port, 0, &v)) ||
            (any_keys_ && find(id, 0, true, kAnyPort, 0, &v))) {
            memcpy(upper, &v, 8);
            return true;
        }
        return false;
    }
    /// rx() over up to RTE_HASH_LOOKUP_BULK_MAX addresses: bit i of the
    /// result says addrs[i] has a mapping, whose SIR prefix is then in
    /// upper[i]. One bulk lookup when every receive key is (identifier,
    /// locator), the usual table; rx() for each address otherwise.
    uint64_t rx_bulk(const uint8_t* const* addrs, const uint16_t* ports, unsigned n,
                     uint8_t (*upper)[8]) const;
    /// The locator for SIR address `addr`; false: not a mapped SIR address.
    bool tx(const uint8_t* addr, uint8_t* upper) const {
        void* v;
        if (!find(load64(addr + 8), load64(addr), false, kAnyPort, 1, &v)) return false;
        memcpy(upper, &v, 8);
        return true;
    }

  private:
    struct Key {
        uint64_t identifier;
        uint64_t locator;  ///< 0 when any_locator
        uint16_t port;
        uint8_t any_locator;
        uint8_t dir;  ///< 0 receive, 1 send
        uint32_t pad;
    };
    static uint64_t load64(const uint8_t* p) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    bool find(uint64_t id, uint64_t loc, bool any, uint16_t port, uint8_t dir, void** v) const {
        const Key k{id, loc, port, static_cast<uint8_t>(any), dir, 0};
        return rte_hash_lookup_data(h_, &k, v) >= 0;
    }
    bool add(const Key& k, const uint8_t* to);

    rte_hash* h_ = nullptr;
    bool port_keys_ = false;  ///< some receive key names a port: try those first
    bool any_keys_ = false;   ///< some receive key matches any locator
};

/// NPTv6 prefix pairs, checksum-neutral (RFC 6296 3.2): the rewritten
/// address has the same one's-complement sum as the original, so no upper
/// layer checksum changes. A handful of prefixes at most: a linear scan
/// costs less than hashing a masked address per candidate length.
class Nptv6Table {
  public:
    enum class Result : uint8_t { translated, no_mapping, no_adjust_word };

    /// external/internal: same length, at most 64 (checked by the caller).
    void add(const Prefix6& external, const Prefix6& internal);
    bool empty() const { return rx_.empty(); }
    /// Receive: an external destination becomes internal.
    Result rx(uint8_t* addr) const { return translate(rx_, addr); }
    /// Send: an internal source becomes external.
    Result tx(uint8_t* addr) const { return translate(tx_, addr); }

  private:
    struct Map {
        uint8_t from[16];
        uint8_t to[16];
        uint8_t mask[16];
        uint8_t len;
    };
    static Result translate(const std::vector<Map>& maps, uint8_t* addr);
    std::vector<Map> rx_, tx_;
};

}  // namespace pathscope::engine
