// Plugin stages (engine/plugins/, include/pathscope/stage.h) in a real
// engine: spliced into their edge with every counter a built-in stage has,
// the built-in path back when the engine goes, and each way a plugin can be
// wrong refused with a message naming it. The plugins are tests/plugins/
// and the samples (samples/plugins/), built as users build theirs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "engine/drop_names.h"
#include "engine/eal.h"
#include "engine/engine.h"
#include "workload/frame_builder.h"
#include "engine/plugins/plugin_library.h"
#include "tests/engine/eal_env.h"

using namespace pathscope;
using namespace pathscope::engine;

namespace {

std::string plugin(const std::string& name) {
    return std::string(PATHSCOPE_TEST_PLUGIN_DIR) + "/lib" + name + ".so";
}
std::string sample(const std::string& name) {
    return std::string(PATHSCOPE_SAMPLE_PLUGIN_DIR) + "/lib" + name + ".so";
}

StageConfig stage(const std::string& so, const std::string& after, const std::string& before = "") {
    StageConfig s;
    s.plugin = so;
    s.after = after;
    s.before = before;
    s.origin = "plugin_test";
    return s;
}

class Plugins : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        // The main lcore and two workers (one test runs two).
        eal_init({"--no-huge", "-m", "1024", "--no-pci", "--no-shconf", "--lcores",
                  "0@(0-1),1@0,2@1", "--log-level", "lib.*:error", "--log-level", "pmd.*:error"});
    }
};

std::vector<std::vector<uint8_t>> forward_frames(const Engine& eng, unsigned n, uint16_t first_port = 1000) {
    std::vector<std::vector<uint8_t>> frames;
    for (unsigned i = 0; i < n; ++i) {
        FrameSpec s = test::from_peer(eng, "2001:db8:aaaa::1");
        s.src_port = static_cast<uint16_t>(first_port + i);
        frames.push_back(udp6_frame(s));
    }
    return frames;
}

std::vector<std::string> stage_names(const EngineSnapshot& s) {
    std::vector<std::string> names;
    for (const auto& st : s.stages) names.push_back(st.name);
    return names;
}

uint64_t edge(const EngineSnapshot& s, const std::string& from, const std::string& to) {
    for (const auto& e : s.edges)
        if (e.from == from && e.to == to) return e.packets;
    return 0;
}

const StageSnapshot* find_stage(const EngineSnapshot& s, const std::string& name) {
    for (const auto& st : s.stages)
        if (st.name == name) return &st;
    return nullptr;
}

uint64_t drops_named(const Ledger& l, const std::string& reason) {
    uint64_t n = 0;
    for (unsigned r = 0; r < kDropSlots; ++r)
        if (drop_slot_name(r) == reason) n += l.drops[r];
    return n;
}

/// Every stage's packets in equal its packets out (edges, the drop edge,
/// and where it keeps them), the plugin stages' included.
void expect_in_equals_out(const EngineSnapshot& s) {
    std::map<std::string, uint64_t> out;
    for (const auto& e : s.edges) out[e.from] += e.packets;
    for (const auto& st : s.stages) {
        if (st.name == "drop" || st.name == "apps") continue;  // sinks (and not a graph stage)
        EXPECT_EQ(st.packets, out[st.name]) << "stage " << st.name;
    }
    EXPECT_TRUE(s.ledger.balanced());
}

std::string refusal(const EngineConfig& c) {
    try {
        Engine eng(c);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

TEST_F(Plugins, AStageSitsInItsEdgeWithEveryCounterABuiltInHas) {
    EngineConfig c = test::ring_config();
    c.stages = {stage(plugin("null_classify"), "ip6_input")};
    Engine eng(c);
    test::inject(eng, "wire", forward_frames(eng, 300));
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    const auto names = stage_names(s);
    const auto at = std::find(names.begin(), names.end(), "ip6_input");
    ASSERT_NE(at, names.end());
    ASSERT_NE(std::next(at), names.end());
    EXPECT_EQ(*std::next(at), "null_classify") << "the stage table lists it after ip6_input";
    EXPECT_EQ(edge(s, "ip6_input", "null_classify"), 300u);
    EXPECT_EQ(edge(s, "null_classify", "ip6_lookup"), 300u);
    EXPECT_EQ(edge(s, "ip6_input", "ip6_lookup"), 0u);
    const StageSnapshot* st = find_stage(s, "null_classify");
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(st->packets, 300u);
    EXPECT_GT(st->calls, 0u);
    EXPECT_GT(st->cycles, 0u);
    // A busy call each in its histogram, but a call the worker was preempted
    // in (longer than engine.interrupted_call_us: a loaded machine), which
    // counts as untimed.
    uint64_t interrupted = 0;
    for (const auto& w : s.workers) interrupted += w.interrupted_calls;
    EXPECT_LE(st->cycles_per_call.count(), st->calls - st->idle_calls);
    EXPECT_GE(st->cycles_per_call.count() + interrupted, st->calls - st->idle_calls)
        << "a busy call each in its histogram (" << interrupted << " calls interrupted)";
    EXPECT_EQ(s.ledger.forwarded, 300u);
    expect_in_equals_out(s);
}

TEST_F(Plugins, StagesAfterOneStageRunInTheOrderGivenAndABurstStageToo) {
    EngineConfig c = test::ring_config();
    // null_burst2 follows null_classify by name; null_burst, after ip6_input
    // like null_classify, goes behind both (the end of that edge's chain).
    c.stages = {stage(plugin("null_classify"), "ip6_input"), stage(plugin("null_burst2"), "null_classify"),
                stage(plugin("null_burst"), "ip6_input")};
    // A burst stage's chunks: more packets in one walk than a burst.
    Engine eng(c);
    test::inject(eng, "wire", forward_frames(eng, 1000));
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    EXPECT_EQ(edge(s, "ip6_input", "null_classify"), 1000u);
    EXPECT_EQ(edge(s, "null_classify", "null_burst2"), 1000u);
    EXPECT_EQ(edge(s, "null_burst2", "null_burst"), 1000u);
    EXPECT_EQ(edge(s, "null_burst", "ip6_lookup"), 1000u);
    const auto names = stage_names(s);
    const auto at = std::find(names.begin(), names.end(), "ip6_input") - names.begin();
    ASSERT_LT(at + 3, static_cast<long>(names.size()));
    EXPECT_EQ(names[at + 1], "null_classify");
    EXPECT_EQ(names[at + 2], "null_burst2");
    EXPECT_EQ(names[at + 3], "null_burst");
    // `after` names a stage given before it, never one given later.
    c.stages = {stage(plugin("null_burst2"), "null_classify"), stage(plugin("null_classify"), "ip6_input")};
    EXPECT_NE(refusal(c).find("after = 'null_classify' names no stage it can follow"), std::string::npos)
        << refusal(c);
    expect_in_equals_out(s);
}

TEST_F(Plugins, AStageSendsPacketsToANextStageItDeclared) {
    EngineConfig c = test::ring_config();
    c.stages = {stage(plugin("steer"), "ip6_input")};
    Engine eng(c);
    std::vector<std::vector<uint8_t>> frames;
    for (unsigned i = 0; i < 50; ++i) {  // routed elsewhere, to another UDP port
        FrameSpec f = test::from_peer(eng, "2001:db8:aaaa::1", 4789);
        f.src_port = static_cast<uint16_t>(1000 + i);
        frames.push_back(udp6_frame(f));
    }
    for (unsigned i = 0; i < 30; ++i)
        frames.push_back(udp6_frame(test::from_peer(eng, "2001:db8:1::1", 9)));
    test::inject(eng, "wire", frames);
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    EXPECT_EQ(edge(s, "steer", "udp6_input"), 30u);  // its next stage, by name
    EXPECT_EQ(edge(s, "steer", "ip6_lookup"), 50u);
    EXPECT_EQ(edge(s, "ip6_lookup", "ip6_local"), 0u) << "the steered datagrams skipped the lookup";
    EXPECT_EQ(s.ledger.delivered, 30u);
    EXPECT_EQ(s.ledger.forwarded, 50u);
    expect_in_equals_out(s);
}

TEST_F(Plugins, TheBuiltInPathComesBackWhenTheEngineGoes) {
    {
        EngineConfig c = test::ring_config();
        c.stages = {stage(plugin("null_classify"), "ip6_lookup", "ip6_forward")};
        Engine eng(c);
        test::inject(eng, "wire", forward_frames(eng, 10));
        eng.run_until_idle();
        EXPECT_EQ(edge(eng.snapshot(), "null_classify", "ip6_forward"), 10u);
    }
    Engine eng(test::ring_config());
    test::inject(eng, "wire", forward_frames(eng, 10));
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    EXPECT_EQ(find_stage(s, "null_classify"), nullptr);
    EXPECT_EQ(edge(s, "ip6_lookup", "ip6_forward"), 10u);
    expect_in_equals_out(s);
}

TEST_F(Plugins, TheAclDropsWhatItsRulesDenyUnderItsOwnReason) {
    EngineConfig c = test::ring_config();
    StageConfig acl = stage(sample("acl6"), "ip6_input");
    // Source ports 1000-1299: deny 1010-1019 and 1100; permit 1015 comes too late.
    acl.config = {{"rules", true, 0,
                   "deny proto udp sport 1010-1019\npermit sport 1015\ndeny src 2001:db8:100::/48 sport 1100"}};
    c.stages = {acl};
    Engine eng(c);
    test::inject(eng, "wire", forward_frames(eng, 300));
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    EXPECT_EQ(drops_named(s.ledger, "acl_deny"), 11u);
    EXPECT_EQ(s.ledger.forwarded, 289u);
    EXPECT_EQ(edge(s, "acl6", "drop"), 11u);
    for (unsigned r = kDropReasonCount; r < kDropSlots; ++r) {
        if (drop_slot_name(r) == "acl_deny") {
            EXPECT_EQ(drop_slot_stage(r), "acl6");
        }
    }
    expect_in_equals_out(s);
}

TEST_F(Plugins, TwoWorkersEachRunTheStageOnTheirOwnPackets) {
    EngineConfig c = test::ring_config();
    c.workers = 2;
    c.ports.resize(2);
    c.ports[0].rx_queues = 2;
    c.ports[0].tx_queues = 2;
    c.ports[1].poll = false;
    c.ports[1].tx_queues = 2;
    c.nexthops.resize(2);
    c.routes.resize(2);
    StageConfig acl = stage(sample("acl6"), "ip6_input");
    acl.config = {{"rules", true, 0, "deny sport 1000-1049"}, {"generate", false, 100, ""}};
    c.stages = {acl};
    Engine eng(c);
    const auto frames = forward_frames(eng, 200);
    std::vector<std::vector<uint8_t>> q0(frames.begin(), frames.begin() + 100),
        q1(frames.begin() + 100, frames.end());
    test::inject(eng, "wire", q0, 0);
    test::inject(eng, "wire", q1, 1);
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    ASSERT_EQ(s.workers.size(), 2u);
    for (const WorkerSnapshot& w : s.workers) {
        const auto st = std::find_if(w.stages.begin(), w.stages.end(),
                                      [](const StageSnapshot& x) { return x.name == "acl6"; });
        ASSERT_NE(st, w.stages.end()) << "worker " << w.worker;
        EXPECT_EQ(st->packets, 100u) << "worker " << w.worker;
    }
    EXPECT_EQ(drops_named(s.workers[0].ledger, "acl_deny"), 50u);
    EXPECT_EQ(drops_named(s.workers[1].ledger, "acl_deny"), 0u);
    EXPECT_EQ(s.ledger.forwarded, 150u);
    expect_in_equals_out(s);
}

TEST_F(Plugins, AnEdgeTheStageDidNotDeclareIsDroppedCountedAndReported) {
    EngineConfig c = test::ring_config();
    c.stages = {stage(plugin("faulty_edge"), "ip6_input")};
    Engine eng(c);
    EXPECT_EQ(eng.stage_fault(), "");
    test::inject(eng, "wire", forward_frames(eng, 100));
    eng.run_until_idle();
    const EngineSnapshot s = eng.snapshot();
    EXPECT_EQ(drops_named(s.ledger, "faulty_undeclared_edge"), 1u);
    EXPECT_EQ(s.ledger.forwarded, 99u);
    expect_in_equals_out(s);
    const std::string f = eng.stage_fault();
    EXPECT_NE(f.find("plugin " + plugin("faulty_edge")), std::string::npos) << f;
    EXPECT_NE(f.find("returned edge 5"), std::string::npos) << f;
    EXPECT_NE(f.find("did not declare"), std::string::npos) << f;
}

TEST_F(Plugins, EachMistakeIsRefusedNamingThePlugin) {
    auto with = [](StageConfig st) {
        EngineConfig c = test::ring_config();
        c.stages = {std::move(st)};
        return refusal(c);
    };
    struct Case {
        StageConfig st;
        std::vector<std::string> says;
    };
    StageConfig bad_key = stage(sample("acl6"), "ip6_input");
    bad_key.config = {{"rulez", true, 0, "deny"}};
    StageConfig out_of_range = stage(sample("acl6"), "ip6_input");
    out_of_range.config = {{"generate", false, 1000001, ""}};
    StageConfig wrong_type = stage(sample("acl6"), "ip6_input");
    wrong_type.config = {{"generate", true, 0, "many"}};
    StageConfig bad_rule = stage(sample("acl6"), "ip6_input");
    bad_rule.config = {{"rules", true, 0, "deny sport 1-2\ndeny dst 2001:zz::/32"}};
    const std::vector<Case> cases = {
        {stage(plugin("faulty_version"), "ip6_input"),
         {"plugin " + plugin("faulty_version"), "stage API version 99", "loads version 1 only"}},
        {stage(plugin("faulty_next_stage"), "ip6_input"),
         {"plugin " + plugin("faulty_next_stage"), "next stage 'ip6_lookpu'", "no stage here"}},
        {stage(plugin("null_classify"), "ip6_inptu"),
         {"plugin " + plugin("null_classify"), "after = 'ip6_inptu' names no stage it can follow", "ip6_input"}},
        {stage(plugin("null_classify"), "ip6_input", "udp6_input"),
         {"before = 'udp6_input'", "ip6_input's edges go to ip6_lookup, drop"}},
        {stage(plugin("null_classify"), "ip6_input", "drop"), {"edge to drop"}},
        {stage(plugin("faulty_create"), "ip6_input"),
         {"plugin " + plugin("faulty_create"), "could not be created: the frobnicator is not plugged in"}},
        {stage(plugin("no_such_plugin"), "ip6_input"), {"plugin " + plugin("no_such_plugin"), "cannot open it"}},
        {bad_key, {"config key 'rulez' is not one the stage takes", "rules, rules_file, generate"}},
        {out_of_range, {"config 'generate' = 1000001 is outside 0 to 100000"}},
        {wrong_type, {"config 'generate' takes an integer, 0 to 100000, not text"}},
        {bad_rule, {"stage acl6", "rules line 2: dst '2001:zz::/32' is not an IPv6 prefix"}},
    };
    for (const Case& k : cases) {
        const std::string msg = with(k.st);
        for (const std::string& part : k.says) EXPECT_NE(msg.find(part), std::string::npos) << msg;
    }
    // The refused engines left the path as it was.
    Engine eng(test::ring_config());
    test::inject(eng, "wire", forward_frames(eng, 5));
    eng.run_until_idle();
    EXPECT_EQ(edge(eng.snapshot(), "ip6_input", "ip6_lookup"), 5u);
}

TEST_F(Plugins, TheHeaderServesCAndCppPluginsAlike) {
    for (const char* so : {"header_check_c", "header_check_cpp"}) {
        const StageDeclaration& d = load_plugin(plugin(so));
        EXPECT_EQ(d.name, "header_check") << so;
        EXPECT_EQ(d.next_stages, std::vector<std::string>{"ip6_lookup"}) << so;
        ASSERT_EQ(d.drops.size(), 1u) << so;
        EXPECT_EQ(d.drops[0].name, "check_drop") << so;
        ASSERT_EQ(d.config.size(), 2u) << so;
        EXPECT_TRUE(d.config[1].is_text) << so;
        EXPECT_EQ(d.config[1].default_text, "x") << so;
        EXPECT_NE(d.raw->burst, nullptr) << so;
    }
}

TEST_F(Plugins, APluginThatCrashesWhileLoadingIsNamedNotFollowed) {
    try {
        probe_plugin(plugin("faulty_crash"));
        FAIL() << "expected an error";
    } catch (const std::exception& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("plugin " + plugin("faulty_crash")), std::string::npos) << msg;
        EXPECT_NE(msg.find("crashed while loading (signal 11"), std::string::npos) << msg;
    }
    EXPECT_NO_THROW(probe_plugin(sample("acl6")));
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
