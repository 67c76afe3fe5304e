#include "engine/eal.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "engine/dpdk.h"

namespace pathscope::engine {

namespace {
std::once_flag g_once;
std::string g_error;
bool g_ready = false;
}  // namespace

std::vector<std::string> with_hugepages(std::vector<std::string> args) {
    args.erase(std::remove(args.begin(), args.end(), "--no-huge"), args.end());
    if (std::find(args.begin(), args.end(), "--in-memory") == args.end())
        args.push_back("--in-memory");
    return args;
}

std::string hugepage_problem(bool in_memory) {
    namespace fs = std::filesystem;
    uint64_t reserved = 0;
    std::error_code ec;
    for (const auto& size : fs::directory_iterator("/sys/kernel/mm/hugepages", ec)) {
        uint64_t n = 0;
        std::ifstream(size.path() / "nr_hugepages") >> n;
        reserved += n;
    }
    std::ifstream mounts("/proc/mounts");
    bool mounted = false;
    for (std::string line; std::getline(mounts, line);) {
        std::istringstream fields(line);
        std::string device, dir, type;
        fields >> device >> dir >> type;
        mounted = mounted || type == "hugetlbfs";
    }
    const char* fix =
        " (as root: echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages for 1 GiB "
        "of 2 MiB pages; without --in-memory also mount -t hugetlbfs nodev /dev/hugepages), or "
        "run without them "
        "([eal] hugepages = false, --no-huge in [eal] args)";
    if (reserved == 0) return std::string("no hugepages are reserved on this machine") + fix;
    // --in-memory takes its pages from memfd: no hugetlbfs mount is needed.
    if (!mounted && !in_memory) return std::string("no hugetlbfs is mounted") + fix;
    return "";
}

void eal_init(const std::vector<std::string>& args) {
    std::call_once(g_once, [&] {
        if (std::find(args.begin(), args.end(), "--no-huge") == args.end()) {
            const bool in_memory =
                std::find(args.begin(), args.end(), "--in-memory") != args.end();
            if (std::string why = hugepage_problem(in_memory); !why.empty()) {
                g_error = "DPDK EAL arguments without --no-huge need hugepages, but " + why;
                return;
            }
        }
        std::vector<std::string> storage;
        storage.reserve(args.size() + 1);
        storage.push_back("pathscope");
        storage.insert(storage.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : storage) argv.push_back(a.data());
        argv.push_back(nullptr);
        if (rte_eal_init(static_cast<int>(storage.size()), argv.data()) < 0) {
            g_error = std::string("DPDK EAL initialisation failed: ") + rte_strerror(rte_errno) +
                      " (EAL arguments:";
            for (auto& a : args) g_error += " " + a;
            g_error += "). Run as root; without hugepages pass --no-huge -m 1024.";
            return;
        }
        g_ready = true;
    });
    if (!g_ready) throw std::runtime_error(g_error);
}

bool eal_ready() { return g_ready; }

}  // namespace pathscope::engine
