#include "engine/eal.h"

#include <mutex>
#include <stdexcept>

#include "engine/dpdk.h"

namespace pathscope::engine {

namespace {
std::once_flag g_once;
std::string g_error;
bool g_ready = false;
}  // namespace

void eal_init(const std::vector<std::string>& args) {
    std::call_once(g_once, [&] {
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
