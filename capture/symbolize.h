// Instruction addresses of this process to function and module names, with
// elfutils (libdwfl) and the C++ demangler.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "capture/perf_events.h"
#include "db/records.h"

namespace pathscope::capture {

class Symbolizer {
  public:
    /// Reads this process's mappings now (call after the EAL loaded its drivers).
    Symbolizer();
    ~Symbolizer();
    Symbolizer(const Symbolizer&) = delete;
    Symbolizer& operator=(const Symbolizer&) = delete;

    /// `return_address`: a caller frame (the call is the byte before it).
    db::Frame frame(uint64_t addr, bool return_address);

    /// Sampled stacks (leaf first) as rows, root first, of trial `trial`,
    /// under db::stack_event_name(event) (a sampled clock is CPU time).
    std::vector<db::StackRow> stacks(int trial, const std::string& event,
                                     const std::map<RawStack, uint64_t>& raw);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace pathscope::capture
