#include "capture/kernel/net_counters.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "capture/kernel/netns.h"

namespace pathscope::capture {

namespace {

/// The whole of a /proc file from its start (a seq_file reads afresh at offset 0).
std::string read_all(int fd) {
    std::string out;
    char buf[8192];
    for (off_t at = 0;;) {
        const ssize_t n = pread(fd, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buf, static_cast<size_t>(n));
        at += n;
    }
    return out;
}

uint64_t to_u64(std::string_view s) {
    uint64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

}  // namespace

std::map<std::string, uint64_t> parse_snmp6(const std::string& text) {
    std::map<std::string, uint64_t> out;
    std::istringstream in(text);
    std::string name, value;
    while (in >> name >> value) out[name] = to_u64(value);
    return out;
}

std::map<std::string, DevCounters> parse_net_dev(const std::string& text) {
    std::map<std::string, DevCounters> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos || line.find('|') != std::string::npos) continue;
        std::string name = line.substr(0, colon);
        name.erase(0, name.find_first_not_of(' '));
        std::istringstream f(line.substr(colon + 1));
        uint64_t v[16] = {};
        for (auto& x : v) f >> x;
        // rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes packets errs drop ...
        out[name] = {v[0], v[1], v[2], v[3], v[8], v[9], v[10], v[11]};
    }
    return out;
}

NetCounterReader::NetCounterReader(int fd, const std::string& ns) {
    in_namespace(fd, ns, [&] {
        snmp6_ = open("/proc/thread-self/net/snmp6", O_RDONLY | O_CLOEXEC);
        dev_ = open("/proc/thread-self/net/dev", O_RDONLY | O_CLOEXEC);
    });
    if (snmp6_ < 0 || dev_ < 0) {
        const int err = errno;
        if (snmp6_ >= 0) close(snmp6_);
        if (dev_ >= 0) close(dev_);
        throw std::runtime_error("namespace " + ns + ": cannot open its /proc/net/snmp6 and dev: " +
                                 std::strerror(err));
    }
}

NetCounterReader::~NetCounterReader() {
    close(snmp6_);
    close(dev_);
}

NetCounters NetCounterReader::read() const {
    return {parse_snmp6(read_all(snmp6_)), parse_net_dev(read_all(dev_))};
}

}  // namespace pathscope::capture
