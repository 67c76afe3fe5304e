#include "engine/xlat.h"

#include <stdexcept>

namespace pathscope::engine {

static_assert(sizeof(void*) == 8,
              "ILA mappings keep the 64 bits to write in the hash's data pointer");

IlaTable::IlaTable(const std::string& name, uint32_t entries) {
    rte_hash_parameters hp{};
    hp.name = name.c_str();
    hp.entries = std::max<uint32_t>(entries, 64);
    hp.key_len = sizeof(Key);
    hp.socket_id = static_cast<int>(rte_socket_id());
    h_ = rte_hash_create(&hp);
    if (!h_)
        throw std::runtime_error("cannot create the ILA mapping table: " +
                                 std::string(rte_strerror(rte_errno)));
}

IlaTable::~IlaTable() { rte_hash_free(h_); }

bool IlaTable::add(const Key& k, const uint8_t* to) {
    if (rte_hash_lookup(h_, &k) >= 0) return false;
    // The value is the 64 bits to write, held in the data pointer itself, so
    // that a hit costs no second load.
    void* v;
    memcpy(&v, to, 8);
    if (rte_hash_add_key_data(h_, &k, v) < 0)
        throw std::runtime_error("the ILA mapping table is full");
    return true;
}

bool IlaTable::add_rx(const uint8_t* identifier, const uint8_t* match, uint16_t port,
                      const uint8_t* sir_prefix) {
    const Key k{load64(identifier),
                match ? load64(match) : 0,
                port,
                static_cast<uint8_t>(match ? 0 : 1),
                0,
                0};
    if (!add(k, sir_prefix)) return false;
    port_keys_ = port_keys_ || port != kAnyPort;
    any_keys_ = any_keys_ || !match;
    return true;
}

bool IlaTable::add_tx(const uint8_t* identifier, const uint8_t* sir_prefix,
                      const uint8_t* locator) {
    return add(Key{load64(identifier), load64(sir_prefix), kAnyPort, 0, 1, 0}, locator);
}

uint64_t IlaTable::rx_bulk(const uint8_t* const* addrs, const uint16_t* ports, unsigned n,
                           uint8_t (*upper)[8]) const {
    uint64_t hits = 0;
    if (port_keys_ || any_keys_) {
        for (unsigned i = 0; i < n; ++i)
            if (rx(addrs[i], ports[i], upper[i])) hits |= uint64_t{1} << i;
        return hits;
    }
    Key keys[RTE_HASH_LOOKUP_BULK_MAX];
    const void* ptrs[RTE_HASH_LOOKUP_BULK_MAX];
    void* data[RTE_HASH_LOOKUP_BULK_MAX];
    for (unsigned i = 0; i < n; ++i) {
        keys[i] = Key{load64(addrs[i] + 8), load64(addrs[i]), kAnyPort, 0, 0, 0};
        ptrs[i] = &keys[i];
    }
    rte_hash_lookup_bulk_data(h_, ptrs, n, &hits, data);
    for (unsigned i = 0; i < n; ++i)
        if (hits >> i & 1) memcpy(upper[i], &data[i], 8);
    return hits;
}

void Nptv6Table::add(const Prefix6& external, const Prefix6& internal) {
    Map in{}, out{};
    for (unsigned b = 0; b < external.len; ++b)
        in.mask[b / 8] |= static_cast<uint8_t>(0x80 >> (b % 8));
    for (unsigned i = 0; i < 16; ++i) {
        in.from[i] = external.addr[i] & in.mask[i];
        in.to[i] = internal.addr[i] & in.mask[i];
    }
    in.len = external.len;
    out = in;
    memcpy(out.from, in.to, 16);
    memcpy(out.to, in.from, 16);
    rx_.push_back(in);
    tx_.push_back(out);
}

Nptv6Table::Result Nptv6Table::translate(const std::vector<Map>& maps, uint8_t* addr) {
    for (const Map& m : maps) {
        bool match = true;
        for (unsigned i = 0; i < 8 && match; ++i) match = (addr[i] & m.mask[i]) == m.from[i];
        if (!match) continue;
        // RFC 6296 3.6/3.7: the adjustment goes in word 3 for a /48 or
        // shorter, otherwise in the first of words 4-7 that is not 0xffff.
        unsigned w = 3;
        if (m.len > 48) {
            for (w = 4; w < 8 && addr[2 * w] == 0xff && addr[2 * w + 1] == 0xff; ++w) {
            }
            if (w == 8) return Result::no_adjust_word;
        }
        const uint32_t before = ones_sum16(addr, 8);
        for (unsigned i = 0; i < 8; ++i)
            addr[i] = static_cast<uint8_t>((addr[i] & ~m.mask[i]) | m.to[i]);
        // The adjustment word makes the new sum equal the old one: it takes
        // the old sum minus the sum of every other word.
        uint16_t old_w;
        memcpy(&old_w, addr + 2 * w, 2);
        const uint32_t rest = ones_sum16(addr, 8) - old_w;
        uint16_t neu = fold16(before + static_cast<uint16_t>(~fold16(rest)));
        if (neu == 0xffff) neu = 0;  // RFC 6296 3.5: zero as 0x0000
        memcpy(addr + 2 * w, &neu, 2);
        return Result::translated;
    }
    return Result::no_mapping;
}

}  // namespace pathscope::engine
