#include "engine/routes.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pathscope::engine {

std::optional<Ip6Addr> parse_ip6(const std::string& text) {
    Ip6Addr a{};
    if (inet_pton(AF_INET6, text.c_str(), a.data()) != 1) return std::nullopt;
    return a;
}

std::optional<Prefix6> parse_prefix6(const std::string& text) {
    const auto slash = text.find('/');
    if (slash == std::string::npos) {
        auto a = parse_ip6(text);
        if (!a) return std::nullopt;
        return Prefix6{*a, 128};
    }
    auto a = parse_ip6(text.substr(0, slash));
    const std::string len_text = text.substr(slash + 1);
    if (!a || len_text.empty() || len_text.size() > 3 ||
        len_text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    const int len = std::stoi(len_text);
    if (len > 128) return std::nullopt;
    Prefix6 p{*a, static_cast<uint8_t>(len)};
    for (int bit = len; bit < 128; ++bit)
        p.addr[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
    return p;
}

std::optional<MacAddr> parse_mac(const std::string& text) {
    MacAddr m{};
    unsigned b[6];
    char tail;
    if (std::sscanf(text.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
                    &b[5], &tail) != 6)
        return std::nullopt;
    for (int i = 0; i < 6; ++i) m[i] = static_cast<uint8_t>(b[i]);
    return m;
}

std::string format_ip6(const Ip6Addr& a) {
    char buf[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, a.data(), buf, sizeof buf);
    return buf;
}

std::string format_prefix6(const Prefix6& p) {
    return format_ip6(p.addr) + "/" + std::to_string(p.len);
}

namespace {

/// The start of a route file's line as an error quotes it: its first
/// kQuoted bytes, anything but printable ASCII as '?'. A route file may be
/// any file a scenario names (a scenario is input people pass around), so an
/// error shows enough to find the line and no more of the file.
std::string line_start(const std::string& line) {
    constexpr size_t kQuoted = 12;
    std::string out;
    for (size_t i = 0; i < line.size() && i < kQuoted; ++i)
        out += line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '?';
    return "the line starts \"" + out + (line.size() > kQuoted ? "...\"" : "\"");
}

}  // namespace

std::vector<RouteConfig> read_route_file(const std::string& path, uint32_t default_nexthop) {
    std::ifstream in(path);
    if (!in) {
        const int err = errno;
        std::error_code ec;
        const std::string full = std::filesystem::absolute(path, ec).string();
        throw std::runtime_error(
            "[routes] file " + (ec ? path : full) + ": cannot open (" + std::strerror(err) +
            "); a relative 'file' is read from the scenario's own folder: copy the route file "
            "beside the scenario, or give its absolute path");
    }
    std::vector<RouteConfig> routes;
    std::string line;
    for (unsigned lineno = 1; std::getline(in, line); ++lineno) {
        const std::string raw = line;
        auto fail = [&](const std::string& what) {
            throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + what + " (" +
                                     line_start(raw) + "); a route is PREFIX/LEN [NEXTHOP], like "
                                     "2001:db8::/32 1");
        };
        if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        std::istringstream fields(line);
        std::string prefix_text, nh_text, extra;
        if (!(fields >> prefix_text)) continue;
        const auto prefix = parse_prefix6(prefix_text);
        if (!prefix) fail("not an IPv6 prefix");
        uint32_t nh = default_nexthop;
        if (fields >> nh_text) {
            if (nh_text.find_first_not_of("0123456789") != std::string::npos || nh_text.size() > 9)
                fail("the next hop is not a next hop id (a number)");
            nh = static_cast<uint32_t>(std::stoul(nh_text));
        }
        if (fields >> extra) fail("more after the next hop");
        if (nh == 0) fail("no next hop (name one on the line or set routes.nexthop)");
        routes.push_back({*prefix, nh});
    }
    return routes;
}

}  // namespace pathscope::engine
