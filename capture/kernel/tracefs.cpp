#include "capture/kernel/tracefs.h"

#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pathscope::capture {

namespace {

bool has_events(const std::string& dir) { return access((dir + "/events").c_str(), R_OK) == 0; }

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) return "";
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string event_file(const std::string& system, const std::string& name, const char* file) {
    const std::string path = tracefs_root() + "/events/" + system + "/" + name + "/" + file;
    std::string text = read_file(path);
    if (text.empty())
        throw std::runtime_error("tracepoint " + system + ":" + name + ": cannot read " + path +
                                 " (this kernel may not have it)");
    return text;
}

uint64_t number(const std::string& s, size_t& pos) {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), v);
    if (ec != std::errc()) throw std::runtime_error("tracefs: a number was expected in '" + s.substr(pos, 30) + "'");
    pos = static_cast<size_t>(end - s.data());
    return v;
}

}  // namespace

std::string tracefs_root() {
    static const std::string root = [] {
        for (const char* dir : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"})
            if (has_events(dir)) return std::string(dir);
        // Not mounted: mount it where the kernel provides its mount point.
        if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) == 0 &&
            has_events("/sys/kernel/tracing"))
            return std::string("/sys/kernel/tracing");
        throw std::runtime_error(
            std::string("tracefs is not mounted and cannot be (") + std::strerror(errno) +
            "): a Linux run reads the drop reasons and route lookups from tracepoints; as root: "
            "mount -t tracefs nodev /sys/kernel/tracing");
    }();
    return root;
}

uint64_t tracepoint_id(const std::string& system, const std::string& name) {
    const std::string text = event_file(system, name, "id");
    size_t pos = 0;
    return number(text, pos);
}

TracepointField tracepoint_field(const std::string& system, const std::string& name,
                                 const std::string& field) {
    const std::string text = event_file(system, name, "format");
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        // "\tfield:enum skb_drop_reason reason;\toffset:36;\tsize:4;\tsigned:0;"
        const auto semi = line.find(';');
        if (line.find("field:") == std::string::npos || semi == std::string::npos) continue;
        size_t start = line.find_last_of(" \t*", semi - 1);
        std::string fname = line.substr(start + 1, semi - start - 1);
        if (const auto bracket = fname.find('['); bracket != std::string::npos) fname.resize(bracket);
        if (fname != field) continue;
        TracepointField f;
        size_t pos = line.find("offset:");
        if (pos == std::string::npos) break;
        pos += 7;
        f.offset = static_cast<uint32_t>(number(line, pos));
        pos = line.find("size:", pos);
        if (pos == std::string::npos) break;
        pos += 5;
        f.size = static_cast<uint32_t>(number(line, pos));
        return f;
    }
    throw std::runtime_error("tracepoint " + system + ":" + name + " has no field '" + field + "'");
}

std::map<uint64_t, std::string> parse_print_symbolic(const std::string& format,
                                                     const std::string& field) {
    std::map<uint64_t, std::string> out;
    const std::string key = "__print_symbolic(REC->" + field + ",";
    size_t pos = format.find(key);
    if (pos == std::string::npos) return out;
    pos += key.size();
    // { 2, "NOT_SPECIFIED" }, { 3, "NO_SOCKET" }, ... )
    while (true) {
        const size_t open = format.find('{', pos);
        const size_t close_call = format.find(')', pos);
        if (open == std::string::npos || (close_call != std::string::npos && close_call < open)) break;
        pos = open + 1;
        const uint64_t value = number(format, pos);
        const size_t q1 = format.find('"', pos);
        const size_t q2 = q1 == std::string::npos ? q1 : format.find('"', q1 + 1);
        if (q2 == std::string::npos) break;
        out[value] = format.substr(q1 + 1, q2 - q1 - 1);
        pos = q2 + 1;
    }
    return out;
}

std::map<uint64_t, std::string> tracepoint_symbols(const std::string& system,
                                                   const std::string& name,
                                                   const std::string& field) {
    return parse_print_symbolic(event_file(system, name, "format"), field);
}

}  // namespace pathscope::capture
