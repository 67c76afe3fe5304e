// Built-in applications on the receive side, polled by the worker after each
// graph walk: sink counts and discards, echo sends each datagram back.
#pragma once

#include <memory>

#include "engine/config.h"
#include "engine/counters.h"
#include "engine/socket.h"

namespace pathscope::engine {

class App {
  public:
    virtual ~App() = default;
    virtual void poll() = 0;
};

std::unique_ptr<App> make_app(EngineContext& ctx, const AppConfig& cfg);

}  // namespace pathscope::engine
