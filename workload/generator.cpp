#include "workload/generator.h"
#include "engine/tsan.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>

#include "engine/dpdk.h"
#include "engine/engine.h"
#include "workload/frame_builder.h"

namespace pathscope::engine {

namespace {

constexpr size_t kTemplates = 1000;
constexpr unsigned kBurst = 32;

void break_frame(std::vector<uint8_t>& f, Malformation how) {
    switch (how) {
        case Malformation::bad_version:
            f[14] = 0x40;
            break;
        case Malformation::truncated:
            f[18] = 0x05;
            break;  // payload length far past the frame
        case Malformation::bad_udp_checksum:
            f[kEthLen + kIp6Len + 6] ^= 0x5a;
            break;
        case Malformation::not_ip6:
            f[12] = 0x08, f[13] = 0x00;
            break;
        case Malformation::hop_limit:
            f[21] = 1, fix_l4_checksum(f);
            break;
        case Malformation::fragment:
            f[20] = 44;
            break;
        case Malformation::hbh_not_first: {
            // Destination options header, then hop-by-hop: illegal order.
            std::vector<uint8_t> ext = {0, 0, 1, 4, 0, 0, 0, 0, 17, 0, 1, 4, 0, 0, 0, 0};
            ext[0] = 0;  // next: hop-by-hop
            f[20] = 60;  // first: destination options
            f.insert(f.begin() + kEthLen + kIp6Len, ext.begin(), ext.end());
            const uint16_t plen = static_cast<uint16_t>(f.size() - kEthLen - kIp6Len);
            f[18] = static_cast<uint8_t>(plen >> 8), f[19] = static_cast<uint8_t>(plen);
            break;
        }
        case Malformation::short_udp:
            f[kEthLen + kIp6Len + 5] = 3;
            break;  // UDP length 3
    }
}

}  // namespace

Generator::Generator(Engine& engine, const GeneratorConfig& cfg, const std::vector<Prefix6>& routes)
    : engine_(engine), cfg_(cfg) {
    const uint16_t port_id = engine.port_id(cfg.port);
    const size_t queues = engine.ring_port(cfg.port).rx.size();  // throws unless a ring port
    const PortRuntime& port = engine.context().ports[port_id];
    if (port.addresses.empty())
        throw std::runtime_error("generator port '" + cfg.port + "' has no address");
    if (cfg.frame_size < kEthLen + kIp6Len + kUdpLen)
        throw std::runtime_error("workload.frame_size must be at least 62 bytes");
    uint16_t sink_port = 0, echo_port = 0;
    for (const auto& a : engine.config().apps) {
        if (a.kind == AppKind::sink && !sink_port) sink_port = a.port;
        if (a.kind == AppKind::echo && !echo_port) echo_port = a.port;
    }
    std::mt19937_64 rng(42);
    const Malformation kinds[] = {Malformation::bad_version,      Malformation::truncated,
                                  Malformation::bad_udp_checksum, Malformation::not_ip6,
                                  Malformation::hop_limit,        Malformation::fragment,
                                  Malformation::hbh_not_first,    Malformation::short_udp};
    unsigned malformed_serial = 0;
    const uint32_t flows = std::max<uint32_t>(cfg.flows, 1);
    for (size_t i = 0; i < kTemplates; ++i) {
        const uint32_t flow = static_cast<uint32_t>(i % flows);
        FrameSpec s;
        memcpy(s.dst_mac.data(), port.mac.addr_bytes, 6);
        s.src_mac = {0x02,
                     0x00,
                     0x00,
                     static_cast<uint8_t>(flow >> 16),
                     static_cast<uint8_t>(flow >> 8),
                     static_cast<uint8_t>(flow)};
        s.src = cfg.source_prefix.addr;
        s.src[12] = static_cast<uint8_t>(flow >> 24), s.src[13] = static_cast<uint8_t>(flow >> 16);
        s.src[14] = static_cast<uint8_t>(flow >> 8), s.src[15] = static_cast<uint8_t>(flow | 1);
        s.src_port = static_cast<uint16_t>(1024 + flow % 60000);
        s.payload = static_cast<uint16_t>(cfg.frame_size - kEthLen - kIp6Len - kUdpLen);
        // Pick the kind by position so the mix is exact over the template set.
        const unsigned pct = static_cast<unsigned>(i * 100 / kTemplates);
        const bool malformed = pct < cfg.malformed_percent;
        const Malformation how = kinds[malformed_serial % std::size(kinds)];
        // UDP-level damage only shows on local delivery; the rest travels the forward path.
        const bool local_damage =
            how == Malformation::bad_udp_checksum || how == Malformation::short_udp;
        const bool to_sink = ((malformed && local_damage) ||
                              (!malformed && pct < cfg.malformed_percent + cfg.sink_percent)) &&
                             sink_port;
        const bool to_echo = !malformed && !to_sink &&
                             pct < cfg.malformed_percent + cfg.sink_percent + cfg.echo_percent &&
                             echo_port;
        if (to_sink || to_echo) {
            s.dst = port.addresses[0];
            s.dst_port = to_sink ? sink_port : echo_port;
        } else {
            if (routes.empty())
                throw std::runtime_error("the generator needs routes for forwarded traffic");
            const Prefix6& r = routes[rng() % routes.size()];
            s.dst = r.addr;
            for (int b = r.len; b < 128; ++b)
                if (rng() & 1) s.dst[b / 8] |= static_cast<uint8_t>(0x80u >> (b % 8));
            s.dst_port = 4789;
        }
        auto f = udp6_frame(s);
        if (malformed) {
            break_frame(f, how);
            ++malformed_serial;
        }
        const uint8_t kind = malformed ? static_cast<uint8_t>(how)
                             : to_sink ? kSink
                             : to_echo ? kEcho
                                       : kForward;
        templates_.push_back({std::move(f), static_cast<uint16_t>(flow % queues), kind});
    }
    std::shuffle(templates_.begin(), templates_.end(), rng);
}

Generator::~Generator() { stop(); }

uint64_t Generator::inject(uint64_t n) {
    const RingPort& rp = engine_.ring_port(cfg_.port);
    rte_mbuf* m[kBurst];
    rte_mbuf* grouped[kBurst];
    uint16_t queue_of[kBurst];
    uint8_t kind_of[kBurst], grouped_kind[kBurst];
    uint64_t done = 0;
    while (done < n) {
        const unsigned want = static_cast<unsigned>(std::min<uint64_t>(kBurst, n - done));
        if (rte_pktmbuf_alloc_bulk(engine_.pool(), m, want) != 0) break;
        for (unsigned i = 0; i < want; ++i) {
            const Template& t = templates_[next_];
            next_ = next_ + 1 == templates_.size() ? 0 : next_ + 1;
            memcpy(rte_pktmbuf_mtod(m[i], void*), t.frame.data(), t.frame.size());
            m[i]->data_len = static_cast<uint16_t>(t.frame.size());
            m[i]->pkt_len = static_cast<uint32_t>(t.frame.size());
            queue_of[i] = t.queue;
            kind_of[i] = t.kind;
        }
        uint32_t counted[kKinds] = {};
        // Each queue gets its flows' packets of this burst, in order (with one
        // queue, the whole burst as it is).
        unsigned in = 0;
        bool full = false;
        const bool one_queue = rp.rx.size() == 1;
        for (size_t q = 0; q < rp.rx.size(); ++q) {
            unsigned k = one_queue ? want : 0;
            rte_mbuf** group = one_queue ? m : grouped;
            const uint8_t* group_kind = one_queue ? kind_of : grouped_kind;
            for (unsigned i = 0; !one_queue && i < want; ++i)
                if (queue_of[i] == q) grouped_kind[k] = kind_of[i], grouped[k++] = m[i];
            if (k == 0) continue;
            tsan_handed_over(group, k);  // to the worker, through the PMD's ring
            const unsigned put = rte_ring_sp_enqueue_burst(
                rp.rx[q], reinterpret_cast<void**>(group), k, nullptr);
            for (unsigned i = 0; i < put; ++i) ++counted[group_kind[i]];
            if (put < k) {
                rte_pktmbuf_free_bulk(group + put, k - put);
                full = true;
            }
            in += put;
        }
        done += in;
        for (unsigned kind = 0; kind < kKinds; ++kind)
            if (counted[kind]) by_kind_[kind].fetch_add(counted[kind], std::memory_order_relaxed);
        generated_.fetch_add(in, std::memory_order_relaxed);
        if (full) break;  // the engine is behind: let the caller decide
    }
    return done;
}

GeneratedMix Generator::mix() const {
    GeneratedMix mix;
    for (unsigned kind = 0; kind < kMalformationCount; ++kind)
        mix.malformed[kind] = by_kind_[kind].load(std::memory_order_relaxed);
    mix.forward = by_kind_[kForward].load(std::memory_order_relaxed);
    mix.sink = by_kind_[kSink].load(std::memory_order_relaxed);
    mix.echo = by_kind_[kEcho].load(std::memory_order_relaxed);
    return mix;
}

uint64_t Generator::drain() {
    const RingPort& rp = engine_.ring_port(cfg_.port);
    rte_mbuf* m[kBurst];
    uint64_t total = 0;
    for (rte_ring* r : rp.tx) {
        unsigned got;
        while ((got = rte_ring_sc_dequeue_burst(r, reinterpret_cast<void**>(m), kBurst, nullptr)) >
               0) {
            tsan_taken(m, got);  // from the worker, through the PMD's ring
            rte_pktmbuf_free_bulk(m, got);
            total += got;
        }
    }
    returned_.fetch_add(total, std::memory_order_relaxed);
    return total;
}

void Generator::run() {
    tid_ = static_cast<int>(rte_sys_gettid());
    rte_thread_register();
    while (!stop_.load(std::memory_order_relaxed)) {
        if (cfg_.packets && generated() >= cfg_.packets) {
            drain();
            rte_pause();
            continue;
        }
        const uint64_t want =
            cfg_.packets ? std::min<uint64_t>(kBurst * 8, cfg_.packets - generated()) : kBurst * 8;
        if (inject(want) < want) rte_pause();
        drain();
    }
    drain();
    rte_thread_unregister();
}

void Generator::start() {
    if (thread_.joinable()) return;
    stop_ = false;
    thread_ = std::thread([this] { run(); });
}

void Generator::stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    tid_ = 0;
}

}  // namespace pathscope::engine

namespace pathscope::engine {

int Generator::tid() const {
    while (thread_.joinable() && tid_.load() == 0) std::this_thread::yield();
    return tid_.load();
}

}  // namespace pathscope::engine
