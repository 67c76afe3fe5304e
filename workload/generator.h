// The built-in traffic generator: feeds a "ring" port from its own EAL
// thread with a configurable mix of forwarded, sink, echo and malformed
// UDP/IPv6 packets over N flows, each flow on one receive queue as RSS would
// steer it, and drains what the engine sends back.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "engine/config.h"

namespace pathscope::engine {

class Engine;

/// The malformations the generator cycles through; each ends in a known drop reason.
enum class Malformation {
    bad_version,
    truncated,
    bad_udp_checksum,
    not_ip6,
    hop_limit,
    fragment,
    hbh_not_first,
    short_udp
};
inline constexpr unsigned kMalformationCount = 8;
inline constexpr const char* kMalformationNames[kMalformationCount] = {
    "bad_version", "truncated", "bad_udp_checksum", "not_ip6",
    "hop_limit",   "fragment",  "hbh_not_first",    "short_udp"};

/// What the generator put on the port's receive rings, by kind: the good
/// frames by where they go, the malformed ones by their malformation (a frame
/// the rings refused is not counted: the engine never saw it).
struct GeneratedMix {
    uint64_t forward = 0;  ///< well-formed, to a routed destination
    uint64_t sink = 0;     ///< well-formed, to the sink application
    uint64_t echo = 0;     ///< well-formed, to the echo application
    std::array<uint64_t, kMalformationCount> malformed{};  ///< indexed by Malformation

    uint64_t good() const { return forward + sink + echo; }
    uint64_t total_malformed() const {
        uint64_t t = 0;
        for (auto n : malformed) t += n;
        return t;
    }
    uint64_t total() const { return good() + total_malformed(); }
};

class Generator {
  public:
    Generator(Engine& engine, const GeneratorConfig& cfg, const std::vector<Prefix6>& routes);
    ~Generator();

    void start();
    void stop();
    /// Kernel thread id of its thread once started (0 before); waits until it has started.
    int tid() const;
    /// Builds and enqueues up to n packets on the calling thread (tests); returns how many went in.
    uint64_t inject(uint64_t n);
    /// Frees what the engine transmitted on the port; returns how many.
    uint64_t drain();

    uint64_t generated() const { return generated_.load(std::memory_order_relaxed); }
    uint64_t returned() const { return returned_.load(std::memory_order_relaxed); }
    /// generated(), by kind (read while the generator runs, kinds may lag each other by a burst).
    GeneratedMix mix() const;

  private:
    void run();

    Engine& engine_;
    GeneratorConfig cfg_;
    /// A prepared frame and the receive queue its flow hashes to (flow
    /// modulo the queue count, as an RSS indirection table would spread it).
    struct Template {
        std::vector<uint8_t> frame;
        uint16_t queue = 0;
        uint8_t kind = 0;  ///< a Malformation, or kForward, kSink, kEcho
    };
    static constexpr uint8_t kForward = kMalformationCount, kSink = kForward + 1,
                             kEcho = kForward + 2, kKinds = kForward + 3;
    std::vector<Template> templates_;
    size_t next_ = 0;
    std::atomic<uint64_t> generated_{0};
    std::atomic<uint64_t> returned_{0};
    std::array<std::atomic<uint64_t>, kKinds> by_kind_{};
    std::atomic<bool> stop_{false};
    std::thread thread_;
    std::atomic<int> tid_{0};
};

}  // namespace pathscope::engine
