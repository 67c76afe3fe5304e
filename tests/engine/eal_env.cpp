#include "tests/engine/eal_env.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "engine/dpdk.h"
#include "engine/tsan.h"
#include "engine/eal.h"
#include "engine/routes.h"

namespace pathscope::test {

using namespace engine;

void init_eal() {
    eal_init({"--no-huge", "-m", "1024", "--no-pci", "--no-shconf", "-l", "0-1", "--log-level",
              "lib.*:error", "--log-level", "pmd.*:error"});
}

Ip6Addr ip(const char* text) { return *parse_ip6(text); }

PortConfig port(const std::string& name, const std::string& device, MacAddr mac,
                std::vector<Prefix6> addresses) {
    PortConfig p;
    p.name = name;
    p.device = device;
    p.mac = mac;
    p.addresses = std::move(addresses);
    return p;
}

EngineConfig ring_config() {
    EngineConfig c;
    c.mbufs = 16383;
    c.icmp_errors_per_s = 0;
    c.ports = {port("wire", "ring", {2, 0, 0, 0, 0, 1}, {{ip("2001:db8:1::1"), 64}}),
               port("out", "ring", {2, 0, 0, 0, 0, 2}, {{ip("2001:db8:2::1"), 64}}),
               port("stuck", "ring", {2, 0, 0, 0, 0, 3}, {})};
    c.ports[2].poll = false;
    c.nexthops = {{1, "out", {2, 0, 0, 0, 0, 0xfe}},
                  {2, "wire", {2, 0, 0, 0, 0, 0x10}},
                  {3, "stuck", {2, 0, 0, 0, 0, 0xfd}}};
    c.routes = {{*parse_prefix6("2001:db8:aaaa::/48"), 1},
                {*parse_prefix6("2001:db8:100::/48"), 2},
                {*parse_prefix6("2001:db8:bbbb::/48"), 3}};
    c.apps = {{AppKind::sink, 9}, {AppKind::echo, 7}};
    return c;
}

FrameSpec from_peer(const Engine& e, const char* dst, uint16_t dst_port) {
    FrameSpec s;
    const auto& port = const_cast<Engine&>(e).context().ports[e.port_id("wire")];
    memcpy(s.dst_mac.data(), port.mac.addr_bytes, 6);
    s.src = ip("2001:db8:100::5");
    s.dst = ip(dst);
    s.src_port = 5555;
    s.dst_port = dst_port;
    return s;
}

void inject(Engine& e, const std::string& port, const std::vector<std::vector<uint8_t>>& frames,
            unsigned queue) {
    for (const auto& f : frames)
        if (!e.inject(port, f.data(), f.size(), queue))
            throw std::runtime_error("test: mempool or receive ring full");
}

void inject_segments(Engine& e, const std::string& port, const std::vector<uint8_t>& frame,
                     uint16_t segment, uint32_t claimed_len, unsigned queue) {
    rte_mbuf* head = nullptr;
    rte_mbuf* last = nullptr;
    for (size_t at = 0; at < frame.size(); at += segment) {
        rte_mbuf* m = rte_pktmbuf_alloc(e.pool());
        if (!m) throw std::runtime_error("test: mempool empty");
        const uint16_t n = static_cast<uint16_t>(std::min<size_t>(segment, frame.size() - at));
        memcpy(rte_pktmbuf_append(m, n), frame.data() + at, n);
        if (!head) {
            head = m;
        } else {
            last->next = m;
            head->nb_segs++;
            head->pkt_len += n;
        }
        last = m;
    }
    if (claimed_len) head->pkt_len = claimed_len;
    tsan_handed_over(head);  // to the worker, through the PMD's ring
    if (rte_ring_enqueue(e.ring_port(port).rx.at(queue), head) != 0) {
        rte_pktmbuf_free(head);
        throw std::runtime_error("test: receive ring full");
    }
}

std::vector<std::vector<uint8_t>> collect(Engine& e, const std::string& port) {
    std::vector<std::vector<uint8_t>> out;
    const RingPort& rp = e.ring_port(port);
    rte_mbuf* m;
    for (rte_ring* r : rp.tx) {
        while (rte_ring_dequeue(r, reinterpret_cast<void**>(&m)) == 0) {
            tsan_taken(m);  // from the worker, through the PMD's ring
            std::vector<uint8_t> bytes(rte_pktmbuf_pkt_len(m));
            // rte_pktmbuf_read returns a pointer into the mbuf when the data is contiguous.
            const void* p =
                rte_pktmbuf_read(m, 0, static_cast<uint32_t>(bytes.size()), bytes.data());
            if (p && p != bytes.data()) memcpy(bytes.data(), p, bytes.size());
            out.push_back(std::move(bytes));
            rte_pktmbuf_free(m);
        }
    }
    return out;
}

}  // namespace pathscope::test
