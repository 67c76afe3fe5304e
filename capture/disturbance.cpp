#include "capture/disturbance.h"

#include <time.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace pathscope::capture {

namespace {

/// A thread's CPU clock, as glibc's pthread_getcpuclockid makes it from a
/// kernel thread id (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)): the kernel
/// brings a running thread's time up to date when it is read, where
/// /proc's schedstat lags by up to a scheduler tick.
clockid_t thread_cpu_clock(int tid) {
    return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6u);
}

uint64_t to_ns(const timespec& ts) {
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

/// The unsigned number at the start of `s` (after blanks), or 0.
uint64_t leading_number(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    uint64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

/// The value of "Key:" in a /proc status file.
uint64_t status_value(const std::string& text, std::string_view key) {
    const size_t at = text.find(key);
    if (at == std::string::npos) return 0;
    return leading_number(std::string_view(text).substr(at + key.size()));
}

}  // namespace

ThreadClock read_thread_clock(int tid) {
    ThreadClock c;
    timespec ts{};
    if (tid <= 0 || clock_gettime(thread_cpu_clock(tid), &ts) != 0) return c;
    c.ok = true;
    c.cpu_ns = to_ns(ts);
    const std::string task = "/proc/self/task/" + std::to_string(tid);
    // schedstat: time on the CPU, time waiting on a run queue, timeslices (ns).
    std::istringstream sched(read_file(task + "/schedstat"));
    uint64_t on_cpu = 0;
    sched >> on_cpu >> c.wait_ns;
    const std::string status = read_file(task + "/status");
    c.voluntary = status_value(status, "voluntary_ctxt_switches:");
    c.involuntary = status_value(status, "nonvoluntary_ctxt_switches:");
    // stat: the fields after the command's closing parenthesis start at
    // field 3 (state); field 39 is the CPU it last ran on.
    const std::string stat = read_file(task + "/stat");
    const size_t paren = stat.rfind(')');
    if (paren != std::string::npos) {
        std::istringstream fields(stat.substr(paren + 1));
        std::string f;
        for (int field = 3; fields >> f; ++field)
            if (field == 39) {
                int cpu = -1;
                std::from_chars(f.data(), f.data() + f.size(), cpu);
                c.cpu = cpu;
                break;
            }
    }
    return c;
}

MachineClock read_machine_clock() {
    MachineClock m;
    std::istringstream in(read_file("/proc/stat"));
    std::string cpu;
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    static const uint64_t tick_ns = 1'000'000'000ull / static_cast<uint64_t>(sysconf(_SC_CLK_TCK));
    if (cpu == "cpu") {
        m.busy_ns = (user + nice + system + irq + softirq) * tick_ns;
        m.steal_ns = steal * tick_ns;
    }
    timespec ts{};
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0) m.own_ns = to_ns(ts);
    return m;
}

DisturbanceProbe::DisturbanceProbe(std::vector<WatchedThread> threads)
    : watched_(std::move(threads)) {}

void DisturbanceProbe::start() {
    t0_ = std::chrono::steady_clock::now();
    begin_.clear();
    for (const auto& w : watched_) begin_.push_back(read_thread_clock(w.tid));
    machine_begin_ = read_machine_clock();
    started_ = true;
}

void DisturbanceProbe::stop() {
    t1_ = std::chrono::steady_clock::now();
    end_.clear();
    for (const auto& w : watched_) end_.push_back(read_thread_clock(w.tid));
    machine_end_ = read_machine_clock();
    stopped_ = started_;
}

std::vector<db::ThreadRow> DisturbanceProbe::threads(int trial) const {
    std::vector<db::ThreadRow> rows;
    if (!stopped_) return rows;
    auto delta = [](uint64_t a, uint64_t b) { return b > a ? b - a : 0; };
    for (size_t i = 0; i < watched_.size(); ++i) {
        const ThreadClock& a = begin_[i];
        const ThreadClock& b = end_[i];
        if (!a.ok || !b.ok) continue;
        db::ThreadRow r;
        r.trial = trial;
        r.role = watched_[i].role;
        r.index = watched_[i].index;
        r.tid = watched_[i].tid;
        r.cpu = b.cpu;
        r.cpu_ns = delta(a.cpu_ns, b.cpu_ns);
        r.wait_ns = delta(a.wait_ns, b.wait_ns);
        r.involuntary = delta(a.involuntary, b.involuntary);
        r.voluntary = delta(a.voluntary, b.voluntary);
        rows.push_back(std::move(r));
    }
    return rows;
}

void DisturbanceProbe::fill(db::TrialRow& t) const {
    if (!stopped_) return;
    t.window_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(t1_ - t0_).count());
    auto delta = [](uint64_t a, uint64_t b) { return b > a ? b - a : 0; };
    t.steal_ns = delta(machine_begin_.steal_ns, machine_end_.steal_ns);
    const uint64_t busy = delta(machine_begin_.busy_ns, machine_end_.busy_ns);
    const uint64_t own = delta(machine_begin_.own_ns, machine_end_.own_ns);
    t.others_ns = busy > own ? busy - own : 0;
}

}  // namespace pathscope::capture
