// The running kernel's function symbols (/proc/kallsyms, readable to root
// with kptr_restrict at 0 or 1): kernel addresses of sampled call chains
// and of the drop tracepoint's `location` to function names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pathscope::capture {

/// The module name kernel frames are stored under (perf's name for it).
inline constexpr const char* kKernelModule = "[kernel.kallsyms]";

class KernelSymbols {
  public:
    /// Reads /proc/kallsyms (or `path`). Throws std::runtime_error when it
    /// cannot be read or shows every address as 0 (kptr_restrict hides them).
    explicit KernelSymbols(const std::string& path = "/proc/kallsyms");

    /// The function holding `addr` ("" below the first one); `module` gets
    /// kKernelModule or a module's "[name]".
    const std::string& name(uint64_t addr, std::string* module = nullptr) const;
    size_t size() const { return symbols_.size(); }
    /// The address of function `name` (0 when there is none).
    uint64_t address(const std::string& name) const;

  private:
    struct Symbol {
        uint64_t addr;
        std::string name;
        std::string module;
    };
    std::vector<Symbol> symbols_;  ///< by address
};

/// Whether `addr` is a kernel address (x86-64: the upper half).
inline bool kernel_address(uint64_t addr) { return addr >= 0xffff800000000000ull; }

}  // namespace pathscope::capture
