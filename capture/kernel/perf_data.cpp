#include "capture/kernel/perf_data.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace pathscope::capture {

namespace {

struct FileSection {
    uint64_t offset = 0, size = 0;
};

/// perf's struct perf_file_header (tools/perf/util/header.h).
struct FileHeader {
    uint64_t magic = 0x32454c4946524550ull;  // "PERFILE2"
    uint64_t size = sizeof(FileHeader);
    uint64_t attr_size = sizeof(perf_event_attr) + sizeof(FileSection);
    FileSection attrs, data, event_types;
    uint64_t features[4] = {0, 0, 0, 0};  // no feature sections
};
static_assert(sizeof(FileHeader) == 104);

}  // namespace

PerfDataWriter::PerfDataWriter(const std::string& path, const perf_event_attr& attr)
    : path_(path), attr_(attr) {
    f_ = std::fopen(path.c_str(), "wb");
    if (!f_)
        throw std::runtime_error("capture.perf_data: cannot write " + path + ": " +
                                 std::strerror(errno));
    attr_.size = sizeof(perf_event_attr);
    attr_.sample_id_all = 0;  // the records pathscope writes itself carry no sample id
    attr_.disabled = 0;
    const FileHeader header;
    write(&header, sizeof header);
    write(&attr_, sizeof attr_);
    const FileSection no_ids;
    write(&no_ids, sizeof no_ids);
    data_offset_ = sizeof(FileHeader) + header.attr_size;
}

PerfDataWriter::~PerfDataWriter() {
    try {
        finish();
    } catch (...) {
    }
}

void PerfDataWriter::write(const void* p, size_t n) {
    if (!f_) return;
    if (std::fwrite(p, 1, n, f_) != n)
        throw std::runtime_error("capture.perf_data: writing " + path_ + " failed: " +
                                 std::strerror(errno));
}

void PerfDataWriter::record(const perf_event_header& h, const uint8_t* bytes) {
    write(bytes, h.size);
    data_size_ += h.size;
}

void PerfDataWriter::kernel_mmap(uint64_t text) {
    // perf's own synthesized kernel map: pid -1, the whole upper range, and
    // the _text address as its page offset (the relocation reference).
    const char name[] = "[kernel.kallsyms]_text";
    std::vector<uint8_t> rec(sizeof(perf_event_header) + 4 * 8 + ((sizeof name + 7) / 8) * 8, 0);
    perf_event_header h{PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, static_cast<uint16_t>(rec.size())};
    const uint32_t pid = static_cast<uint32_t>(-1), tid = 0;
    const uint64_t start = text, len = ~0ull - text, pgoff = text;
    uint8_t* p = rec.data();
    std::memcpy(p, &h, sizeof h), p += sizeof h;
    std::memcpy(p, &pid, 4), std::memcpy(p + 4, &tid, 4), p += 8;
    std::memcpy(p, &start, 8), p += 8;
    std::memcpy(p, &len, 8), p += 8;
    std::memcpy(p, &pgoff, 8), p += 8;
    std::memcpy(p, name, sizeof name);
    record(h, rec.data());
}

void PerfDataWriter::comm(uint32_t pid, uint32_t tid, const std::string& name) {
    const std::string n = name.substr(0, 15);
    std::vector<uint8_t> rec(sizeof(perf_event_header) + 8 + ((n.size() + 1 + 7) / 8) * 8, 0);
    perf_event_header h{PERF_RECORD_COMM, 0, static_cast<uint16_t>(rec.size())};
    std::memcpy(rec.data(), &h, sizeof h);
    std::memcpy(rec.data() + sizeof h, &pid, 4);
    std::memcpy(rec.data() + sizeof h + 4, &tid, 4);
    std::memcpy(rec.data() + sizeof h + 8, n.c_str(), n.size());
    record(h, rec.data());
}

void PerfDataWriter::finish() {
    if (!f_) return;
    FileHeader header;
    header.attrs = {sizeof(FileHeader), header.attr_size};
    header.data = {data_offset_, data_size_};
    const bool ok = std::fseek(f_, 0, SEEK_SET) == 0 &&
                    std::fwrite(&header, sizeof header, 1, f_) == 1;
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    if (!ok || !closed)
        throw std::runtime_error("capture.perf_data: finishing " + path_ + " failed: " +
                                 std::strerror(errno));
}

}  // namespace pathscope::capture
