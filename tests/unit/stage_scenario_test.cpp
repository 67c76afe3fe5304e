// Plugin stages in scenarios and on run's command line (capture/
// scenario_stages.h), and what the command line must allow before a
// scenario may run code or write files (capture/permissions.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <fstream>

#include "capture/permissions.h"
#include "capture/scenario.h"
#include "capture/scenario_stages.h"

using namespace pathscope;
using capture::CodePermissions;
using capture::parse_scenario;
using capture::ScenarioError;

namespace {

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "(no error)";
}

const char* kStage = R"(
[[stage]]
plugin = "plugins/libacl6.so"
after = "ip6_input"
[stage.config]
rules = ["deny sport 1000", "permit dst 2001:db8::/32"]
generate = 1000
default_deny = true
rules_file = "rules.txt"
)";

}  // namespace

TEST(StageScenario, AStageTableReadsItsPluginEdgeAndConfig) {
    const auto sc = parse_scenario(kStage, "s.toml", "/base/dir");
    ASSERT_EQ(sc.engine.stages.size(), 1u);
    const engine::StageConfig& st = sc.engine.stages[0];
    EXPECT_EQ(st.plugin, "/base/dir/plugins/libacl6.so");  // from the scenario's folder
    EXPECT_EQ(st.after, "ip6_input");
    EXPECT_EQ(st.before, "");
    EXPECT_EQ(st.base_dir, "/base/dir");
    EXPECT_EQ(st.origin, "s.toml:2");
    ASSERT_EQ(st.config.size(), 4u);  // in the order toml++ keeps a table: by key
    std::map<std::string, engine::StageSetting> by_key;
    for (const auto& c : st.config) by_key[c.key] = c;
    EXPECT_TRUE(by_key["rules"].is_text);
    EXPECT_EQ(by_key["rules"].text, "deny sport 1000\npermit dst 2001:db8::/32");
    EXPECT_EQ(by_key["generate"].number, 1000);
    EXPECT_FALSE(by_key["generate"].is_text);
    EXPECT_EQ(by_key["default_deny"].number, 1);  // true
    EXPECT_EQ(by_key["rules_file"].text, "rules.txt");
    EXPECT_EQ(capture::describe_stage(st),
              "plugin=/base/dir/plugins/libacl6.so after=ip6_input default_deny=1 generate=1000 "
              "rules=deny sport 1000\\npermit dst 2001:db8::/32 rules_file=rules.txt");
}

TEST(StageScenario, ASettingReachesAStagesConfigForAMatrix) {
    const auto sc = parse_scenario(kStage, "s.toml", "/base", {"stage.0.config.generate=10"});
    for (const auto& c : sc.engine.stages[0].config) {
        if (c.key == "generate") {
            EXPECT_EQ(c.number, 10);
        }
    }
}

TEST(StageScenario, MistakesNameTheLine) {
    auto parse = [](const std::string& text) {
        return error_of([&] { parse_scenario(text, "s.toml", "/base"); });
    };
    EXPECT_NE(parse("[[stage]]\nafter = \"ip6_input\"\n").find("s.toml:1: every [[stage]] needs 'plugin'"),
              std::string::npos);
    EXPECT_NE(parse("[[stage]]\nplugin = \"a.so\"\n").find("needs 'after'"), std::string::npos);
    EXPECT_NE(parse("[[stage]]\nplugin = \"a.so\"\nafter = \"x\"\nbefor = \"y\"\n")
                  .find("s.toml:4: unknown key 'stage.befor'"),
              std::string::npos);
    EXPECT_NE(parse("[[stage]]\nplugin = \"a.so\"\nafter = \"x\"\n[stage.config]\nk = 1.5\n")
                  .find("s.toml:5: 'stage.config.k' must be an integer"),
              std::string::npos);
    EXPECT_NE(parse("[stage]\nplugin = \"a.so\"\n").find("[[stage]] tables"), std::string::npos);
}

TEST(StageScenario, TheStageOptionTakesAFileAnEdgeAndSettings) {
    const std::string dir =
        std::filesystem::path(testing::TempDir() + "/stage_option:dir").lexically_normal().string();
    std::filesystem::create_directories(dir);
    const std::string so = dir + "/libx.so";
    std::ofstream(so) << "";
    const auto st = capture::parse_stage_option(so + ":after=ip6_input,before=ip6_lookup,n=12,mode=fast,on=true");
    EXPECT_EQ(st.plugin, so);  // a ':' in the folder's name is the file's
    EXPECT_EQ(st.after, "ip6_input");
    EXPECT_EQ(st.before, "ip6_lookup");
    EXPECT_EQ(st.origin, "--stage");
    ASSERT_EQ(st.config.size(), 3u);
    EXPECT_EQ(st.config[0].number, 12);
    EXPECT_TRUE(st.config[1].is_text);
    EXPECT_EQ(st.config[1].text, "fast");
    EXPECT_EQ(st.config[2].number, 1);
    EXPECT_NE(error_of([&] { capture::parse_stage_option(so + ":before=x"); }).find("no after=STAGE"),
              std::string::npos);
    EXPECT_NE(error_of([&] { capture::parse_stage_option("/no/such.so:after=x"); }).find("expected --stage FILE.so:after=STAGE"),
              std::string::npos);
    EXPECT_NE(error_of([&] { capture::parse_stage_option(so + ":after=x,junk"); }).find("'junk' is not KEY=VALUE"),
              std::string::npos);
}

TEST(StageScenario, CodeRunsOnlyWhereTheCommandLineSaysSo) {
    auto refused = [](const std::string& text, CodePermissions allowed) {
        return error_of([&] { capture::check_permissions(parse_scenario(text, "s.toml", "/b"), allowed); });
    };
    const std::string d = "[eal]\nargs = [\"--no-huge\", \"-d\", \"/tmp/x.so\"]\n";
    const std::string d_joined = "[eal]\nargs = [\"-d/tmp/x.so\"]\n";
    const std::string trace = "[eal]\nargs = [\"--trace-dir=/tmp/t\"]\n";
    const std::string vdev = "[eal]\nargs = [\"--vdev\", \"net_pcap9,tx_pcap=/tmp/o.pcap\"]\n";
    const std::string port = "[[port]]\nname = \"w\"\ndevice = \"net_pcap0,rx_pcap=a,tx_pcap=/etc/x\"\n";
    EXPECT_NE(refused(kStage, {}).find("s.toml:2: [[stage]] loads plugin /b/plugins/libacl6.so"), std::string::npos);
    EXPECT_NE(refused(kStage, {}).find("add --allow-plugins (or take the [[stage]] table out of "
                                       "the scenario and name the plugin yourself: --stage "
                                       "/b/plugins/libacl6.so:after=ip6_input,KEY=VALUE...)"),
              std::string::npos);
    EXPECT_NE(refused(d, {}).find("-d /tmp/x.so: DPDK loads that shared object"), std::string::npos);
    EXPECT_NE(refused(d, {}).find("--allow-eal-drivers"), std::string::npos);
    EXPECT_NE(refused(d_joined, {}).find("--allow-eal-drivers"), std::string::npos);
    EXPECT_NE(refused(trace, {}).find("--allow-file-writes"), std::string::npos);
    EXPECT_NE(refused(vdev, {}).find("--allow-file-writes"), std::string::npos);
    EXPECT_NE(refused(port, {}).find("port 'w': device \"net_pcap0,rx_pcap=a,tx_pcap=/etc/x\" writes a file"),
              std::string::npos);
    // Each option allows its own kind only.
    EXPECT_EQ(refused(kStage, {true, false, false}), "(no error)");
    EXPECT_NE(refused(d, {true, false, true}).find("--allow-eal-drivers"), std::string::npos);
    EXPECT_EQ(refused(d, {false, true, false}), "(no error)");
    EXPECT_EQ(refused(port + vdev, {false, false, true}), "(no error)");
    // A stage the command line named needs nothing more.
    auto sc = parse_scenario("", "s.toml", "/b");
    engine::StageConfig st;
    st.plugin = "/x/liby.so";
    st.after = "ip6_input";
    st.origin = "--stage";
    sc.engine.stages.push_back(st);
    EXPECT_NO_THROW(capture::check_permissions(sc, {}));
    // The samples' default needs nothing.
    EXPECT_NO_THROW(capture::check_permissions(
        capture::load_scenario(std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml"), {}));
}

TEST(StageScenario, EveryPluginSampleScenarioLoads) {
    unsigned n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(
             std::string(PATHSCOPE_SOURCE_DIR) + "/samples/plugins")) {
        if (e.path().extension() != ".toml") continue;
        const auto sc = capture::load_scenario(e.path().string());
        EXPECT_FALSE(sc.engine.stages.empty()) << e.path();
        ++n;
    }
    EXPECT_GE(n, 2u);
}
