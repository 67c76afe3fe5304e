// A network namespace's own counters: /proc/net/snmp6 (the IPv6, ICMPv6
// and UDP MIBs, by name) and /proc/net/dev (each interface's packets and
// bytes), read through files opened from inside the namespace, so that
// later reads need no thread there.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace pathscope::capture {

struct DevCounters {
    uint64_t rx_bytes = 0, rx_packets = 0, rx_errors = 0, rx_dropped = 0;
    uint64_t tx_bytes = 0, tx_packets = 0, tx_errors = 0, tx_dropped = 0;
};

struct NetCounters {
    std::map<std::string, uint64_t> snmp6;
    std::map<std::string, DevCounters> dev;
    /// A counter by name (0 when this kernel has none of that name).
    uint64_t get(const std::string& name) const {
        const auto it = snmp6.find(name);
        return it == snmp6.end() ? 0 : it->second;
    }
};

/// Parses /proc/net/snmp6's "Name value" lines and /proc/net/dev's table.
std::map<std::string, uint64_t> parse_snmp6(const std::string& text);
std::map<std::string, DevCounters> parse_net_dev(const std::string& text);

class NetCounterReader {
  public:
    /// Opens the files from a thread inside namespace `fd`. Throws naming the namespace.
    NetCounterReader(int fd, const std::string& ns);
    ~NetCounterReader();
    NetCounterReader(const NetCounterReader&) = delete;
    NetCounterReader& operator=(const NetCounterReader&) = delete;
    NetCounters read() const;

  private:
    int snmp6_ = -1, dev_ = -1;
};

}  // namespace pathscope::capture
