#include "workload/rr_client.h"
#include "engine/tsan.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "engine/dpdk.h"
#include "engine/engine.h"
#include "workload/frame_builder.h"

namespace pathscope::engine {

namespace {

constexpr unsigned kBurst = 32;
/// Where the payload starts in a frame: the stream number (4 bytes, big
/// endian) and the request's sequence number (4 bytes) come first; the
/// server echoes them back.
constexpr size_t kPayload = kEthLen + kIp6Len + kUdpLen;
constexpr uint16_t kFirstSourcePort = 10000;

uint32_t get32(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
           static_cast<uint32_t>(p[2]) << 8 | p[3];
}
void put32(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v >> 24), p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8), p[3] = static_cast<uint8_t>(v);
}
uint16_t get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

/// The UDP checksum of a template whose sequence field was 0, with `seq`
/// written there (RFC 1624: add the new words to the complemented sum).
uint16_t checksum_with(uint16_t base, uint32_t seq) {
    uint32_t sum = static_cast<uint16_t>(~base);
    sum += seq >> 16;
    sum += seq & 0xffff;
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    const uint16_t c = static_cast<uint16_t>(~sum);
    return c ? c : 0xffff;  // 0 means "no checksum" in UDP, which IPv6 forbids
}

}  // namespace

RrClient::RrClient(Engine& engine, const RrConfig& cfg) : engine_(engine), cfg_(cfg) {
    const RingPort& rp = engine.ring_port(cfg.port);  // throws unless a ring port
    queues_ = static_cast<uint16_t>(rp.rx.size());
    if (cfg.streams == 0) throw std::runtime_error("workload.rr.streams must be 1 or more");
    if (cfg.payload < 8)
        throw std::runtime_error(
            "workload.rr.payload must be at least 8 bytes (the stream and sequence numbers)");
    frame_len_ = kPayload + cfg.payload;
    if (frame_len_ > engine.max_frame())
        throw std::runtime_error("workload.rr.payload of " + std::to_string(cfg.payload) +
                                 " bytes does not fit an mbuf");
    const PortRuntime& port = engine.context().ports[engine.port_id(cfg.port)];
    frames_.resize(frame_len_ * cfg.streams);
    checksums_.resize(cfg.streams);
    for (uint32_t i = 0; i < cfg.streams; ++i) {
        FrameSpec s;
        memcpy(s.dst_mac.data(), port.mac.addr_bytes, 6);
        s.src_mac = {0x02,
                     0x00,
                     0x01,
                     static_cast<uint8_t>(i >> 16),
                     static_cast<uint8_t>(i >> 8),
                     static_cast<uint8_t>(i)};
        // prefix + stream + 1, in the low 32 bits
        s.src = cfg.source_prefix.addr;
        put32(&s.src[12], get32(&s.src[12]) + i + 1);
        // Peers address the server as they see it: through the engine's
        // translation when engine.ila is on (the locator, or NPTv6's
        // external prefix), as it is when off (no translation deployed).
        s.dst = cfg.server;
        engine.context().wire_address(s.dst.data());
        s.src_port = static_cast<uint16_t>(kFirstSourcePort + i);
        s.dst_port = cfg.server_port;
        s.payload = cfg.payload;
        std::vector<uint8_t> f = udp6_frame(s);
        put32(&f[kPayload], i);
        put32(&f[kPayload + 4], 0);
        fix_l4_checksum(f);
        checksums_[i] = get16(&f[kEthLen + kIp6Len + 6]);
        memcpy(&frames_[i * frame_len_], f.data(), frame_len_);
    }
    streams_.resize(cfg.streams);
    due_.reserve(cfg.streams);
    for (uint32_t i = 0; i < cfg.streams; ++i) due_.push_back(i);
    timeout_cycles_ = static_cast<uint64_t>(cfg.timeout_s * static_cast<double>(rte_get_tsc_hz()));
}

RrClient::~RrClient() { stop(); }

std::vector<uint64_t> RrClient::per_stream() const {
    std::vector<uint64_t> v;
    for (const Stream& s : streams_) v.push_back(s.done);
    return v;
}

unsigned RrClient::take_responses() {
    const RingPort& rp = engine_.ring_port(cfg_.port);
    EngineContext& ctx = engine_.context();
    rte_mbuf* m[kBurst];
    unsigned completed = 0;
    for (rte_ring* r : rp.tx) {
        unsigned got;
        while ((got = rte_ring_sc_dequeue_burst(r, reinterpret_cast<void**>(m), kBurst, nullptr)) >
               0) {
            tsan_taken(m, got);  // from the worker, through the PMD's ring
            const uint64_t now = rte_rdtsc();
            for (unsigned i = 0; i < got; ++i) {
                const auto* f = rte_pktmbuf_mtod(m[i], const uint8_t*);
                const bool ours = rte_pktmbuf_data_len(m[i]) >= kPayload + 8 &&
                                  get16(f + 12) == 0x86dd && f[20] == IPPROTO_UDP &&
                                  get16(f + kEthLen + kIp6Len) == cfg_.server_port;
                const uint32_t id = ours ? get32(f + kPayload) : 0;
                if (!ours || id >= streams_.size() ||
                    get16(f + kEthLen + kIp6Len + 2) != kFirstSourcePort + id) {
                    other_.fetch_add(1, std::memory_order_relaxed);
                    continue;
                }
                Stream& s = streams_[id];
                if (!s.waiting || get32(f + kPayload + 4) != s.seq) {
                    late_.fetch_add(1, std::memory_order_relaxed);
                    continue;
                }
                s.waiting = false;
                ++s.done;
                ++completed;
                ctx.app_worker().latency.rr.record(now - s.sent_tsc);
                due_.push_back(id);  // its next request goes out in this round
            }
            rte_pktmbuf_free_bulk(m, got);
        }
    }
    if (completed) {
        ctx.app_worker().events.add(PathEvent::rr_transactions, completed);
        transactions_.fetch_add(completed, std::memory_order_relaxed);
    }
    return completed;
}

void RrClient::check_timeouts(uint64_t now) {
    // A scan of every stream, a few times per timeout: a lost request waits
    // at most about 1.25 timeouts.
    if (now < next_timeout_check_) return;
    next_timeout_check_ = now + timeout_cycles_ / 4;
    uint64_t expired = 0;
    for (uint32_t i = 0; i < streams_.size(); ++i) {
        Stream& s = streams_[i];
        if (s.waiting && now - s.sent_tsc > timeout_cycles_) {
            s.waiting = false;
            due_.push_back(i);
            ++expired;
        }
    }
    if (expired) {
        engine_.context().app_worker().events.add(PathEvent::rr_timeouts, expired);
        timeouts_.fetch_add(expired, std::memory_order_relaxed);
    }
}

void RrClient::send_due() {
    const RingPort& rp = engine_.ring_port(cfg_.port);
    size_t next = 0;
    rte_mbuf* m[kBurst];
    uint32_t ids[kBurst];
    while (next < due_.size()) {
        const unsigned want = static_cast<unsigned>(std::min<size_t>(kBurst, due_.size() - next));
        if (rte_pktmbuf_alloc_bulk(engine_.pool(), m, want) != 0) break;  // retry next round
        for (unsigned i = 0; i < want; ++i) {
            const uint32_t id = due_[next + i];
            ids[i] = id;
            uint8_t* f = rte_pktmbuf_mtod(m[i], uint8_t*);
            memcpy(f, &frames_[id * frame_len_], frame_len_);
            const uint32_t seq = ++streams_[id].seq;
            put32(f + kPayload + 4, seq);
            const uint16_t c = checksum_with(checksums_[id], seq);
            f[kEthLen + kIp6Len + 6] = static_cast<uint8_t>(c >> 8);
            f[kEthLen + kIp6Len + 7] = static_cast<uint8_t>(c);
            m[i]->data_len = static_cast<uint16_t>(frame_len_);
            m[i]->pkt_len = static_cast<uint32_t>(frame_len_);
        }
        // Each stream's flow on one receive queue, as RSS would steer it.
        unsigned put = 0;
        const uint64_t now = rte_rdtsc();
        tsan_handed_over(m, want);  // to the worker, through the PMD's ring
        if (queues_ == 1) {
            put = rte_ring_sp_enqueue_burst(rp.rx[0], reinterpret_cast<void**>(m), want, nullptr);
            for (unsigned i = 0; i < put; ++i) {
                streams_[ids[i]].sent_tsc = now;
                streams_[ids[i]].waiting = true;
            }
            if (put < want) {
                rte_pktmbuf_free_bulk(m + put, want - put);
                for (unsigned i = put; i < want; ++i) --streams_[ids[i]].seq;
            }
        } else {
            // One at a time: the rings are the wire, not what is measured.
            for (unsigned i = 0; i < want; ++i) {
                if (rte_ring_sp_enqueue(rp.rx[ids[i] % queues_], m[i]) == 0) {
                    streams_[ids[i]].sent_tsc = now;
                    streams_[ids[i]].waiting = true;
                    ++put;
                } else {
                    rte_pktmbuf_free(m[i]);
                    --streams_[ids[i]].seq;
                }
            }
        }
        requests_.fetch_add(put, std::memory_order_relaxed);
        if (put < want) {
            // A full ring: the streams not sent stay due, at the front.
            std::vector<uint32_t>::iterator out = due_.begin();
            for (unsigned i = 0; i < want; ++i)
                if (!streams_[due_[next + i]].waiting) *out++ = due_[next + i];
            for (size_t k = next + want; k < due_.size(); ++k) *out++ = due_[k];
            due_.erase(out, due_.end());
            return;
        }
        next += want;
    }
    due_.erase(due_.begin(), due_.begin() + static_cast<ptrdiff_t>(next));
}

unsigned RrClient::step() {
    const unsigned done = take_responses();
    check_timeouts(rte_rdtsc());
    send_due();
    return done;
}

void RrClient::run() {
    tid_ = static_cast<int>(rte_sys_gettid());
    rte_thread_register();
    while (!stop_.load(std::memory_order_relaxed))
        if (!step()) rte_pause();
    rte_thread_unregister();
}

void RrClient::start() {
    if (thread_.joinable()) return;
    stop_ = false;
    thread_ = std::thread([this] { run(); });
}

void RrClient::stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    tid_ = 0;
}

}  // namespace pathscope::engine

namespace pathscope::engine {

int RrClient::tid() const {
    while (thread_.joinable() && tid_.load() == 0) std::this_thread::yield();
    return tid_.load();
}

}  // namespace pathscope::engine
