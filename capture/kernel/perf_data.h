// A perf.data file (perf's own format, version 2) of the samples a kernel
// run took, record for record as the kernel wrote them, so that perf
// report, perf script and hotspot read the same samples pathscope
// attributed (capture.perf_data). Kernel addresses are resolved by those
// tools from the running kernel's /proc/kallsyms; pathscope's own threads
// are named by COMM records.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace pathscope::capture {

class PerfDataWriter {
  public:
    /// Creates `path` for samples of `attr` (its sample_type gives their
    /// layout). Throws std::runtime_error when the file cannot be written.
    PerfDataWriter(const std::string& path, const perf_event_attr& attr);
    ~PerfDataWriter();
    PerfDataWriter(const PerfDataWriter&) = delete;
    PerfDataWriter& operator=(const PerfDataWriter&) = delete;

    /// The kernel's text as one mapping (perf's "[kernel.kallsyms]_text"),
    /// from address `text` (kallsyms' _text).
    void kernel_mmap(uint64_t text);
    /// A thread's name.
    void comm(uint32_t pid, uint32_t tid, const std::string& name);
    /// One record as read from a ring buffer (header first).
    void record(const perf_event_header& h, const uint8_t* bytes);
    /// Writes the header (the data's size): the file is complete.
    void finish();
    const std::string& path() const { return path_; }

  private:
    void write(const void* p, size_t n);

    std::string path_;
    FILE* f_ = nullptr;
    perf_event_attr attr_{};
    uint64_t data_offset_ = 0, data_size_ = 0;
};

}  // namespace pathscope::capture
