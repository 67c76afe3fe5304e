#include "capture/pcapng_writer.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <stdexcept>

namespace pathscope::capture {

namespace {

// pcapng block types and option codes (draft-ietf-opsawg-pcapng).
constexpr uint32_t kSectionHeader = 0x0A0D0D0A;
constexpr uint32_t kInterfaceDescription = 0x00000001;
constexpr uint32_t kEnhancedPacket = 0x00000006;
constexpr uint16_t kOptEnd = 0, kOptComment = 1, kOptIfName = 2, kOptIfTsresol = 9;
constexpr uint16_t kLinkEthernet = 1;

class Block {
  public:
    explicit Block(uint32_t type) : type_(type) {}
    template <typename T>
    void put(T v) {
        const auto* p = reinterpret_cast<const uint8_t*>(&v);
        body_.insert(body_.end(), p, p + sizeof v);
    }
    void bytes(const void* data, size_t n) {
        const auto* p = static_cast<const uint8_t*>(data);
        body_.insert(body_.end(), p, p + n);
        pad();
    }
    void option(uint16_t code, const void* data, size_t n) {
        put(code);
        put(static_cast<uint16_t>(n));
        bytes(data, n);
    }
    void end_options() {
        put(kOptEnd);
        put(uint16_t{0});
    }
    void write(std::ostream& out) const {
        const uint32_t total = static_cast<uint32_t>(body_.size() + 12);
        out.write(reinterpret_cast<const char*>(&type_), 4);
        out.write(reinterpret_cast<const char*>(&total), 4);
        out.write(reinterpret_cast<const char*>(body_.data()),
                  static_cast<std::streamsize>(body_.size()));
        out.write(reinterpret_cast<const char*>(&total), 4);
    }

  private:
    void pad() {
        while (body_.size() % 4) body_.push_back(0);
    }
    uint32_t type_;
    std::vector<uint8_t> body_;
};

/// Seconds since the epoch of an ISO 8601 UTC time ("2026-11-30T04:05:06Z").
double epoch_of(const std::string& iso) {
    std::tm tm{};
    if (!strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return 0;
    return static_cast<double>(timegm(&tm));
}

}  // namespace

std::string trace_comment(const db::RunInfo& run, const db::PacketTraceRow& t) {
    std::string s = "pathscope run " + std::to_string(run.id) + " trial " +
                    std::to_string(t.trial) + " trace " + std::to_string(t.seq) + ":";
    double total = 0;
    char buf[96];
    for (size_t i = 0; i < t.stage_cycles.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%s %s %.1f", i ? " +" : "", t.stage_cycles[i].first.c_str(),
                      t.stage_cycles[i].second);
        s += buf;
        total += t.stage_cycles[i].second;
    }
    std::snprintf(buf, sizeof buf, " = %.1f cycles", total);
    s += buf;
    if (!t.outcome.empty()) s += "; " + t.outcome;
    return s;
}

size_t write_pcapng(const db::RunData& run, const std::string& path) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
    Block shb(kSectionHeader);
    shb.put(uint32_t{0x1A2B3C4D});  // byte-order magic
    shb.put(uint16_t{1});
    shb.put(uint16_t{0});
    shb.put(int64_t{-1});  // section length unknown
    const std::string app =
        "pathscope run " + std::to_string(run.info.id) + " \"" + run.info.label + "\"";
    shb.option(kOptComment, app.data(), app.size());
    shb.end_options();
    shb.write(out);

    Block idb(kInterfaceDescription);
    idb.put(kLinkEthernet);
    idb.put(uint16_t{0});
    idb.put(uint32_t{0});  // no snap length limit
    const std::string ifname = "pathscope";
    idb.option(kOptIfName, ifname.data(), ifname.size());
    const uint8_t tsresol = 6;  // microseconds
    idb.option(kOptIfTsresol, &tsresol, 1);
    idb.end_options();
    idb.write(out);

    const double start = epoch_of(run.info.started_at);
    for (const auto& t : run.rows.traces) {
        // Trials start one after another; a trace's time is within its trial.
        const double when = start + t.trial * run.info.trial_seconds + t.t;
        const uint64_t us = static_cast<uint64_t>(when * 1e6);
        Block epb(kEnhancedPacket);
        epb.put(uint32_t{0});  // interface 0
        epb.put(static_cast<uint32_t>(us >> 32));
        epb.put(static_cast<uint32_t>(us & 0xffffffff));
        epb.put(static_cast<uint32_t>(t.data.size()));
        epb.put(std::max<uint32_t>(t.wire_len, static_cast<uint32_t>(t.data.size())));
        epb.bytes(t.data.data(), t.data.size());
        const std::string comment = trace_comment(run.info, t);
        epb.option(kOptComment, comment.data(), comment.size());
        epb.end_options();
        epb.write(out);
    }
    out.flush();
    if (!out) throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
    return run.rows.traces.size();
}

}  // namespace pathscope::capture
