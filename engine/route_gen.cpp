#include "engine/route_gen.h"

#include <random>
#include <set>

#include "engine/routes.h"

namespace pathscope::engine {

namespace {
// Prefix lengths of a full IPv6 view and their share in percent (rounded
// from public BGP table reports: /48 about half, /32 about an eighth).
struct LengthShare {
    uint8_t len;
    unsigned percent;
};
constexpr LengthShare kMix[] = {{48, 47}, {32, 12}, {44, 9}, {40, 7}, {36, 5},
                                {46, 4},  {47, 3},  {29, 3}, {42, 3}, {45, 2},
                                {33, 1},  {34, 1},  {38, 1}, {41, 1}, {28, 1}};
}  // namespace

std::vector<Prefix6> generate_routes(uint32_t count, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<unsigned> weights;
    for (const auto& m : kMix) weights.push_back(m.percent);
    std::discrete_distribution<size_t> pick_len(weights.begin(), weights.end());
    std::set<std::pair<Ip6Addr, uint8_t>> seen;
    std::vector<Prefix6> out;
    out.reserve(count);
    while (out.size() < count) {
        Prefix6 p;
        p.len = kMix[pick_len(rng)].len;
        const uint64_t hi = rng();
        for (int i = 0; i < 8; ++i) p.addr[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
        p.addr[0] = static_cast<uint8_t>(0x20 | (p.addr[0] & 0x1f));  // 2000::/3
        for (int bit = p.len; bit < 128; ++bit)
            p.addr[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
        if (p.addr[0] == 0x20 && p.addr[1] == 0x01 && p.addr[2] == 0x0d && p.addr[3] == 0xb8)
            continue;
        if (!seen.insert({p.addr, p.len}).second) continue;
        out.push_back(p);
    }
    return out;
}

void write_routes(std::ostream& out, const std::vector<Prefix6>& routes, uint32_t nexthop) {
    out << "# " << routes.size() << " IPv6 routes shaped like a full BGP view; written by "
        << "'pathscope routes'. Format: PREFIX/LEN NEXTHOP-ID\n";
    for (const auto& r : routes) out << format_prefix6(r) << ' ' << nexthop << '\n';
}

}  // namespace pathscope::engine
