#include "capture/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "engine/dpdk.h"

#include <rte_version.h>

namespace pathscope::capture {

namespace {

/// The first line of a file, or `missing`.
std::string first_line(const std::string& path, const std::string& missing) {
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) return missing;
    return line.empty() ? missing : line;
}

/// The flags of the first CPU in /proc/cpuinfo.
std::string cpu_flags() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("flags", 0) == 0) return line.substr(line.find(':') + 1) + " ";
    return "";
}

bool has_flag(const std::string& flags, const char* flag) {
    return flags.find(std::string(" ") + flag + " ") != std::string::npos;
}

std::string meminfo(const char* key) {
    std::ifstream in("/proc/meminfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key, 0) == 0) {
            std::istringstream v(line.substr(line.find(':') + 1));
            std::string n;
            v >> n;
            return n;
        }
    return "?";
}

}  // namespace

std::pair<std::string, std::string> load_fact(const char* key) {
    std::istringstream in(first_line("/proc/loadavg", ""));
    std::string one, five, fifteen;
    in >> one >> five >> fifteen;
    return {key, one.empty() ? "unknown" : one + " " + five + " " + fifteen + " (1, 5, 15 min)"};
}

std::pair<std::string, std::string> simd_fact() {
    return {"env.simd_bitwidth",
            std::to_string(rte_vect_get_max_simd_bitwidth()) + " bits (DPDK's vector code)"};
}

Facts environment_facts(uint64_t tsc_hz, bool engine, bool hugepages) {
    Facts f;
    utsname u{};
    if (uname(&u) == 0) f.emplace_back("env.kernel", std::string(u.sysname) + " " + u.release + " " + u.version);
    f.emplace_back("env.cpus", std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " online");
    const std::string flags = cpu_flags();
    f.emplace_back("env.tsc",
                   std::to_string(tsc_hz) + " Hz, " +
                       (has_flag(flags, "constant_tsc") && has_flag(flags, "nonstop_tsc")
                            ? "invariant (constant_tsc, nonstop_tsc)"
                            : "not invariant: its rate may follow the CPU's frequency"));
    f.emplace_back("env.governor",
                   first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
                              "none (no cpufreq: the hypervisor or firmware sets the frequency)"));
    const std::string smt = first_line("/sys/devices/system/cpu/smt/active", "");
    f.emplace_back("env.smt", smt == "1" ? "on" : smt == "0" ? "off" : "unknown");
    f.emplace_back("env.isolated_cpus", first_line("/sys/devices/system/cpu/isolated", "none"));
    if (engine) {
        f.emplace_back("env.hugepages", meminfo("HugePages_Total") + " reserved of " +
                                            meminfo("Hugepagesize") + " kB; the run " +
                                            (hugepages ? "used them" : "used 4 KiB pages (--no-huge)"));
        f.emplace_back("env.dpdk", rte_version());
    }
    f.push_back(load_fact("env.load_start"));
    return f;
}

}  // namespace pathscope::capture
