#include "capture/perf_events.h"

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace pathscope::capture {

namespace {

void init_pfm() {
    static std::once_flag once;
    static int rc = PFM_SUCCESS;
    std::call_once(once, [] { rc = pfm_initialize(); });
    if (rc != PFM_SUCCESS)
        throw std::runtime_error(std::string("libpfm4 did not initialise: ") + pfm_strerror(rc));
}

}  // namespace

std::string encode_event(const std::string& name, perf_event_attr& attr, int plm) {
    init_pfm();
    std::memset(&attr, 0, sizeof attr);
    pfm_perf_encode_arg_t arg;
    std::memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    const int rc = pfm_get_os_event_encoding(name.c_str(), plm, PFM_OS_PERF_EVENT_EXT, &arg);
    if (rc != PFM_SUCCESS) return std::string("libpfm4: ") + pfm_strerror(rc);
    attr.size = sizeof attr;
    return "";
}

int open_perf_event(perf_event_attr& attr, int tid, int cpu) {
    return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string perf_open_error(int err) {
    switch (err) {
        case ENOENT:
        case EOPNOTSUPP:
            return "not supported by this machine's PMU (a VM often has none)";
        case EACCES:
        case EPERM:
            return "perf_event_open denied (run as root or lower "
                   "/proc/sys/kernel/perf_event_paranoid)";
        case ENOSYS:
            return "this kernel has no perf_event_open";
        default:
            return std::string("perf_event_open: ") + std::strerror(err);
    }
}

namespace {

/// Opens `name` on `tid`, counting user and kernel time, else user only.
int open_named(const std::string& name, int tid, perf_event_attr& attr, std::string& note) {
    for (int plm : {PFM_PLM0 | PFM_PLM3, PFM_PLM3}) {
        note = encode_event(name, attr, plm);
        if (!note.empty()) return -1;
        attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        const int fd = open_perf_event(attr, tid, -1);
        if (fd >= 0) return fd;
        note = perf_open_error(errno);
        if (errno != EACCES && errno != EPERM) return -1;
    }
    return -1;
}

}  // namespace

std::string probe_pmu(const std::vector<std::string>& events) {
    std::string out;
    try {
        init_pfm();
    } catch (const std::exception& e) {
        return std::string("pmus: none (") + e.what() + ")\n";
    }
    std::string pmus;
    int pmu;
    pfm_for_all_pmus(pmu) {
        pfm_pmu_info_t info;
        std::memset(&info, 0, sizeof info);
        info.size = sizeof info;
        if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(pmu), &info) == PFM_SUCCESS && info.is_present)
            pmus += (pmus.empty() ? "" : ", ") + std::string(info.name);
    }
    out += "pmus: " + (pmus.empty() ? std::string("none") : pmus) + "\n";
    const int tid = static_cast<int>(gettid());
    for (const auto& e : events) {
        perf_event_attr attr;
        std::string note;
        const int fd = open_named(e, tid, attr, note);
        if (fd >= 0) {
            close(fd);
            out += e + ": supported\n";
        } else {
            out += e + ": unsupported (" + note + ")\n";
        }
    }
    return out;
}

PerfCounters::PerfCounters(const std::vector<std::string>& events, int tid) {
    for (const auto& name : events) {
        Event ev{name, -1, ""};
        perf_event_attr attr;
        ev.fd = open_named(name, tid, attr, ev.note);
        events_.push_back(std::move(ev));
    }
}

PerfCounters::~PerfCounters() {
    for (auto& e : events_)
        if (e.fd >= 0) close(e.fd);
}

std::vector<db::PerfCounterRow> PerfCounters::read(int trial) const {
    std::vector<db::PerfCounterRow> rows;
    for (const auto& e : events_) {
        db::PerfCounterRow row{trial, e.name, false, 0, 0, 0, e.note};
        uint64_t v[3] = {};
        if (e.fd >= 0 && ::read(e.fd, v, sizeof v) == static_cast<ssize_t>(sizeof v)) {
            row.supported = true;
            row.time_enabled = v[1];
            row.time_running = v[2];
            // Multiplexed counters ran part of the time: scale to the whole.
            row.value = v[2] && v[2] < v[1] ? static_cast<uint64_t>(static_cast<double>(v[0]) *
                                                                    static_cast<double>(v[1]) /
                                                                    static_cast<double>(v[2]))
                                            : v[0];
            if (v[2] < v[1]) row.note = "multiplexed: scaled from the time it ran";
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

PerfRing::~PerfRing() {
    if (ring_) munmap(ring_, bytes_);
}

std::string PerfRing::map(int fd, size_t pages) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    bytes_ = page * (1 + pages);
    ring_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring_ != MAP_FAILED) return "";
    ring_ = nullptr;
    return std::string("cannot map the sample buffer: ") + std::strerror(errno);
}

void PerfRing::drain(const std::function<void(const perf_event_header&, const uint8_t*)>& fn) {
    if (!ring_) return;
    auto* meta = static_cast<perf_event_mmap_page*>(ring_);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const uint8_t* data = static_cast<const uint8_t*>(ring_) + page;
    const uint64_t size = bytes_ - page;
    const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = meta->data_tail;
    // Records may wrap around the end of the buffer: copy each out first.
    auto copy = [&](uint64_t at, void* dst, size_t n) {
        auto* d = static_cast<uint8_t*>(dst);
        const uint64_t from = at % size;
        const size_t first = static_cast<size_t>(std::min<uint64_t>(n, size - from));
        std::memcpy(d, data + from, first);
        std::memcpy(d + first, data, n - first);
    };
    while (tail < head) {
        perf_event_header h;
        copy(tail, &h, sizeof h);
        if (h.size < sizeof h) break;
        record_.resize(h.size);
        copy(tail, record_.data(), h.size);
        fn(h, record_.data());
        tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

PerfSampler::PerfSampler(const std::string& event, uint32_t hz, int tid) : event_(event) {
    perf_event_attr attr;
    note_ = encode_event(event, attr, PFM_PLM3);
    if (!note_.empty()) return;
    attr.freq = 1;
    attr.sample_freq = hz;
    attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.exclude_callchain_kernel = 1;
    fd_ = open_perf_event(attr, tid, -1);
    if (fd_ < 0) {
        note_ = perf_open_error(errno);
        return;
    }
    note_ = ring_.map(fd_, 64);  // 256 KiB of samples between drains
    if (!note_.empty()) {
        close(fd_);
        fd_ = -1;
    }
}

PerfSampler::~PerfSampler() {
    if (fd_ >= 0) close(fd_);
}

void PerfSampler::drain() {
    ring_.drain([&](const perf_event_header& h, const uint8_t* rec) {
        if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 16) {
            const auto* p = reinterpret_cast<const uint64_t*>(rec + sizeof h);
            const uint64_t ip = p[0];
            const uint64_t nr = std::min<uint64_t>(p[1], (h.size - sizeof h - 16) / 8);
            RawStack stack;
            for (uint64_t i = 0; i < nr; ++i)
                if (p[2 + i] < PERF_CONTEXT_MAX) stack.push_back(p[2 + i]);
            if (stack.empty()) stack.push_back(ip);
            stacks_[stack]++;
            samples_++;
        } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
            lost_ += reinterpret_cast<const uint64_t*>(rec + sizeof h)[1];
        }
    });
}

}  // namespace pathscope::capture
