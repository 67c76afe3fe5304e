#include "capture/scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
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
        capture::load_scenario(std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml").engine;
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
        parse_scenario("[routes]\nfile = \"r.txt\"\nnexthop = 1\n", "s.toml", "/base/dir").engine;
    EXPECT_EQ(cfg.routes_file, "/base/dir/r.txt");
}

namespace {
std::string override_error(const std::string& text, const std::vector<std::string>& sets) {
    try {
        parse_scenario(text, "s.toml", "/base", sets);
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(Scenario, CaptureSettingsAndDefaults) {
    auto s =
        parse_scenario("[capture]\ntrials = 5\ninterval = 0.25\nsample_hz = 0\n", "s.toml", "/b");
    EXPECT_EQ(s.capture.trials, 5u);
    EXPECT_DOUBLE_EQ(s.capture.interval_s, 0.25);
    EXPECT_EQ(s.capture.sample_hz, 0u);
    auto d = parse_scenario("", "s.toml", "/b");
    EXPECT_EQ(d.capture.trials, 1u);
    EXPECT_DOUBLE_EQ(d.capture.interval_s, 0.1);
    EXPECT_NE(override_error("[capture]\ntrials = 0\n", {}).find("s.toml:2:"), std::string::npos);
}

TEST(Scenario, SetOverridesAnySetting) {
    const std::string text =
        "[engine]\nburst = 32\n[[port]]\nname = \"a\"\n[[port]]\nname = \"b\"\n";
    auto s =
        parse_scenario(text, "s.toml", "/b",
                       {"engine.burst=64", "port.b.rx_queues=4", "port.0.device=net_null0",
                        "capture.trials=3", "eal.args=[\"--no-huge\"]", "engine.duration=0.5"});
    EXPECT_EQ(s.engine.burst, 64);
    EXPECT_EQ(s.engine.ports[1].rx_queues, 4);
    EXPECT_EQ(s.engine.ports[0].device, "net_null0");  // bare words are strings
    EXPECT_EQ(s.capture.trials, 3u);
    EXPECT_EQ(s.engine.eal_args.size(), 1u);
    EXPECT_DOUBLE_EQ(s.engine.duration_s, 0.5);
    EXPECT_EQ(s.text, text);  // the file as written is what the store keeps
    EXPECT_EQ(s.overrides.size(), 6u);
}

// [eal] hugepages swaps --no-huge for hugetlbfs memory (--in-memory); the
// default and false keep the args as written.
TEST(Scenario, EalHugepagesSwapsNoHugeForInMemory) {
    const std::string eal = "[eal]\nargs = [\"--no-huge\", \"-m\", \"1024\", \"--no-pci\"]\n";
    using Args = std::vector<std::string>;
    EXPECT_EQ(parse_scenario(eal, "s.toml", "/b").engine.eal_args,
              (Args{"--no-huge", "-m", "1024", "--no-pci"}));
    EXPECT_EQ(parse_scenario(eal + "hugepages = false\n", "s.toml", "/b").engine.eal_args,
              (Args{"--no-huge", "-m", "1024", "--no-pci"}));
    EXPECT_EQ(parse_scenario(eal + "hugepages = true\n", "s.toml", "/b").engine.eal_args,
              (Args{"-m", "1024", "--no-pci", "--in-memory"}));
    // --set turns it on for the built-in args too, and --in-memory is not doubled.
    const Args on = parse_scenario("", "s.toml", "/b", {"eal.hugepages=true"}).engine.eal_args;
    EXPECT_EQ(std::count(on.begin(), on.end(), "--no-huge"), 0);
    EXPECT_EQ(std::count(on.begin(), on.end(), "--in-memory"), 1);
    const Args twice = parse_scenario("[eal]\nargs = [\"--in-memory\"]\nhugepages = true\n",
                                      "s.toml", "/b").engine.eal_args;
    EXPECT_EQ(twice, Args{"--in-memory"});
    EXPECT_EQ(error_of("[eal]\nhugepages = \"yes\"\n"), "s.toml:2: 'eal.hugepages' must be true or false");
}

// What would run and measure nothing is refused before the run.
TEST(Scenario, NothingToRunIsRefused) {
    const std::string gen =
        "[[port]]\nname = \"a\"\n[workload]\nkind = \"generator\"\nport = \"a\"\nflows = 0\n";
    EXPECT_EQ(error_of(gen), "s.toml:6: 'workload.flows' must be between 1 and 16777216 flows, not 0");
    const std::string rx = "[[port]]\nname = \"wire\"\nrx_queues = 0\n";
    EXPECT_EQ(error_of(rx),
              "s.toml:3: port 'wire': 'port.rx_queues' is 0, and the port is polled: give it 1 or more "
              "queues, or poll = false for a port that only sends");
    // A port that only sends needs no receive queue.
    EXPECT_EQ(error_of(rx + "poll = false\n"), "");
}

// Every numeric setting has one range check: finite, in range, with its
// unit, and the same words whether the value came from the file or --set.
TEST(Scenario, OneRangeCheckForTheFileAndForSet) {
    const std::string text =
        "[engine]\nduration = 2.0\n[capture]\ninterval = 0.1\n[[port]]\nname = \"wire\"\n"
        "[workload]\nkind = \"generator\"\nport = \"wire\"\nflows = 64\nframe_size = 64\n";
    struct Case {
        std::string set, message;
    };
    const Case cases[] = {
        {"engine.duration=nan", "'engine.duration' must be between 0.01 and 86400 seconds, not nan"},
        {"engine.duration=inf", "'engine.duration' must be between 0.01 and 86400 seconds, not inf"},
        {"engine.duration=0", "'engine.duration' must be between 0.01 and 86400 seconds, not 0"},
        {"capture.interval=nan", "'capture.interval' must be between 0.01 and 60 seconds, not nan"},
        {"workload.flows=0", "'workload.flows' must be between 1 and 16777216 flows, not 0"},
        {"port.wire.rx_queues=1025",
         "'port.rx_queues' must be between 0 and 1024 queues (0: a port that only sends, poll = "
         "false), not 1025"},
        // The generator's own minimum (the headers), not just the type's range.
        {"workload.frame_size=10", "'workload.frame_size' must be between 62 and 2048 bytes, not 10"},
        {"capture.sample_hz=2000000",
         "'capture.sample_hz' must be between 0 and 1000000 samples a second, not 2000000"},
        {"engine.mbufs=1", "'engine.mbufs' must be between 1024 and 67108864 buffers, not 1"},
        {"engine.burst=0", "'engine.burst' must be between 1 and 256 packets, not 0"},
        {"capture.trials=0", "'capture.trials' must be between 1 and 1000 trials, not 0"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.set);
        // From the command line: named as typed, never a line of the file;
        // a port's own setting names the port too.
        const std::string owner = c.set.rfind("port.", 0) == 0 ? "port 'wire': " : "";
        EXPECT_EQ(override_error(text, {c.set}), "--set " + c.set + ": " + owner + c.message);
        // From the file: the file and the line, and the same message.
        const std::string key = c.set.substr(0, c.set.find('='));
        const std::string value = c.set.substr(c.set.find('=') + 1);
        const std::string section = key.substr(0, key.find('.'));
        const std::string name = key.substr(key.rfind('.') + 1);
        const std::string file = section == "port"
                                     ? "[[port]]\nname = \"wire\"\n" + name + " = " + value + "\n"
                                     : "[" + section + "]\n" + name + " = " + value + "\n";
        const std::string line = section == "port" ? "3" : "2";
        EXPECT_EQ(error_of(file), "s.toml:" + line + ": " + owner + c.message);
        // The run verb's own options (--duration, --trials) ask the same check.
        EXPECT_EQ(capture::check_setting(key == "port.wire.rx_queues" ? "port.rx_queues" : key,
                                         std::stod(value)),
                  c.message);
    }
    // A later --set of the same key wins, and is the one named.
    EXPECT_EQ(override_error(text, {"engine.duration=1", "engine.duration=-1"}),
              "--set engine.duration=-1: 'engine.duration' must be between 0.01 and 86400 "
              "seconds, not -1");
    // A bare word is a string, named as typed.
    EXPECT_EQ(override_error(text, {"engine.burst=fast"}),
              "--set engine.burst=fast: 'engine.burst' must be an integer");
    EXPECT_EQ(capture::check_setting("engine.duration", 0.5), "");
    EXPECT_THROW(capture::check_setting("engine.nothing", 1), std::logic_error);
}

// Every numeric key of every section reaches the table (a key without a
// range would throw std::logic_error on any parse).
// A switch of "on" and "off" takes true and false too (as socket.bind
// does), and any other value is refused with the values it takes.
TEST(Scenario, OnOffSwitchesTakeTrueAndFalseAndListTheirValues) {
    const std::string sample = std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml";
    EXPECT_FALSE(capture::load_scenario(sample, {"engine.route_cache=false"}).engine.route_cache);
    EXPECT_TRUE(capture::load_scenario(sample, {"engine.route_cache=true"}).engine.route_cache);
    const std::string text = "[engine]\nduration = 1\n";
    EXPECT_EQ(override_error(text, {"engine.route_cache=7"}),
              "--set engine.route_cache=7: 'engine.route_cache' must be \"on\" or \"off\" (or true "
              "or false)");
    EXPECT_EQ(override_error(text, {"engine.txq_hash=true"}),
              "--set engine.txq_hash=true: 'engine.txq_hash' must be \"flow\" or \"none\"");
}

// A setting of another workload kind is refused, not carried silently into
// the label; percentages over 100 blame the --set that made them.
TEST(Scenario, WorkloadSettingsOfAnotherKindAndTheirSumAreRefused) {
    const std::string gen =
        "[[port]]\nname = \"wire\"\n[workload]\nkind = \"generator\"\nport = \"wire\"\n"
        "sink_percent = 20\necho_percent = 5\n";
    EXPECT_EQ(override_error(gen, {"workload.file=/nonexistent.pcap"}),
              "--set workload.file=/nonexistent.pcap: 'workload.file' is a setting of a pcap "
              "replay (workload.kind = \"pcap\"), not of kind = \"generator\": set the kind, or "
              "leave it out");
    const std::string e = override_error(gen, {"workload.sink_percent=80", "workload.echo_percent=30"});
    EXPECT_EQ(e.rfind("--set workload.", 0), 0u) << e;
    EXPECT_NE(e.find("add up to 115%, more than 100"), std::string::npos) << e;
    EXPECT_NE(e.find("sink_percent = 80 (--set workload.sink_percent=80)"), std::string::npos) << e;
}

TEST(Scenario, EveryNumericSettingHasARange) {
    EXPECT_NO_THROW(parse_scenario(R"(
[engine]
duration = 1
[capture]
trials = 2
[[port]]
name = "a"
[[nexthop]]
id = 1
port = "a"
[[route]]
prefix = "2001:db8::/32"
nexthop = 1
[routes]
generate = 10
nexthop = 1
[[app]]
port = 9
[workload]
kind = "none"
[source]
destination = "2001:db8::7"
[socket]
hop_limit = 3
)",
                                   "s.toml", "/base"));
}

TEST(Scenario, BadSetNamesTheSetting) {
    const std::string text = "[engine]\nburst = 32\n[[port]]\nname = \"a\"\n";
    const auto unknown = override_error(text, {"engine.speed=3"});
    EXPECT_NE(unknown.find("--set"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("engine.speed"), std::string::npos) << unknown;
    const auto type = override_error(text, {"engine.burst=fast"});
    EXPECT_NE(type.find("--set engine.burst=fast: 'engine.burst' must be an integer"),
              std::string::npos)
        << type;
    const auto range = override_error(text, {"engine.burst=0"});
    EXPECT_NE(range.find("--set engine.burst=0: 'engine.burst' must be between 1 and 256"),
              std::string::npos)
        << range;
    EXPECT_NE(override_error(text, {"engine.burst"}).find("KEY=VALUE"), std::string::npos);
    EXPECT_NE(override_error(text, {"port.zz.device=x"}).find("no [[port]]"), std::string::npos);
}

TEST(Scenario, RoutesFromAFileOrAGeneratedCount) {
    auto s = parse_scenario("[routes]\ngenerate = 1000\nseed = 7\nnexthop = 1\n", "s.toml", "/b");
    EXPECT_EQ(s.engine.routes_generate, 1000u);
    EXPECT_EQ(s.engine.routes_seed, 7u);
    EXPECT_NE(override_error("[routes]\ngenerate = 10\n", {}).find("needs 'nexthop'"),
              std::string::npos);
}

TEST(Scenario, VariantsSourceAndSocket) {
    const auto sc = parse_scenario(R"(
[engine]
route_cache = "off"
socket_send = "burst"
ifaddr_sync = "rwlock"
txq_hash = "none"
send_accounting = "atomic"
ifaddr_churn = 500
[source]
destination = "2001:db8::7"
destinations = 4
rate = 1000
[socket]
bind = true
connect = true
flow_label = 77
)",
                                   "s.toml", "/base");
    const auto& e = sc.engine;
    EXPECT_FALSE(e.route_cache);
    EXPECT_EQ(e.socket_send, engine::SocketSend::burst);
    EXPECT_EQ(e.ifaddr_sync, engine::IfaddrSync::rwlock);
    EXPECT_EQ(e.txq_hash, engine::TxqHash::none);
    EXPECT_EQ(e.send_accounting, engine::SendAccounting::atomic);
    EXPECT_EQ(e.ifaddr_churn_per_s, 500);
    EXPECT_TRUE(e.source.enabled && e.source.bind && e.source.connect);
    EXPECT_EQ(e.source.destinations, 4u);
    EXPECT_EQ(e.source.flow_label, 77u);
    EXPECT_EQ(capture::describe_variants(e),
              "route_cache=off socket_send=burst ifaddr_sync=rwlock txq_hash=none "
              "send_accounting=atomic fib_rules_fast_path=on ifaddr_churn=500/s socket.bind=true socket.connect=true");
    // The default, as the review left it: a plain per-worker count.
    EXPECT_EQ(parse_scenario("", "s.toml", "/b").engine.send_accounting,
              engine::SendAccounting::local);
    EXPECT_EQ(error_of("[engine]\nsend_accounting = \"percpu\"\n"),
              "s.toml:2: 'engine.send_accounting' = \"percpu\": expected \"local\" or \"atomic\"");
    EXPECT_EQ(error_of("[engine]\nroute_cache = \"maybe\"\n"),
              "s.toml:2: 'engine.route_cache' = \"maybe\": expected \"on\" or \"off\"");
    EXPECT_EQ(error_of("[socket]\nbind = true\n"),
              "s.toml:1: [socket] configures the [source] application: add one");
    EXPECT_NE(error_of("[source]\ndestinations = 2\n").find("needs 'destination'"),
              std::string::npos);
}

TEST(Scenario, PolicyRulesAndRouteTables) {
    const auto sc = parse_scenario(R"([engine]
fib_rules_fast_path = "off"
[[port]]
name = "wire"
[[route]]
prefix = "2001:db8:9::/48"
nexthop = 1
table = 100
[[route]]
prefix = "2001:db8:8::/48"
nexthop = 1
[[rule]]
priority = 100
from = "2001:db8:1::/48"
to = "2001:db8:9::/48"
iif = "wire"
table = 100
[[rule]]
priority = 200
to = "2001:db8:66::/48"
action = "prohibit"
)",
                                   "s.toml", "/base");
    const auto& e = sc.engine;
    EXPECT_FALSE(e.fib_rules_fast_path);
    ASSERT_EQ(e.routes.size(), 2u);
    EXPECT_EQ(e.routes[0].table, 100u);
    EXPECT_EQ(e.routes[1].table, engine::kTableMain);  // a route names no table: main
    ASSERT_EQ(e.rules.size(), 2u);
    EXPECT_EQ(e.rules[0].priority, 100u);
    EXPECT_TRUE(e.rules[0].has_from && e.rules[0].has_to);
    EXPECT_EQ(e.rules[0].from.len, 48);
    EXPECT_EQ(e.rules[0].iif, "wire");
    EXPECT_EQ(e.rules[0].action, engine::RuleAction::table);
    EXPECT_EQ(e.rules[0].table, 100u);
    EXPECT_FALSE(e.rules[1].has_from);
    EXPECT_EQ(e.rules[1].action, engine::RuleAction::prohibit);
    EXPECT_EQ(capture::describe_variants(e),
              "route_cache=on socket_send=single ifaddr_sync=rcu txq_hash=flow send_accounting=local "
              "fib_rules_fast_path=off fib_rules=2");

    EXPECT_EQ(error_of("[engine]\nfib_rules_fast_path = \"yes\"\n"),
              "s.toml:2: 'engine.fib_rules_fast_path' = \"yes\": expected \"on\" or \"off\"");
    EXPECT_EQ(error_of("[[rule]]\ntable = 100\n"),
              "s.toml:1: every [[rule]] needs a priority (0 to 4294967295; lower is tried first)");
    EXPECT_EQ(error_of("[[rule]]\npriority = 5\n"),
              "s.toml:1: a [[rule]] needs either 'table' (the table to look up) or 'action' "
              "(unreachable, prohibit or blackhole), not neither");
    EXPECT_EQ(error_of("[[rule]]\npriority = 5\ntable = 9\naction = \"blackhole\"\n"),
              "s.toml:1: a [[rule]] needs either 'table' (the table to look up) or 'action' "
              "(unreachable, prohibit or blackhole), not both");
    EXPECT_EQ(error_of("[[rule]]\npriority = 5\naction = \"drop\"\n"),
              "s.toml:3: 'rule.action' = \"drop\": expected \"unreachable\", \"prohibit\" or "
              "\"blackhole\" (or no action and a table)");
    EXPECT_EQ(error_of("[[rule]]\npriority = 5\ntable = 0\n"),
              "s.toml:3: 'rule.table' must be between 1 and 4294967295, not 0");
    EXPECT_EQ(error_of("[[rule]]\npriority = 5\ntable = 9\nfrom = \"x\"\n"),
              "s.toml:4: 'rule.from' = \"x\" is not an IPv6 prefix like 2001:db8::/32");
    EXPECT_EQ(error_of("[[rule]]\npriority = 5\ntable = 9\niif = \"eth9\"\n"),
              "s.toml:4: 'rule.iif' names port 'eth9', which no [[port]] defines");
    EXPECT_EQ(error_of("[[rule]]\npriority = 5\ntable = 9\niif = \"lo\"\n"), "");
    EXPECT_EQ(error_of("[[route]]\nprefix = \"2001:db8::/32\"\ntable = -1\n"),
              "s.toml:3: 'route.table' must be between 1 and 4294967295, not -1");
}

TEST(Scenario, MatrixCellsAreEveryCombination) {
    const auto sc = parse_scenario(R"(
[engine]
duration = 1
[matrix]
socket.bind = [false, true]
engine.route_cache = ["on", "off"]
)",
                                   "s.toml", "/base");
    ASSERT_EQ(sc.matrix.size(), 2u);
    const auto cells = capture::matrix_cells(sc);
    ASSERT_EQ(cells.size(), 4u);
    EXPECT_EQ(capture::describe_cell(cells[0]), "engine.route_cache=on socket.bind=false");
    EXPECT_EQ(capture::describe_cell(cells[3]), "engine.route_cache=off socket.bind=true");
    EXPECT_EQ(cells[1][0], "engine.route_cache=\"on\"");  // TOML text, as --set takes it
    EXPECT_TRUE(capture::matrix_cells(parse_scenario("", "s.toml", "/base")).empty());
    EXPECT_EQ(error_of("[matrix]\nengine.burst = 64\n"),
              "s.toml:2: '[matrix] engine.burst' must list the values its cells take, like "
              "[\"on\", \"off\"]");
}

// A setting's key is at most 16 keys deep, in --set and in [matrix]: the
// fuzzer made a [matrix] 2,538 tables deep with one --set, whose reading
// overflowed the stack (tests/fuzz/regressions/scenario_fuzz).
TEST(Scenario, SettingsNestAtMostSixteenDeep) {
    std::string deep = "matrix";
    for (int i = 0; i < 20; ++i) deep += ".k";
    EXPECT_EQ(override_error("", {deep + "=[1, 2]"}),
              "--set matrix.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k: a setting names at most 16 "
              "nested keys, like engine.burst or port.wire.device");
    std::string header = "[matrix";
    for (int i = 0; i < 20; ++i) header += ".k";
    const std::string e = error_of(header + "]\nv = [1, 2]\n");
    EXPECT_NE(e.find("nests deeper than 16 keys; a matrix setting is a dotted key like socket.bind"),
              std::string::npos)
        << e;
    // 15 tables deep (a setting of 16 keys) is still read.
    std::string ok = "[matrix";
    for (int i = 0; i < 14; ++i) ok += ".k";
    EXPECT_EQ(error_of(ok + "]\nv = [1, 2]\n"), "");
}

namespace {
/// A ring port, a connected echo server on 7 and the rr workload's keys.
const std::string kRr = R"([[port]]
name = "wire"
device = "ring"
addresses = ["2001:db8:1::1/64"]
[[app]]
kind = "echo"
port = 7
connected = true
max_clients = 300
[workload]
kind = "rr"
port = "wire"
source_prefix = "2001:db8:100::/48"
[workload.rr]
server = "2001:db8:1::1"
)";
}  // namespace

TEST(Scenario, RequestResponseWorkloadKeysAndDefaults) {
    const auto cfg = parse_scenario(kRr, "s.toml", "/base").engine;
    EXPECT_EQ(cfg.workload.kind, engine::WorkloadKind::rr);
    const engine::RrConfig& rr = cfg.workload.rr;
    EXPECT_EQ(rr.port, "wire");
    EXPECT_EQ(rr.streams, 200u);  // netperf TCP_RR's 200 concurrent streams, as the review ran
    EXPECT_EQ(rr.server_port, 7);
    EXPECT_EQ(rr.payload, 8);
    EXPECT_DOUBLE_EQ(rr.timeout_s, 0.010);
    EXPECT_EQ(rr.server[15], 1);
    EXPECT_EQ(rr.source_prefix.len, 48);
    ASSERT_EQ(cfg.apps.size(), 1u);
    EXPECT_TRUE(cfg.apps[0].connected);
    EXPECT_EQ(cfg.apps[0].max_clients, 300u);

    const auto set = parse_scenario(kRr + "streams = 16\nport = 7\npayload = 100\ntimeout = 0.5\n",
                                    "s.toml", "/base")
                         .engine.workload.rr;
    EXPECT_EQ(set.streams, 16u);
    EXPECT_EQ(set.payload, 100);
    EXPECT_DOUBLE_EQ(set.timeout_s, 0.5);
    // --set reaches the sub-table, as a [matrix] cell would.
    const auto over = parse_scenario(kRr, "s.toml", "/base", {"workload.rr.streams=50"});
    EXPECT_EQ(over.engine.workload.rr.streams, 50u);
    // A plain echo app is a server too.
    EXPECT_FALSE(
        parse_scenario(kRr, "s.toml", "/base", {"app.0.connected=false"}).engine.apps[0].connected);
}

TEST(Scenario, RequestResponseWorkloadErrorsNameTheKey) {
    EXPECT_EQ(error_of(kRr + "streams = 0\n"),
              "s.toml:16: 'workload.rr.streams' must be between 1 and 1024 streams, not 0");
    EXPECT_EQ(error_of(kRr + "payload = 4\n"),
              "s.toml:16: 'workload.rr.payload' must be between 8 and 1400 bytes, not 4");
    EXPECT_EQ(error_of(kRr + "timeout = 0\n"),
              "s.toml:16: 'workload.rr.timeout' must be between 0.0001 and 10 seconds, not 0");
    std::string bad_server = kRr;
    bad_server.replace(bad_server.find("\"2001:db8:1::1\"\n"), 16, "\"nope\"");
    EXPECT_EQ(error_of(bad_server),
              "s.toml:15: 'workload.rr.server' = \"nope\" is not an IPv6 address");
    EXPECT_NE(error_of(kRr + "stream = 3\n").find("unknown key 'workload.rr.stream'"),
              std::string::npos);
    // No server address.
    std::string no_server = kRr.substr(0, kRr.find("[workload.rr]"));
    EXPECT_NE(error_of(no_server).find("needs 'workload.rr.server'"), std::string::npos)
        << error_of(no_server);
    // Nobody listens on the port the requests go to.
    const std::string e = error_of(kRr + "port = 9\n");
    EXPECT_EQ(e,
              "s.toml:16: 'workload.rr.port' = 9: no [[app]] with kind = \"echo\" listens on "
              "that UDP port (add one, with connected = true for a socket per client)");
    // The peers live behind a ring port.
    std::string pcap = kRr;
    pcap.replace(pcap.find("device = \"ring\""), 15, "device = \"net_null0\"");
    EXPECT_NE(error_of(pcap).find("the rr peers need a port with device = \"ring\""),
              std::string::npos)
        << error_of(pcap);
    // No source prefix: the responses would have nowhere to go.
    std::string no_prefix = kRr;
    no_prefix.erase(no_prefix.find("source_prefix"),
                    std::string("source_prefix = \"2001:db8:100::/48\"\n").size());
    EXPECT_NE(error_of(no_prefix).find("needs 'workload.source_prefix'"), std::string::npos);
    // [workload.rr] with another workload kind.
    std::string gen = kRr;
    gen.replace(gen.find("kind = \"rr\""), 11, "kind = \"generator\"");
    EXPECT_NE(error_of(gen).find("[workload.rr] configures the request/response workload"),
              std::string::npos)
        << error_of(gen);
    // Connected and max_clients belong to echo apps.
    std::string sink = kRr;
    sink.replace(sink.find("kind = \"echo\""), 13, "kind = \"sink\"");
    EXPECT_NE(
        error_of(sink).find("'app.connected' and 'app.max_clients' are settings of an echo app"),
        std::string::npos)
        << error_of(sink);
    std::string many = kRr;
    many.replace(many.find("max_clients = 300"), 17, "max_clients = 2000");
    EXPECT_EQ(error_of(many),
              "s.toml:9: 'app.max_clients' must be between 1 and 1024 sockets, not 2000");
}

TEST(Scenario, EarlyDemuxAndIlaMappings) {
    const auto sc = parse_scenario(R"(
[engine]
early_demux = "on"
ila = "late"
[[port]]
name = "wire"
addresses = ["2001:db8:5::1/64"]
[[ila_map]]
identifier = "0:0:0:1"
locator = "2001:db8:ff:0"
sir_prefix = "2001:db8:5:0"
[[ila_map]]
identifier = "0:0:0:2"
locator = "2001:db8:ff:0"
sir_prefix = "2001:db8:5:0"
match_locator = "*"
port = "wire"
[[ila_map]]
identifier = "0:0:0:3"
locator = "2001:DB8:FF:0"
sir_prefix = "2001:db8:5:0"
match_locator = "2001:db8:ee:1"
)",
                                   "s.toml", "/base");
    const auto& e = sc.engine;
    EXPECT_TRUE(e.early_demux);
    EXPECT_EQ(e.ila, engine::IlaMode::late);
    ASSERT_EQ(e.ila_map.size(), 3u);
    const engine::Half64 id1{0, 0, 0, 0, 0, 0, 0, 1}, loc{0x20, 0x01, 0x0d, 0xb8, 0, 0xff, 0, 0},
        sir{0x20, 0x01, 0x0d, 0xb8, 0, 5, 0, 0}, other{0x20, 0x01, 0x0d, 0xb8, 0, 0xee, 0, 1};
    EXPECT_EQ(e.ila_map[0].identifier, id1);
    EXPECT_EQ(e.ila_map[0].locator, loc);
    EXPECT_EQ(e.ila_map[0].sir_prefix, sir);
    EXPECT_EQ(e.ila_map[0].match, loc);  // the locator, unless told otherwise
    EXPECT_FALSE(e.ila_map[0].match_any);
    EXPECT_TRUE(e.ila_map[1].match_any);
    EXPECT_EQ(e.ila_map[1].port, "wire");
    EXPECT_EQ(e.ila_map[2].locator, loc);  // hex digits in either case
    EXPECT_EQ(e.ila_map[2].match, other);
    EXPECT_EQ(capture::describe_variants(e),
              "route_cache=on socket_send=single ifaddr_sync=rcu txq_hash=flow "
              "send_accounting=local fib_rules_fast_path=on early_demux=on ila=late");
    // Off, the default, adds nothing to the variants.
    EXPECT_EQ(capture::describe_variants(parse_scenario("", "s.toml", "/base").engine),
              "route_cache=on socket_send=single ifaddr_sync=rcu txq_hash=flow "
              "send_accounting=local fib_rules_fast_path=on");
}

TEST(Scenario, Nptv6PrefixPairs) {
    const auto sc = parse_scenario(R"(
[engine]
ila = "nptv6"
[[nptv6]]
external = "2001:db8:ff::/48"
internal = "fd00:5::/48"
)",
                                   "s.toml", "/base");
    ASSERT_EQ(sc.engine.nptv6.size(), 1u);
    EXPECT_EQ(sc.engine.nptv6[0].external.len, 48);
    EXPECT_EQ(sc.engine.nptv6[0].internal.addr[0], 0xfd);
    EXPECT_NE(capture::describe_variants(sc.engine).find(" ila=nptv6"), std::string::npos);
}

TEST(Scenario, TranslationErrorsNameTheKey) {
    EXPECT_EQ(error_of("[engine]\nearly_demux = \"yes\"\n"),
              "s.toml:2: 'engine.early_demux' = \"yes\": expected \"on\" or \"off\"");
    EXPECT_EQ(error_of("[engine]\nila = \"before\"\n"),
              "s.toml:2: 'engine.ila' = \"before\": expected \"off\" or \"late\" or \"early\" or "
              "\"nptv6\"");
    EXPECT_EQ(error_of("[engine]\nila = \"early\"\n"),
              "s.toml:2: engine.ila = \"early\" needs [[ila_map]] entries (identifier, locator, "
              "sir_prefix)");
    EXPECT_EQ(error_of("[engine]\nila = \"nptv6\"\n"),
              "s.toml:2: engine.ila = \"nptv6\" needs [[nptv6]] prefix pairs (external, internal)");
    const std::string map =
        "[[ila_map]]\nidentifier = \"0:0:0:1\"\nsir_prefix = \"2001:db8:5:0\"\n";
    EXPECT_EQ(error_of(map + "locator = \"2001:db8::\"\n"),
              "s.toml:4: 'ila_map.locator' = \"2001:db8::\" is not 64 bits as four hex groups, "
              "like \"2001:db8:ff:0\"");
    EXPECT_EQ(error_of(map),
              "s.toml:1: every [[ila_map]] needs 'locator' (64 bits as four hex groups, like "
              "\"2001:db8:ff:0\")");
    EXPECT_EQ(error_of(map + "locator = \"2001:db8:5:0\"\n"),
              "s.toml:1: [[ila_map]] locator and sir_prefix are the same: nothing to translate");
    EXPECT_EQ(error_of(map + "locator = \"2001:db8:ff:0\"\nmatch_locator = \"any\"\n"),
              "s.toml:5: 'ila_map.match_locator' = \"any\" is not 64 bits as four hex groups, "
              "like \"2001:db8:ff:0\" or \"*\" (any locator)");
    EXPECT_EQ(error_of(map + "locator = \"2001:db8:ff:0\"\nport = \"nope\"\n"),
              "s.toml:5: 'ila_map.port' names port 'nope', which no [[port]] defines");
    EXPECT_EQ(error_of(map + "locator = \"2001:db8:ff:0:1\"\n").substr(0, 9), "s.toml:4:");
    EXPECT_EQ(error_of(map + "locator = \"12345:db8:ff:0\"\n").substr(0, 9), "s.toml:4:");
    EXPECT_EQ(error_of("[[nptv6]]\nexternal = \"2001:db8:ff::/48\"\ninternal = \"fd00::/56\"\n"),
              "s.toml:3: [[nptv6]] external and internal prefixes must have the same length, 1 "
              "to 64 (RFC 6296 keeps the interface identifier): 2001:db8:ff::/48 and fd00::/56");
    EXPECT_EQ(error_of("[[nptv6]]\nexternal = \"2001:db8:ff::/48\"\n"),
              "s.toml:1: every [[nptv6]] needs 'external' and 'internal' prefixes");
    EXPECT_NE(error_of("[[ila_map]]\nidentifier = \"0:0:0:1\"\nlocator = \"1:2:3:4\"\n"
                       "sir_prefix = \"5:6:7:8\"\nsir = 1\n")
                  .find("unknown key 'ila_map.sir'"),
              std::string::npos);
}
