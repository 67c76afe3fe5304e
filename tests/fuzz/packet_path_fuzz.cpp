// libFuzzer target for the whole receive path. An input is a capture file
// (pcap or pcapng), so the tcpdump captures in ../shared/corpus/pcap are the
// seeds as they are; every frame in it goes through the engine on a ring port
// and the receive ledger must balance after each input (counting the packets
// that wait in the neighbour table for an address nobody answers for).
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   mkdir -p /tmp/fuzz-corpus
//   build/fuzz/tests/fuzz/packet_path_fuzz /tmp/fuzz-corpus ../shared/corpus/pcap
//   -max_total_time=60
#include <pcap/pcap.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/dpdk.h"
#include "engine/engine.h"
#include "tests/engine/eal_env.h"

using namespace pathscope;
using namespace pathscope::engine;

namespace {
Engine* g_engine = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    test::init_eal();
    EngineConfig cfg = test::ring_config();
    cfg.icmp_errors_per_s = 1000000;  // let every error path run
    g_engine = new Engine(cfg);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FILE* f = fmemopen(const_cast<uint8_t*>(data), size, "rb");
    if (!f) return 0;
    char err[PCAP_ERRBUF_SIZE];
    pcap_t* p = pcap_fopen_offline(f, err);  // takes the FILE
    if (!p) return 0;
    const RingPort& wire = g_engine->ring_port("wire");
    const uint64_t before = g_engine->snapshot().ledger.received;
    uint64_t injected = 0;
    pcap_pkthdr* hdr;
    const u_char* bytes;
    while (injected < 256 && pcap_next_ex(p, &hdr, &bytes) == 1) {
        rte_mbuf* m = rte_pktmbuf_alloc(g_engine->pool());
        if (!m) break;
        const uint32_t len = std::min<uint32_t>(hdr->caplen, rte_pktmbuf_tailroom(m));
        memcpy(rte_pktmbuf_mtod(m, void*), bytes, len);
        m->data_len = static_cast<uint16_t>(len);
        m->pkt_len = len;
        if (rte_ring_enqueue(wire.rx[0], m) != 0) {
            rte_pktmbuf_free(m);
            break;
        }
        ++injected;
    }
    pcap_close(p);
    g_engine->run_until_idle(4);
    test::collect(*g_engine, "wire");
    test::collect(*g_engine, "out");
    test::collect(*g_engine, "stuck");
    const EngineSnapshot snap = g_engine->snapshot(false);
    const Ledger& l = snap.ledger;
    // A packet for an on-link address nobody answers for waits in the
    // neighbour table (the engine runs on; stop() would drop it as
    // nd_pending_at_stop): it is not in the ledger yet. What the table let
    // go is not told apart from the solicitations it sends, so every packet
    // ever put there bounds what may be waiting.
    uint64_t held = 0;
    for (const auto& e : snap.edges)
        if (e.to == kNeighbourTable) held += e.packets;
    const uint64_t outcomes = l.delivered + l.forwarded + l.replied + l.total_drops();
    if (l.received - before != injected || outcomes > l.received ||
        l.received > outcomes + held) {
        std::fprintf(stderr,
                     "ledger broken: injected %llu, received %llu (in all %llu = delivered %llu "
                     "+ forwarded %llu + replied %llu + dropped %llu + at most held for a neighbour %llu?)\n",
                     static_cast<unsigned long long>(injected),
                     static_cast<unsigned long long>(l.received - before),
                     static_cast<unsigned long long>(l.received),
                     static_cast<unsigned long long>(l.delivered),
                     static_cast<unsigned long long>(l.forwarded),
                     static_cast<unsigned long long>(l.replied),
                     static_cast<unsigned long long>(l.total_drops()),
                     static_cast<unsigned long long>(held));
        for (const auto& e : snap.edges)
            std::fprintf(stderr, "  edge %s -> %s: %llu\n", e.from.c_str(), e.to.c_str(),
                         static_cast<unsigned long long>(e.packets));
        std::abort();
    }
    return 0;
}
