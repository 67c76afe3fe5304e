// The Linux target's parsers, without root: scenarios ([target], [linux],
// [sysctl] and their refusals), stage maps and how a call chain is
// attributed, tracefs's symbolic names, /proc/net/snmp6 and /proc/net/dev.
#include <gtest/gtest.h>

#include "capture/kernel/net_counters.h"
#include "capture/kernel/stage_map.h"
#include "capture/kernel/tracefs.h"
#include "capture/scenario.h"

using namespace pathscope;
using namespace pathscope::capture;

namespace {

std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
    try {
        parse_scenario(text, "k.toml", "/base", sets);
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "";
}

constexpr const char* kLinux = R"([target]
kind = "linux"
[source]
destination = "2001:db8:1::2"
)";

std::vector<const std::string*> names(const std::vector<std::string>& v) {
    std::vector<const std::string*> out;
    for (const auto& s : v) out.push_back(&s);
    return out;
}

}  // namespace

TEST(KernelScenario, TargetAndLinuxTables) {
    const Scenario sc = parse_scenario(std::string(kLinux) + R"([linux]
path = "forward"
sender_cpu = 1
receiver_cpu = -1
stage_map = "my.map"
[sysctl]
net.ipv6.conf.all.forwarding = 1
"net.ipv4.udp_early_demux" = 0
)", "k.toml", "/base");
    EXPECT_EQ(sc.target, Target::kernel);
    EXPECT_EQ(sc.kernel.path, KernelPath::forward);
    EXPECT_EQ(sc.kernel.sender_cpu, 1);
    EXPECT_EQ(sc.kernel.receiver_cpu, -1);
    EXPECT_EQ(sc.kernel.stage_map, "/base/my.map");
    ASSERT_EQ(sc.kernel.sysctls.size(), 2u);
    // In name order (a TOML table has no order of its own).
    EXPECT_EQ(sc.kernel.sysctls[0], (std::pair<std::string, std::string>{"net.ipv4.udp_early_demux", "0"}));
    EXPECT_EQ(sc.kernel.sysctls[1].first, "net.ipv6.conf.all.forwarding");
    EXPECT_EQ(parse_scenario(R"([source]
destination = "2001:db8:1::2"
)", "e.toml", "/").target, Target::engine);
}

TEST(KernelScenario, AMatrixCellsSysctlReadsAsTheFilesKey) {
    // A [matrix] cell sets sysctl.net.ipv4.udp_early_demux=1: nested tables, the same name.
    const Scenario sc = parse_scenario(kLinux, "k.toml", "/", {"sysctl.net.ipv4.udp_early_demux=1"});
    ASSERT_EQ(sc.kernel.sysctls.size(), 1u);
    EXPECT_EQ(sc.kernel.sysctls[0].first, "net.ipv4.udp_early_demux");
    EXPECT_EQ(sc.kernel.sysctls[0].second, "1");
    EXPECT_NE(describe_kernel_variants(sc).find("sysctl.net.ipv4.udp_early_demux=1"), std::string::npos);
}

TEST(KernelScenario, ASetSysctlWinsOverTheFilesQuotedOne) {
    const Scenario sc = parse_scenario(std::string(kLinux) + "[sysctl]\n\"net.ipv4.udp_early_demux\" = 1\n",
                                       "k.toml", "/", {"sysctl.net.ipv4.udp_early_demux=0"});
    ASSERT_EQ(sc.kernel.sysctls.size(), 1u);
    EXPECT_EQ(sc.kernel.sysctls[0].second, "0");
    EXPECT_NE(error_of(std::string(kLinux) + "[sysctl]\n\"net.ipv4.x\" = 1\n[sysctl.net.ipv4]\nx = 2\n")
                  .find("set twice"),
              std::string::npos);
}

TEST(KernelScenario, GlobalSettingsAreRefusedWithTheReason) {
    EXPECT_NE(error_of(std::string(kLinux) + "[sysctl]\n\"net.core.rmem_max\" = 1\n").find("net.core.*"),
              std::string::npos);
    EXPECT_NE(error_of(std::string(kLinux) + "[sysctl]\n\"vm.swappiness\" = 1\n").find("whole machine"),
              std::string::npos);
    EXPECT_NE(error_of(std::string(kLinux) + "[sysctl]\n\"net.ipv4.x\" = 1.5\n").find("integer or a string"),
              std::string::npos);
}

TEST(KernelScenario, EngineTablesAndMisplacedKeysAreRefused) {
    EXPECT_NE(error_of(std::string(kLinux) + "[[port]]\nname = \"p\"\n").find("a Linux target has no ports"),
              std::string::npos);
    EXPECT_NE(error_of("[linux]\npath = \"send\"\n").find("add [target] kind = \"linux\""), std::string::npos);
    EXPECT_NE(error_of(std::string(kLinux) + "[linux]\npath = \"loop\"\n").find("expected \"send\""),
              std::string::npos);
    EXPECT_NE(error_of("[target]\nkind = \"linux\"\n").find("needs a [source]"), std::string::npos);
    EXPECT_NE(error_of(std::string(kLinux) + "[linux]\nsender_address = \"2001:db8::1\"\n").find("address/len"),
              std::string::npos);
    EXPECT_NE(error_of(std::string(kLinux) + "[linux]\nsender_namespace = \"a\"\n").find("receiver_namespace"),
              std::string::npos);
    EXPECT_NE(error_of("[source]\ndestination = \"2001:db8::1\"\n[capture]\nperf_data = \"x\"\n").find("Linux run"),
              std::string::npos);
    EXPECT_NE(error_of(std::string(kLinux) + "[linux]\nrr_streams = 0\n").find("'linux.rr_streams' must be between 1"),
              std::string::npos);
}

TEST(StageMap, InnermostNamedFrameWins) {
    const StageMap m = StageMap::parse(R"(# comment
ip6_finish_output2   ip6_output
neigh_*              nd_resolve
neigh_resolve_*      nd_resolve_slow
__dev_queue_xmit     eth_tx
[user]               apps
)", "m");
    // Leaf first: neigh_resolve_output under ip6_finish_output2.
    const std::vector<std::string> k1{"memcpy", "neigh_resolve_output", "ip6_finish_output2"};
    EXPECT_EQ(m.stages()[m.classify(names(k1), {})], "nd_resolve_slow") << "the longest prefix";
    const std::vector<std::string> k2{"__dev_queue_xmit.constprop.0", "neigh_hh_output", "ip6_finish_output2"};
    EXPECT_EQ(m.stages()[m.classify(names(k2), {})], "eth_tx") << "a clone is its function";
    const std::vector<std::string> k3{"kmem_cache_alloc", "schedule"};
    const std::vector<std::string> u{"main"};
    EXPECT_EQ(m.stages()[m.classify(names(k3), names(u))], kUnmappedKernel)
        << "unnamed kernel time stays unmapped, whatever user code called it";
    EXPECT_EQ(m.stages()[m.classify({}, names(u))], "apps");
    EXPECT_EQ(m.stages().back(), kUnmappedKernel);
}

TEST(StageMap, ErrorsNameTheLine) {
    auto error = [](const std::string& text) {
        try {
            StageMap::parse(text, "m.map");
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(error("a b c\n").find("m.map:1: expected FUNCTION STAGE"), std::string::npos);
    EXPECT_NE(error("a x\na y\n").find("m.map:2: 'a' is named twice"), std::string::npos);
    EXPECT_NE(error("a*b x\n").find("ends in *"), std::string::npos);
    EXPECT_NE(error("# nothing\n").find("names no function"), std::string::npos);
    EXPECT_NO_THROW(StageMap::load(std::string(PATHSCOPE_SOURCE_DIR) + "/samples/kernel-stages.map"));
}

TEST(Tracefs, DropReasonsAsTheKernelPrintsThem) {
    const std::string format =
        R"(print fmt: "skbaddr=%p reason: %s", REC->skbaddr, __print_symbolic(REC->reason, { 2, "NOT_SPECIFIED" }, { 3, "NO_SOCKET" }, { 88, "IP_INNOROUTES" }, { 130, "MAX" }))";
    const auto names = parse_print_symbolic(format, "reason");
    ASSERT_EQ(names.size(), 4u);
    EXPECT_EQ(names.at(3), "NO_SOCKET");
    EXPECT_EQ(names.at(88), "IP_INNOROUTES");
    EXPECT_TRUE(parse_print_symbolic(format, "protocol").empty());
}

TEST(NetCounters, Snmp6AndDevParse) {
    const auto s = parse_snmp6("Ip6InReceives                   \t175013\nUdp6InDatagrams \t 5\n");
    EXPECT_EQ(s.at("Ip6InReceives"), 175013u);
    EXPECT_EQ(s.at("Udp6InDatagrams"), 5u);
    const auto d = parse_net_dev(
        "Inter-|   Receive                                                |  Transmit\n"
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
        "    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n"
        " pskxb: 13651134  175013    1    2    0     0          0         0     1212      14    3    4    0     0       0          0\n");
    ASSERT_EQ(d.count("pskxb"), 1u);
    EXPECT_EQ(d.at("pskxb").rx_packets, 175013u);
    EXPECT_EQ(d.at("pskxb").rx_dropped, 2u);
    EXPECT_EQ(d.at("pskxb").tx_packets, 14u);
    EXPECT_EQ(d.at("pskxb").tx_dropped, 4u);
}
