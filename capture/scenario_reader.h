// parse_scenario's sections, one function each. A ScenarioReader holds what
// they share: the parsed file, its name (errors name it) and folder (file
// names in it are taken from there), and the scenario being filled. read()
// reads the sections in a fixed order, so that a scenario with several
// faults always reports the same one first.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "capture/scenario.h"
#include "capture/scenario_section.h"

namespace pathscope::capture {

class ScenarioReader {
  public:
    ScenarioReader(const toml::table& root, const Section& top, const std::string& name,
                   const std::string& base_dir, Scenario& scenario)
        : root(root), top(top), name(name), base_dir(base_dir), scenario(scenario),
          cfg(scenario.engine) {}

    /// Every engine section, [eal] to [socket] ([target] and [linux]: parse_target).
    void read();

  private:
    // scenario_engine.cpp: the EAL, the capture, the engine and its tables.
    void eal(const toml::table* t);
    void capture_settings(const toml::table* t);
    void engine(const toml::table* t);
    void port(const toml::table* t);
    void nexthop(const toml::table* t);
    void route(const toml::table* t);
    void rule(const toml::table* t);
    void routes_file(const toml::table* t);
    // scenario_traffic.cpp: translation, applications and what drives them.
    void ila_map(const toml::table* t);
    void nptv6(const toml::table* t);
    void check_ila() const;
    void app(const toml::table* t);
    void workload(const toml::table* t);
    void source(const toml::table* t);
    void socket(const toml::table* t);

    /// Fails unless a [[port]] is named `port` (the value of `t`'s key `k`).
    void known_port(const Section& s, const toml::table& t, const std::string& port,
                    const char* k) const;

    const toml::table& root;
    const Section& top;
    const std::string& name;
    const std::string& base_dir;
    Scenario& scenario;
    engine::EngineConfig& cfg;
};

}  // namespace pathscope::capture
