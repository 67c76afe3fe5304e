// Test support: one EAL per test process, and a small engine configuration
// with ring ports that tests feed and read directly.
#pragma once

#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/engine.h"
#include "workload/frame_builder.h"

namespace pathscope::test {

/// Initialises the EAL (no hugepages, no PCI, two lcores) once.
void init_eal();

/// Ports: "wire" (ring, 02:..:01, 2001:db8:1::1/64), "out" (ring, 02:..:02,
/// 2001:db8:2::1/64), "stuck" (ring that nobody drains). Next hops: 1 via out,
/// 2 via wire (2001:db8:100::/48, the peers), 3 via stuck. Routes:
/// 2001:db8:aaaa::/48 -> 1, 2001:db8:bbbb::/48 -> 3. Apps: sink on 9, echo on 7.
engine::EngineConfig ring_config();

engine::Ip6Addr ip(const char* text);

engine::PortConfig port(const std::string& name, const std::string& device, engine::MacAddr mac,
                        std::vector<engine::Prefix6> addresses);

/// A frame from the peer 2001:db8:100::5 to `dst`, for the wire port.
engine::FrameSpec from_peer(const engine::Engine& e, const char* dst, uint16_t dst_port = 9);

/// Copies frames into mbufs and enqueues them on a ring port's receive ring `queue`.
void inject(engine::Engine& e, const std::string& port,
            const std::vector<std::vector<uint8_t>>& frames, unsigned queue = 0);

/// Enqueues `frame` on a ring port's receive ring `queue` as a chain of
/// mbufs of `segment` bytes each (the last holds the rest), as a driver
/// gives a frame larger than one mbuf; `claimed_len`, when not 0, is set as
/// the frame's length instead of what the segments hold (a driver's error).
void inject_segments(engine::Engine& e, const std::string& port, const std::vector<uint8_t>& frame,
                     uint16_t segment, uint32_t claimed_len = 0, unsigned queue = 0);

/// Dequeues and returns (as bytes) everything the engine sent on a ring port.
std::vector<std::vector<uint8_t>> collect(engine::Engine& e, const std::string& port);

}  // namespace pathscope::test
