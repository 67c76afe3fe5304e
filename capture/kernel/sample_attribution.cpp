#include "capture/kernel/sample_attribution.h"

#include <dirent.h>

#include <fstream>

namespace pathscope::capture {

std::set<uint32_t> softirq_threads() {
    std::set<uint32_t> out;
    DIR* proc = opendir("/proc");
    if (!proc) return out;
    while (const dirent* e = readdir(proc)) {
        const std::string pid = e->d_name;
        if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in("/proc/" + pid + "/comm");
        std::string comm;
        std::getline(in, comm);
        if (comm.rfind("ksoftirqd/", 0) == 0) out.insert(static_cast<uint32_t>(std::stoul(pid)));
    }
    closedir(proc);
    return out;
}

SampleAttribution::SampleAttribution(const StageMap& map, const KernelSymbols& symbols,
                                     std::set<uint32_t> threads)
    : map_(map), symbols_(symbols), threads_(std::move(threads)), softirq_tids_(softirq_threads()) {
    tally_ = fresh();
}

SampleTally SampleAttribution::fresh() const {
    SampleTally t;
    t.samples.assign(map_.stages().size(), 0);
    t.ns.assign(map_.stages().size(), 0);
    return t;
}

bool SampleAttribution::add(const KernelSample& s) {
    if (!ours(s.tid)) {
        ++tally_.others;
        return false;
    }
    kernel_names_.clear();
    user_names_.clear();
    frames_.clear();
    // Root first in the stored stack: user frames (outermost last in the
    // chain) then kernel frames.
    if (!s.user.empty() && !user_symbols_) user_symbols_ = std::make_unique<Symbolizer>();
    for (size_t i = s.user.size(); i-- > 0;)
        frames_.push_back(user_symbols_->frame(s.user[i], i != 0));
    for (size_t i = s.kernel.size(); i-- > 0;) {
        db::Frame f;
        f.symbol = symbols_.name(s.kernel[i], &f.module);
        if (f.symbol.empty()) f.symbol = "[unknown]", f.module = kKernelModule;
        frames_.push_back(std::move(f));
    }
    // Leaf-first names for the map (pointers into frames_, which no longer grows).
    for (size_t i = frames_.size(); i-- > s.user.size();) kernel_names_.push_back(&frames_[i].symbol);
    for (size_t i = s.user.size(); i-- > 0;) user_names_.push_back(&frames_[i].symbol);
    const int stage = map_.classify(kernel_names_, user_names_);
    ++tally_.samples[static_cast<size_t>(stage)];
    tally_.ns[static_cast<size_t>(stage)] += s.period;
    ++tally_.stacks[frames_];
    ++tally_.counted;
    return true;
}

SampleTally SampleAttribution::take() { return std::exchange(tally_, fresh()); }

}  // namespace pathscope::capture
