// Sampled packet traces: now and then the worker follows the first packet of
// one graph walk through every stage and writes what each stage cost it into
// a single-producer ring that the control thread drains. The hot path pays
// one rdtsc and a compare per walk while tracing is on, nothing when off.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace pathscope::engine {

struct PacketTrace {
    static constexpr unsigned kMaxStages = 16;
    static constexpr unsigned kMaxBytes = 128;
    uint64_t tsc = 0;   ///< when the walk started
    uint16_t port = 0;  ///< DPDK port it came in on
    uint16_t wire_len = 0;
    uint16_t cap_len = 0;
    uint8_t stages = 0;
    /// How the packet left the graph, read from its metadata at the last stage.
    enum class Outcome : uint8_t { unknown, forwarded, replied, dropped } outcome = Outcome::unknown;
    uint16_t drop = 0;  ///< DropReason, when dropped
    std::array<uint16_t, kMaxStages> node{};
    /// The packet's share of each stage call: the call's cycles over the packets it handled.
    std::array<float, kMaxStages> cycles{};
    std::array<uint8_t, kMaxBytes> data{};
};

/// Single producer (the worker), single consumer (the control thread).
class TraceRing {
  public:
    static constexpr uint32_t kSize = 1024;

    /// Producer: a slot to fill, or nullptr when the ring is full.
    PacketTrace* slot() {
        const uint32_t h = head_.load(std::memory_order_relaxed);
        if (h - tail_.load(std::memory_order_acquire) >= kSize) return nullptr;
        return &ring_[h % kSize];
    }
    void publish() {
        head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }

    /// Consumer: calls f(const PacketTrace&) for every published trace.
    template <typename F>
    unsigned drain(F&& f) {
        uint32_t t = tail_.load(std::memory_order_relaxed);
        const uint32_t h = head_.load(std::memory_order_acquire);
        unsigned n = 0;
        for (; t != h; ++t, ++n) f(ring_[t % kSize]);
        tail_.store(t, std::memory_order_release);
        return n;
    }

  private:
    std::array<PacketTrace, kSize> ring_{};
    alignas(64) std::atomic<uint32_t> head_{0};
    alignas(64) std::atomic<uint32_t> tail_{0};
};

}  // namespace pathscope::engine
