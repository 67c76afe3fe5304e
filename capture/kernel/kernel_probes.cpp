#include "capture/kernel/kernel_probes.h"

#include <perfmon/pfmlib_perf_event.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "capture/kernel/perf_data.h"
#include "capture/kernel/tracefs.h"

namespace pathscope::capture {

namespace {

constexpr uint32_t kEthPIpv6 = 0x86dd;
constexpr uint64_t kLocalTable = 255;  // RT6_TABLE_LOCAL
constexpr size_t kSamplePages = 256;   // 1 MiB a CPU between two drains
constexpr size_t kDropPages = 512;     // 2 MiB a CPU: a flood of drops between drains

perf_event_attr tracepoint_attr(uint64_t id, bool sample) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_TRACEPOINT;
    a.config = id;
    a.disabled = 1;
    if (sample) {
        a.sample_period = 1;  // every event: its reason
        a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW;  // whose context dropped it, and why
        a.wakeup_events = 1u << 30;  // never woken: drained every interval
    }
    return a;
}

/// Opens `attr` on `cpu` with a tracepoint filter ("" none); throws naming `what`.
int open_on_cpu(perf_event_attr attr, int cpu, const std::string& filter, const std::string& what) {
    const int fd = open_perf_event(attr, -1, cpu);
    if (fd < 0)
        throw std::runtime_error(what + " on CPU " + std::to_string(cpu) + ": " +
                                 perf_open_error(errno));
    if (!filter.empty() && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter.c_str()) != 0) {
        const int err = errno;
        close(fd);
        throw std::runtime_error(what + ": the kernel refused the filter '" + filter + "': " +
                                 std::strerror(err));
    }
    return fd;
}

uint64_t read_count(int fd) {
    uint64_t v = 0;
    return ::read(fd, &v, sizeof v) == static_cast<ssize_t>(sizeof v) ? v : 0;
}

uint64_t field_value(const uint8_t* raw, uint32_t raw_size, uint32_t offset, uint32_t size) {
    if (offset + size > raw_size || size > 8) return 0;
    uint64_t v = 0;
    std::memcpy(&v, raw + offset, size);  // little-endian x86-64
    return v;
}

}  // namespace

std::vector<int> online_cpus() {
    std::ifstream in("/sys/devices/system/cpu/online");
    std::string text;
    std::getline(in, text);
    std::vector<int> cpus;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t comma = text.find(',', pos);
        const std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        const size_t dash = part.find('-');
        const int lo = std::stoi(part.substr(0, dash));
        const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
        for (int c = lo; c <= hi; ++c) cpus.push_back(c);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    if (cpus.empty())
        for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN); ++c) cpus.push_back(static_cast<int>(c));
    return cpus;
}

KernelProbes::KernelProbes(const std::string& sample_event, uint32_t sample_hz, bool lookups) {
    const std::vector<int> cpus = online_cpus();
    const uint64_t drop_id = tracepoint_id("skb", "kfree_skb");
    const uint64_t fib_id = lookups ? tracepoint_id("fib6", "fib6_table_lookup") : 0;
    const TracepointField reason = tracepoint_field("skb", "kfree_skb", "reason");
    const TracepointField location = tracepoint_field("skb", "kfree_skb", "location");
    reason_offset_ = reason.offset, reason_size_ = reason.size, location_offset_ = location.offset;
    const std::string ipv6 = "protocol == " + std::to_string(kEthPIpv6);
    try {
        for (int cpu : cpus) {
            counting_drops_.push_back(open_on_cpu(tracepoint_attr(drop_id, false), cpu, ipv6, "skb:kfree_skb"));
            if (lookups) {
                counting_tables_.push_back(open_on_cpu(tracepoint_attr(fib_id, false), cpu, "", "fib6:fib6_table_lookup"));
                counting_local_.push_back(open_on_cpu(tracepoint_attr(fib_id, false), cpu,
                                                      "tb_id == " + std::to_string(kLocalTable),
                                                      "fib6:fib6_table_lookup"));
            }
            Ring r{open_on_cpu(tracepoint_attr(drop_id, true), cpu, ipv6, "skb:kfree_skb"),
                   std::make_unique<PerfRing>()};
            drop_fds_.push_back(std::move(r));
            if (const std::string why = drop_fds_.back().ring->map(drop_fds_.back().fd, kDropPages);
                !why.empty())
                throw std::runtime_error("skb:kfree_skb: " + why);
        }
    } catch (...) {
        close_all();
        throw;
    }
    if (sample_hz == 0) return;
    sampling_note_ = encode_event(sample_event, sample_attr_, PFM_PLM0 | PFM_PLM3);
    if (!sampling_note_.empty()) return;
    // A fixed period (not a frequency): every sample stands for the same
    // CPU time, so a stage's samples times the period is its CPU time.
    sample_attr_.freq = 0;
    sample_attr_.sample_period = 1'000'000'000ull / sample_hz;
    sample_attr_.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                               PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
    sample_attr_.exclude_hv = 1;
    sample_attr_.exclude_idle = 1;
    sample_attr_.disabled = 1;
    sample_attr_.wakeup_events = 1u << 30;
    for (int cpu : cpus) {
        const int fd = open_perf_event(sample_attr_, -1, cpu);
        if (fd < 0) {
            sampling_note_ = sample_event + " on CPU " + std::to_string(cpu) + ": " + perf_open_error(errno);
            sample_fds_.clear();
            return;
        }
        sample_fds_.push_back({fd, std::make_unique<PerfRing>()});
        if (const std::string why = sample_fds_.back().ring->map(fd, kSamplePages); !why.empty()) {
            sampling_note_ = why;
            for (auto& r : sample_fds_) close(r.fd);
            sample_fds_.clear();
            return;
        }
    }
}

KernelProbes::~KernelProbes() { close_all(); }

void KernelProbes::close_all() {
    for (auto* list : {&counting_drops_, &counting_tables_, &counting_local_}) {
        for (int fd : *list) close(fd);
        list->clear();
    }
    for (auto* list : {&sample_fds_, &drop_fds_}) {
        for (auto& r : *list) {
            r.ring.reset();
            if (r.fd >= 0) close(r.fd);
        }
        list->clear();
    }
}

void KernelProbes::enable() {
    for (auto* list : {&counting_drops_, &counting_tables_, &counting_local_})
        for (int fd : *list) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    for (auto* list : {&sample_fds_, &drop_fds_})
        for (auto& r : *list) ioctl(r.fd, PERF_EVENT_IOC_ENABLE, 0);
}

void KernelProbes::disable() {
    for (auto* list : {&sample_fds_, &drop_fds_})
        for (auto& r : *list) ioctl(r.fd, PERF_EVENT_IOC_DISABLE, 0);
    for (auto* list : {&counting_drops_, &counting_tables_, &counting_local_})
        for (int fd : *list) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

ProbeCounts KernelProbes::counts() const {
    ProbeCounts c;
    for (int fd : counting_drops_) c.drops += read_count(fd);
    for (int fd : counting_tables_) c.fib_tables += read_count(fd);
    for (int fd : counting_local_) c.fib_lookups += read_count(fd);
    return c;
}

void KernelProbes::drain(const std::function<bool(const KernelSample&)>& on_sample,
                         const std::function<bool(uint32_t pid, uint32_t tid)>& ours,
                         PerfDataWriter* perf_data) {
    for (auto& r : drop_fds_)
        r.ring->drain([&](const perf_event_header& h, const uint8_t* rec) {
            if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
                lost_drops_ += reinterpret_cast<const uint64_t*>(rec + sizeof h)[1];
                return;
            }
            // pid, tid, raw size, raw data
            if (h.type != PERF_RECORD_SAMPLE || h.size < sizeof h + 12) return;
            uint32_t pid = 0, tid = 0, raw_size = 0;
            std::memcpy(&pid, rec + sizeof h, 4);
            std::memcpy(&tid, rec + sizeof h + 4, 4);
            if (!ours(pid, tid)) {
                ++others_drops_;
                return;
            }
            std::memcpy(&raw_size, rec + sizeof h + 8, 4);
            const uint8_t* raw = rec + sizeof h + 12;
            raw_size = std::min<uint32_t>(raw_size, h.size - static_cast<uint32_t>(sizeof h) - 12);
            ++drops_[{field_value(raw, raw_size, reason_offset_, reason_size_),
                      field_value(raw, raw_size, location_offset_, 8)}];
        });
    for (auto& r : sample_fds_)
        r.ring->drain([&](const perf_event_header& h, const uint8_t* rec) {
            if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
                lost_ += reinterpret_cast<const uint64_t*>(rec + sizeof h)[1];
                return;
            }
            // ip, pid/tid, time, cpu/res, period, nr, ips[nr]
            if (h.type != PERF_RECORD_SAMPLE || h.size < sizeof h + 48) return;
            const auto* p = reinterpret_cast<const uint64_t*>(rec + sizeof h);
            KernelSample& s = sample_;
            s.pid = static_cast<uint32_t>(p[1]);
            s.tid = static_cast<uint32_t>(p[1] >> 32);
            s.cpu = static_cast<uint32_t>(p[3]);
            s.period = p[4];
            const uint64_t nr = std::min<uint64_t>(p[5], (h.size - sizeof h - 48) / 8);
            s.kernel.clear();
            s.user.clear();
            std::vector<uint64_t>* into = &s.kernel;
            for (uint64_t i = 0; i < nr; ++i) {
                const uint64_t ip = p[6 + i];
                if (ip == PERF_CONTEXT_KERNEL) into = &s.kernel;
                else if (ip == PERF_CONTEXT_USER) into = &s.user;
                else if (ip < PERF_CONTEXT_MAX) into->push_back(ip);
            }
            if (s.kernel.empty() && s.user.empty()) s.user.push_back(p[0]);
            ++samples_;
            if (on_sample(s) && perf_data) perf_data->record(h, rec);
        });
}

}  // namespace pathscope::capture
