// Built-in applications, polled by the worker after each graph walk: sink
// counts and discards, echo sends each datagram back, source sends
// datagrams in one of the four bind/connect combinations.
#pragma once

#include <memory>

#include "engine/config.h"
#include "engine/counters.h"
#include "engine/socket.h"

namespace pathscope::engine {

class App {
  public:
    virtual ~App() = default;
    /// Runs on the worker after each graph walk; returns the datagrams it
    /// received or sent (0: an idle poll, for the engine's busy/idle split).
    virtual unsigned poll() = 0;
};

std::unique_ptr<App> make_app(EngineContext& ctx, const AppConfig& cfg);

/// The echo application with a connected socket per client (AppConfig::connected).
std::unique_ptr<App> make_connected_echo(EngineContext& ctx, const AppConfig& cfg);

/// The source application of `cfg.source` (it must be enabled). Throws
/// std::runtime_error naming the setting when a socket call fails.
std::unique_ptr<App> make_source(EngineContext& ctx, const EngineConfig& cfg);

}  // namespace pathscope::engine
