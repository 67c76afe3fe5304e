#include "capture/scenario.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace pathscope;
using pathscope::capture::parse_scenario;
using pathscope::capture::ScenarioError;

namespace {

std::string error_of(const std::string& text) {
    try {
        parse_scenario(text, "s.toml", "/base");
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Scenario, DefaultScenarioLoads) {
    const auto cfg =
        capture::load_scenario(std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml");
    EXPECT_EQ(cfg.ports.size(), 2u);
    EXPECT_EQ(cfg.workload.kind, engine::WorkloadKind::generator);
    EXPECT_EQ(cfg.apps.size(), 2u);
    EXPECT_NE(cfg.routes_file.find("samples/routes-40k.txt"), std::string::npos);
    EXPECT_EQ(cfg.burst, 32);
}

TEST(Scenario, EverySampleScenarioLoads) {
    unsigned n = 0;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(PATHSCOPE_SOURCE_DIR) + "/samples")) {
        if (e.path().extension() != ".toml") continue;
        EXPECT_NO_THROW(capture::load_scenario(e.path().string())) << e.path();
        ++n;
    }
    EXPECT_GE(n, 2u);
}

TEST(Scenario, UnknownKeyNamesFileLineAndKey) {
    const std::string e = error_of("[engine]\nburst = 32\nburts = 64\n");
    EXPECT_NE(e.find("s.toml:3:"), std::string::npos) << e;
    EXPECT_NE(e.find("engine.burts"), std::string::npos) << e;
    EXPECT_NE(e.find("burst"), std::string::npos) << "should list the known keys: " << e;
}

TEST(Scenario, WrongTypeNamesFileLineAndKey) {
    const std::string e = error_of("\n[engine]\nduration = \"long\"\n");
    EXPECT_NE(e.find("s.toml:3:"), std::string::npos) << e;
    EXPECT_NE(e.find("engine.duration"), std::string::npos) << e;
    EXPECT_NE(e.find("number"), std::string::npos) << e;
    const std::string q = error_of("[[port]]\nname = \"a\"\nrx_queues = -1\n");
    EXPECT_NE(q.find("s.toml:3:"), std::string::npos) << q;
    EXPECT_NE(q.find("port.rx_queues"), std::string::npos) << q;
}

TEST(Scenario, BadValuesAndReferences) {
    EXPECT_NE(
        error_of("[[port]]\nname = \"a\"\naddresses = [\"2001:db8::1/200\"]\n").find("s.toml:3:"),
        std::string::npos);
    EXPECT_NE(error_of("[[nexthop]]\nid = 1\nport = \"nope\"\n").find("'nope'"), std::string::npos);
    EXPECT_NE(error_of("[workload]\nkind = \"magic\"\n").find("workload.kind"), std::string::npos);
    EXPECT_NE(error_of("[engine\n").find("s.toml:1:"), std::string::npos);  // TOML syntax error
    EXPECT_NE(error_of("bogus = 1\n").find("unknown key 'bogus'"), std::string::npos);
}

TEST(Scenario, RelativeFilesResolveAgainstTheScenarioFolder) {
    const auto cfg =
        parse_scenario("[routes]\nfile = \"r.txt\"\nnexthop = 1\n", "s.toml", "/base/dir");
    EXPECT_EQ(cfg.routes_file, "/base/dir/r.txt");
}
