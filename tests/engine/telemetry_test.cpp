// Live statistics on DPDK's telemetry socket: a run of the default scenario
// (the run driver a capture uses) answers /pathscope/stages, /queues and
// /ledger on the socket that dpdk-telemetry.py reads, with counts that grow
// while it runs; without an engine the commands say so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "capture/run.h"
#include "capture/scenario.h"
#include "engine/telemetry.h"
#include "tests/engine/eal_env.h"
#include "tests/support/telemetry_client.h"
#include "tests/support/setup_skip.h"

using namespace pathscope;
using nlohmann::json;
using test::TelemetryClient;

namespace {

const std::string kDefault = std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml";
constexpr const char* kPython = "/usr/bin/dpdk-telemetry.py";

std::string socket_path() {
    test::init_eal();
    const std::string path = engine::telemetry_socket_path();
    if (path.empty()) throw std::runtime_error("this process has no telemetry socket");
    return path;
}

/// Runs the default scenario for `seconds`; `during(t)` runs on the control
/// thread at every interval while the engine runs.
void run_default(double seconds, const std::function<void(double)>& during) {
    capture::Scenario sc = capture::load_scenario(kDefault, {"engine.duration=" + std::to_string(seconds)});
    capture::RunHooks hooks;
    hooks.interval_s = 0.25;
    hooks.interval = [&](double t, const engine::EngineSnapshot&) {
        during(t);
        return true;
    };
    capture::run_engine(sc.engine, hooks);
}

TEST(Telemetry, SocketIsThisProcesses) {
    const std::string path = socket_path();
    EXPECT_TRUE(std::filesystem::exists(path)) << path;
    TelemetryClient client(path);
    EXPECT_EQ(client.info().at("pid").get<long>(), static_cast<long>(getpid()));
    const json commands = client.ask("/");
    for (const char* c : {"/pathscope/stages", "/pathscope/queues", "/pathscope/ledger", "/pathscope/workers"})
        EXPECT_NE(std::find(commands.begin(), commands.end(), c), commands.end()) << c << " in " << commands;
    EXPECT_NE(engine::telemetry_client_command(path).find("dpdk-telemetry.py -f "), std::string::npos);
}

TEST(Telemetry, WithoutAnEngineCommandsSaySo) {
    run_default(0.3, [](double) {});  // registers the commands, then the engine is gone
    TelemetryClient client(socket_path());
    const json stages = client.ask("/pathscope/stages");
    ASSERT_TRUE(stages.contains("error")) << stages;
    EXPECT_NE(stages["error"].get<std::string>().find("no pathscope engine"), std::string::npos);
}

TEST(Telemetry, StagesQueuesAndLedgerGrowDuringARun) {
    TelemetryClient client(socket_path());
    std::vector<json> stages, ledgers;
    json queues, workers, bad_worker;
    run_default(2.0, [&](double t) {
        if ((t > 0.4 && stages.empty()) || (t > 1.4 && stages.size() == 1)) {
            stages.push_back(client.ask("/pathscope/stages"));
            ledgers.push_back(client.ask("/pathscope/ledger"));
            queues = client.ask("/pathscope/queues");
            workers = client.ask("/pathscope/workers");
            bad_worker = client.ask("/pathscope/stages,99");
        }
    });
    ASSERT_EQ(stages.size(), 2u);
    for (const char* stage : {"ip6_input", "ip6_lookup", "ip6_forward"}) {
        ASSERT_TRUE(stages[0].contains(stage)) << stages[0].dump(1);
        const json& a = stages[0][stage];
        const json& b = stages[1][stage];
        EXPECT_GT(a["packets"].get<uint64_t>(), 0u) << stage;
        EXPECT_GT(b["packets"].get<uint64_t>(), a["packets"].get<uint64_t>()) << stage;
        EXPECT_GT(b["cycles"].get<uint64_t>(), a["cycles"].get<uint64_t>()) << stage;
        EXPECT_GE(b["calls"].get<uint64_t>(), b["idle_calls"].get<uint64_t>()) << stage;
        EXPECT_GT(b["cycles_per_packet"].get<uint64_t>(), 0u) << stage;
    }
    const uint64_t r0 = ledgers[0]["received"].get<uint64_t>(), r1 = ledgers[1]["received"].get<uint64_t>();
    EXPECT_GT(r0, 0u);
    EXPECT_GT(r1, r0);
    EXPECT_GT(ledgers[1]["forwarded"].get<uint64_t>(), 0u);
    // The default workload sends malformed packets too: drops come by reason.
    ASSERT_TRUE(ledgers[1].contains("drops")) << ledgers[1];
    uint64_t by_reason = 0;
    for (const auto& [reason, n] : ledgers[1]["drops"].items()) by_reason += n.get<uint64_t>();
    EXPECT_EQ(by_reason, ledgers[1]["dropped"].get<uint64_t>());
    ASSERT_TRUE(queues.contains("wire/rx/0")) << queues.dump(1);
    EXPECT_GT(queues["wire/rx/0"]["packets"].get<uint64_t>(), 0u);
    ASSERT_TRUE(queues.contains("uplink/tx/0")) << queues.dump(1);
    EXPECT_GT(queues["uplink/tx/0"]["packets"].get<uint64_t>(), 0u);
    EXPECT_GE(workers["workers"].get<uint64_t>(), 1u);
    EXPECT_GT(workers["tsc_hz"].get<uint64_t>(), 0u);
    ASSERT_TRUE(bad_worker.contains("error")) << bad_worker;
}

TEST(Telemetry, DpdkTelemetryScriptReadsARun) {
    if (!std::filesystem::exists(kPython))
        PATHSCOPE_SKIP_UNLESS_SETUP(kPython << " (Debian package dpdk-dev) is missing");
    const std::string path = socket_path();
    const std::string cmd = "echo /pathscope/ledger | python3 " + std::string(kPython) + " " +
                            engine::telemetry_client_command(path).substr(sizeof "dpdk-telemetry.py") +
                            " 2>&1";
    std::string output;
    run_default(2.0, [&](double t) {
        if (t < 0.5 || !output.empty()) return;
        FILE* p = popen(cmd.c_str(), "r");
        ASSERT_NE(p, nullptr);
        char buf[4096];
        while (size_t n = fread(buf, 1, sizeof buf, p)) output.append(buf, n);
        pclose(p);
    });
    // Not on a terminal, the script prints each answer as one JSON line.
    const size_t brace = output.find("{\"/pathscope/ledger\"");
    ASSERT_NE(brace, std::string::npos) << cmd << " printed:\n" << output;
    const json reply = json::parse(output.substr(brace, output.find('\n', brace) - brace));
    EXPECT_GT(reply["/pathscope/ledger"]["received"].get<uint64_t>(), 0u) << output;
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
