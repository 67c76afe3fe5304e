// The request/response workload (workload.kind = "rr"): from its own thread,
// N remote peers behind a ring port, each sending one UDP request to the
// server and waiting for its response before the next, as netperf TCP_RR's
// streams do. Each completed transaction records its round trip (TSC cycles
// from the request's enqueue to its response's dequeue) in the engine's rr
// latency histogram and counts rr_transactions; a request unanswered within
// the timeout is sent again under a new sequence number and counts
// rr_timeouts. This thread is the only writer of those three.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "engine/config.h"

namespace pathscope::engine {

class Engine;

class RrClient {
  public:
    /// Throws std::runtime_error naming the setting at fault (a port that is
    /// not a ring port, a payload too small or too large).
    RrClient(Engine& engine, const RrConfig& cfg);
    ~RrClient();
    RrClient(const RrClient&) = delete;
    RrClient& operator=(const RrClient&) = delete;

    void start();
    void stop();
    /// Kernel thread id of its thread once started (0 before); waits until it has started.
    int tid() const;
    /// One round on the calling thread (tests; not while started): takes the
    /// responses waiting on the port, resends what timed out, sends what is
    /// due. Returns the transactions it completed.
    unsigned step();

    uint64_t requests() const { return requests_.load(std::memory_order_relaxed); }
    uint64_t transactions() const { return transactions_.load(std::memory_order_relaxed); }
    uint64_t timeouts() const { return timeouts_.load(std::memory_order_relaxed); }
    /// Responses to a request that had timed out (its resend is answered too).
    uint64_t late() const { return late_.load(std::memory_order_relaxed); }
    /// Frames from the engine that are no response of ours (ICMPv6 errors, solicitations).
    uint64_t other() const { return other_.load(std::memory_order_relaxed); }
    /// Transactions each stream completed (read it stopped).
    std::vector<uint64_t> per_stream() const;

  private:
    struct Stream {
        uint64_t sent_tsc = 0;  ///< when the request in flight was enqueued
        uint64_t done = 0;      ///< transactions completed
        uint32_t seq = 0;       ///< sequence number of the request in flight
        bool waiting = false;   ///< a request is in flight
    };
    void run();
    unsigned take_responses();
    void check_timeouts(uint64_t now);
    void send_due();

    Engine& engine_;
    RrConfig cfg_;
    uint16_t queues_ = 1;
    size_t frame_len_ = 0;
    std::vector<uint8_t> frames_;      ///< one request frame a stream, sequence number 0
    std::vector<uint16_t> checksums_;  ///< their UDP checksums (host order)
    std::vector<Stream> streams_;
    std::vector<uint32_t> due_;  ///< streams whose next request is to be sent
    uint64_t timeout_cycles_ = 0;
    uint64_t next_timeout_check_ = 0;
    std::atomic<uint64_t> requests_{0}, transactions_{0}, timeouts_{0}, late_{0}, other_{0};
    std::atomic<bool> stop_{false};
    std::thread thread_;
    std::atomic<int> tid_{0};
};

}  // namespace pathscope::engine
