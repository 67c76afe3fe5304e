// What pathscope does with a capture file, for pcap_file_fuzz and
// pcap_records_fuzz: the pcap workload's probe (probe_ethernet_capture, run
// before net_pcap replays the file) and `pathscope import pcap`'s reading
// (read_capture: libpcap, the link-layer adapters, the summary's IPv6 walk,
// and the engine's parser on every frame). A bad file may be refused with an
// exception that names it; it must never crash, and the engine's receive
// ledger must balance after every file.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "capture/pcap_import.h"
#include "capture/pcap_probe.h"
#include "engine/eal.h"
#include "engine/engine.h"
#include "tests/fuzz/fuzz_file.h"

namespace pathscope::fuzz {

inline engine::Engine& import_engine() {
    static std::unique_ptr<engine::Engine> e = [] {
        const engine::EngineConfig cfg = capture::import_engine_config();
        engine::eal_init(cfg.eal_args);
        return std::make_unique<engine::Engine>(cfg);
    }();
    return *e;
}

/// Refusals must name the file they refuse.
inline void check_message(const std::exception& e, const std::string& path) {
    if (std::string(e.what()).find(path) == std::string::npos) {
        std::fprintf(stderr, "an error that does not name the file: %s\n", e.what());
        std::abort();
    }
}

inline void read_capture_file(const uint8_t* data, size_t size) {
    engine::Engine& engine = import_engine();
    const MemFile f(data, size);
    try {
        capture::probe_ethernet_capture(f.path());
    } catch (const std::runtime_error& e) {
        check_message(e, f.path());
    }
    try {
        capture::read_capture(f.path(), engine);
    } catch (const std::runtime_error& e) {
        check_message(e, f.path());
    }
    const engine::Ledger l = engine.snapshot().ledger;
    if (!l.balanced()) {
        std::fprintf(stderr, "the import engine's ledger does not balance after this input\n");
        std::abort();
    }
}

}  // namespace pathscope::fuzz
