#include "capture/scenario_section.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "engine/config.h"
#include "engine/neighbours.h"
#include "workload/frame_builder.h"  // the headers' lengths: workload.frame_size's least

namespace pathscope::capture {

namespace {

constexpr double kInt64Max = static_cast<double>(std::numeric_limits<int64_t>::max());

/// Every numeric setting, checked here and nowhere else: the file, --set
/// and the run verb's own options (--duration, --trials) all come through
/// check_setting, so a value gets the same answer whichever way it came.
constexpr SettingRange kRanges[] = {
    {"capture.trials", 1, 1000, "trials"},
    {"capture.interval", 0.01, 60, "seconds"},
    // The kernel's own limit (perf_event_max_sample_rate) is checked when
    // the run starts; this is the most any kernel is asked for.
    {"capture.sample_hz", 0, 1e6, "samples a second"},
    {"capture.traces_per_s", 0, 1e6, "traces a second"},
    {"capture.max_disturbance", 0.1, 100, "% of the window"},
    {"capture.max_trials", 3, 1000, "trials"},
    {"capture.target_half_width", 0.01, 100, "% of the baseline mean"},
    {"capture.retry_disturbed", 0, 20, "re-runs a trial"},
    {"engine.burst", 1, 256, "packets"},
    {"engine.duration", 0.01, 86400, "seconds"},
    {"engine.mbufs", 1024, 1 << 26, "buffers"},
    {"engine.workers", 1, 32, "worker lcores"},
    {"engine.icmp_errors_per_s", 0, 1e9, "errors a second"},
    {"engine.ifaddr_churn", 0, 1e6, "changes a second"},
    {"engine.nd_hold", 0, engine::PendingNeighbours::kMaxHold, "packets"},
    {"engine.nd_probes", 1, 255, "solicitations"},
    {"engine.nd_retrans", 0.001, 3600, "seconds"},
    {"engine.extra_work", 0, 1e6, "cycles a packet"},
    {"engine.interrupted_call_us", 0, 1e6, "microseconds (0: keep every call)"},
    // DPDK's RTE_MAX_QUEUES_PER_PORT; a device may allow fewer, which the
    // run finds out before it creates a run.
    {"port.rx_queues", 0, 1024, "queues (0: a port that only sends, poll = false)"},
    {"port.tx_queues", 1, 1024, "queues"},
    {"nexthop.id", 1, std::numeric_limits<uint32_t>::max(), ""},
    {"route.nexthop", 0, std::numeric_limits<uint32_t>::max(), ""},
    // Linux's table ids: 1 to 2^32-1 (0 is RT_TABLE_UNSPEC); 255 local, 254 main, 253 default.
    {"route.table", 1, std::numeric_limits<uint32_t>::max(), ""},
    {"rule.priority", 0, std::numeric_limits<uint32_t>::max(), ""},
    {"rule.table", 1, std::numeric_limits<uint32_t>::max(), ""},
    {"routes.nexthop", 0, std::numeric_limits<uint32_t>::max(), ""},
    {"routes.generate", 0, 10'000'000, "routes"},
    {"routes.seed", 0, kInt64Max, ""},
    {"app.port", 1, 65535, ""},
    // Each client socket is two rings (memzones); the EAL has 2560 of them.
    {"app.max_clients", 1, 1024, "sockets"},
    {"workload.flows", 1, 1 << 24, "flows"},  // 24 bits of the source MAC
    // The headers at least; an mbuf's data room (2048 bytes) at most.
    {"workload.frame_size", engine::kEthLen + engine::kIp6Len + engine::kUdpLen, 2048, "bytes"},
    {"workload.sink_percent", 0, 100, "%"},
    {"workload.echo_percent", 0, 100, "%"},
    {"workload.malformed_percent", 0, 100, "%"},
    {"workload.packets", 0, kInt64Max, "packets"},
    // Each stream is a client socket of the server (see app.max_clients).
    {"workload.rr.streams", 1, 1024, "streams"},
    {"workload.rr.port", 1, 65535, ""},
    // The stream and sequence numbers at least; a 1500-byte MTU at most.
    {"workload.rr.payload", 8, 1400, "bytes"},
    {"workload.rr.timeout", 0.0001, 10, "seconds"},
    {"source.destinations", 1, 4096, "addresses"},
    {"source.port", 1, 65535, ""},
    {"source.local_port", 1, 65535, ""},
    {"source.payload", 0, 1400, "bytes"},
    {"source.rate", 0, 1e9, "datagrams a second"},
    {"source.batch", 1, 256, "datagrams"},
    {"socket.hop_limit", 1, 255, ""},
    {"socket.traffic_class", 0, 255, ""},
    {"socket.flow_label", 0, 0xfffff, ""},
    {"linux.sender_cpu", -1, 1023, "(a CPU number; -1: not pinned)"},
    {"linux.receiver_cpu", -1, 1023, "(a CPU number; -1: not pinned)"},
    {"linux.rr_streams", 1, 1024, "streams"},
    {"linux.rr_payload", 8, 1400, "bytes"},
    {"linux.rr_port", 1, 65535, ""},
    {"linux.rr_timeout", 0.001, 10, "seconds"},
};

/// Edits (insert, delete, replace, swap of neighbours) between two keys.
size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                                d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

}  // namespace

const SettingRange* find_range(const std::string& key) {
    for (const auto& r : kRanges)
        if (key == r.key) return &r;
    return nullptr;
}

std::string setting_number_text(double v) {
    std::ostringstream out;
    out.precision(15);
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        out << static_cast<int64_t>(v);
    else
        out << v;
    return out.str();
}

std::string nearest(const std::string& typo, const std::vector<std::string>& known) {
    std::string best;
    size_t best_d = std::max<size_t>(1, typo.size() / 3) + 1;
    for (const auto& k : known)
        if (const size_t d = edit_distance(typo, k); d < best_d) best = k, best_d = d;
    return best;
}

std::string check_setting(const std::string& key, double value) {
    const SettingRange* r = find_range(key);
    if (!r) throw std::logic_error("scenario: no range for '" + key + "' in kRanges");
    if (value >= r->min && value <= r->max) return "";  // false for NaN too
    return "'" + key + "' must be between " + setting_number_text(r->min) + " and " +
           setting_number_text(r->max) + (*r->unit ? " " : "") + r->unit + ", not " + setting_number_text(value);
}

}  // namespace pathscope::capture
