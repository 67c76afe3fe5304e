#include "capture/symbolize.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "capture/symbol_names.h"

namespace pathscope::capture {

namespace {

const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = nullptr,
    .debuginfo_path = nullptr,
};

std::string demangle(const char* name) {
    int status = 0;
    char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || !d) return name;
    std::string out = compact_symbol(d);
    std::free(d);
    return out;
}

struct Mapping {
    uint64_t lo = 0, hi = 0, offset = 0;
    bool exec = false;
    std::string path;
};

std::vector<Mapping> read_maps() {
    std::vector<Mapping> maps;
    std::ifstream in("/proc/self/maps");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string range, perms, dev, inode;
        Mapping m;
        ls >> range >> perms >> std::hex >> m.offset >> dev >> inode;
        std::getline(ls >> std::ws, m.path);
        const auto dash = range.find('-');
        if (dash == std::string::npos) continue;
        m.lo = std::stoull(range.substr(0, dash), nullptr, 16);
        m.hi = std::stoull(range.substr(dash + 1), nullptr, 16);
        m.exec = perms.size() > 2 && perms[2] == 'x';
        maps.push_back(std::move(m));
    }
    return maps;
}

}  // namespace

struct Symbolizer::Impl {
    Dwfl* dwfl = nullptr;
    std::vector<Mapping> maps;
    std::map<uint64_t, db::Frame> cache;

    const Mapping* mapping(uint64_t addr) const {
        for (const auto& m : maps)
            if (addr >= m.lo && addr < m.hi) return &m;
        return nullptr;
    }
};

Symbolizer::Symbolizer() : impl_(std::make_unique<Impl>()) {
    impl_->maps = read_maps();
    impl_->dwfl = dwfl_begin(&kCallbacks);
    if (!impl_->dwfl) return;
    dwfl_report_begin(impl_->dwfl);
    dwfl_linux_proc_report(impl_->dwfl, getpid());
    dwfl_report_end(impl_->dwfl, nullptr, nullptr);
}

Symbolizer::~Symbolizer() {
    if (impl_->dwfl) dwfl_end(impl_->dwfl);
}

db::Frame Symbolizer::frame(uint64_t addr, bool return_address) {
    const uint64_t lookup = return_address && addr ? addr - 1 : addr;
    if (auto it = impl_->cache.find(lookup); it != impl_->cache.end()) return it->second;
    db::Frame f;
    Dwfl_Module* mod = impl_->dwfl ? dwfl_addrmodule(impl_->dwfl, lookup) : nullptr;
    if (mod) {
        const char* modname =
            dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
        f.module = modname ? std::filesystem::path(modname).filename().string() : "";
        const char* sym = dwfl_module_addrname(mod, lookup);
        if (sym) f.symbol = demangle(sym);
    }
    if (f.symbol.empty()) {  // not in dwfl's view: the dynamic linker may still know it
        Dl_info dl{};
        if (dladdr(reinterpret_cast<void*>(lookup), &dl) && dl.dli_sname) {
            f.symbol = demangle(dl.dli_sname);
            if (dl.dli_fname) f.module = std::filesystem::path(dl.dli_fname).filename().string();
        }
    }
    if (f.symbol.empty()) {
        // No symbol at all (a library's static function, without debug info):
        // name the file, as perf does, so its samples add up in one frame.
        const Mapping* m = impl_->mapping(lookup);
        if (m && !m->path.empty()) f.module = std::filesystem::path(m->path).filename().string();
        f.symbol = module_frame(f.module);
    }
    if (f.module.empty()) f.module = "[unknown]";
    impl_->cache.emplace(lookup, f);
    return f;
}

std::vector<db::StackRow> Symbolizer::stacks(int trial, const std::string& event,
                                             const std::map<RawStack, uint64_t>& raw) {
    // Different addresses in one function give the same frames: merge them.
    std::map<std::vector<std::pair<std::string, std::string>>, uint64_t> merged;
    for (const auto& [ips, weight] : raw) {
        // A frame-pointer walk that leaves code it can follow (a library built
        // without frame pointers) yields data addresses: cut the chain there.
        size_t depth = 0;
        while (depth < ips.size()) {
            const Mapping* m = impl_->mapping(ips[depth]);
            if (!m || !m->exec) break;
            ++depth;
        }
        if (depth == 0) depth = std::min<size_t>(1, ips.size());
        std::vector<std::pair<std::string, std::string>> frames;
        for (size_t i = depth; i-- > 0;) {
            db::Frame f = frame(ips[i], i != 0);
            frames.emplace_back(std::move(f.symbol), std::move(f.module));
        }
        merged[frames] += weight;
    }
    std::vector<db::StackRow> rows;
    for (const auto& [frames, weight] : merged) {
        db::StackRow row{trial, db::stack_event_name(event), {}, weight};
        for (const auto& [s, m] : frames) row.frames.push_back({s, m});
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace pathscope::capture
