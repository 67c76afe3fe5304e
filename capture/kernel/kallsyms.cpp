#include "capture/kernel/kallsyms.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <stdexcept>

namespace pathscope::capture {

namespace {
const std::string kNone;
}

KernelSymbols::KernelSymbols(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": cannot read the kernel's symbols");
    std::string line;
    bool any_address = false;
    while (std::getline(in, line)) {
        // "ffffffff81000000 T _stext" or "ffffffffc0000000 t fn\t[module]"
        const auto sp1 = line.find(' ');
        if (sp1 == std::string::npos || sp1 + 3 > line.size()) continue;
        const char type = line[sp1 + 1];
        if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;  // functions only
        uint64_t addr = 0;
        if (std::from_chars(line.data(), line.data() + sp1, addr, 16).ec != std::errc()) continue;
        any_address = any_address || addr != 0;
        std::string rest = line.substr(sp1 + 3);
        std::string module = kKernelModule;
        if (const auto tab = rest.find('\t'); tab != std::string::npos) {
            module = rest.substr(tab + 1);
            rest.resize(tab);
        }
        symbols_.push_back({addr, std::move(rest), std::move(module)});
    }
    if (symbols_.empty() || !any_address)
        throw std::runtime_error(path + ": the kernel hides its addresses (every one reads 0): run "
                                 "as root, with /proc/sys/kernel/kptr_restrict at 0 or 1");
    std::stable_sort(symbols_.begin(), symbols_.end(),
                     [](const Symbol& a, const Symbol& b) { return a.addr < b.addr; });
}

const std::string& KernelSymbols::name(uint64_t addr, std::string* module) const {
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), addr,
                               [](uint64_t a, const Symbol& s) { return a < s.addr; });
    if (it == symbols_.begin()) return kNone;
    --it;
    if (module) *module = it->module;
    return it->name;
}

uint64_t KernelSymbols::address(const std::string& name) const {
    for (const auto& s : symbols_)
        if (s.name == name) return s.addr;
    return 0;
}

}  // namespace pathscope::capture
