// Runs on the Linux kernel target, through the real pathscope binary, in
// real network namespaces with real perf_event: the ledger equals the
// kernel's own counters read from outside (/proc/net/snmp6 and ip -s link of
// namespaces this test made), drops by reason equal the drops the test
// provokes, and pathscope's namespaces are gone after a normal end, Ctrl-C,
// and a kill -9 followed by the next run. Needs root: skips without it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "db/queries.h"
#include "db/schema.h"
#include "tests/support/setup_skip.h"
#include "tests/support/temp_dir.h"

extern char** environ;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

/// Runs a command; its standard output, or "" (and false in `ok`) on failure.
std::string sh(const std::string& cmd, bool* ok = nullptr) {
    std::string out;
    FILE* p = popen((cmd.find("2>&1") == std::string::npos ? cmd + " 2>/dev/null" : cmd).c_str(), "r");
    if (!p) return out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    const int rc = pclose(p);
    if (ok) *ok = rc == 0;
    return out;
}

/// Why this machine cannot run the kernel target's tests ("" when it can).
std::string cannot_run() {
    if (geteuid() != 0) return "needs root (network namespaces, perf_event on every CPU, tracefs)";
    bool ok = false;
    sh("ip -V", &ok);
    if (!ok) return "needs the ip command (iproute2)";
    if (!fs::exists("/sys/kernel/tracing/events") && !fs::exists("/sys/kernel/debug/tracing/events"))
        sh("mount -t tracefs nodev /sys/kernel/tracing");
    if (!fs::exists("/sys/kernel/tracing/events/skb/kfree_skb"))
        return "this kernel has no skb:kfree_skb tracepoint (or tracefs cannot be mounted)";
    return "";
}

std::vector<std::string> pathscope_namespaces() {
    std::vector<std::string> out;
    std::istringstream in(sh("ls /run/netns"));
    for (std::string n; in >> n;)
        if (n.rfind("psk", 0) == 0 && n.size() > 3 && std::isdigit(static_cast<unsigned char>(n[3])))
            out.push_back(n);
    return out;
}

std::vector<std::string> namespaces_of(pid_t pid) {
    std::vector<std::string> out;
    for (const auto& n : pathscope_namespaces())
        if (n.rfind("psk" + std::to_string(pid) + "-", 0) == 0) out.push_back(n);
    return out;
}

std::map<std::string, uint64_t> snmp6(const std::string& ns) {
    std::map<std::string, uint64_t> out;
    std::istringstream in(sh("ip netns exec " + ns + " cat /proc/net/snmp6"));
    std::string k;
    uint64_t v;
    while (in >> k >> v) out[k] = v;
    return out;
}

/// `ip -s link` packet counters of one interface: {rx packets, tx packets}.
std::pair<uint64_t, uint64_t> link_packets(const std::string& ns, const std::string& dev) {
    const auto j = nlohmann::json::parse(sh("ip -n " + ns + " -s -j link show dev " + dev));
    const auto& s = j.at(0).at("stats64");
    return {s.at("rx").at("packets").get<uint64_t>(), s.at("tx").at("packets").get<uint64_t>()};
}

class KernelTarget : public ::testing::Test {
  protected:
    void SetUp() override {
        if (const std::string why = cannot_run(); !why.empty()) PATHSCOPE_SKIP(why);
        dir_ = std::make_unique<pathscope::test::TempDir>("kernel");
        db_ = (dir_->path() / "k.db").string();
    }
    fs::path write(const std::string& name, const std::string& text) const {
        const fs::path p = dir_->path() / name;
        std::ofstream(p) << text;
        return p;
    }
    pid_t spawn(std::vector<std::string> args) const {
        args.insert(args.begin(), PATHSCOPE_CLI);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, (dir_->path() / "stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, 2, (dir_->path() / "stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        pid_t pid = 0;
        EXPECT_EQ(posix_spawn(&pid, PATHSCOPE_CLI, &fa, nullptr, argv.data(), environ), 0);
        posix_spawn_file_actions_destroy(&fa);
        return pid;
    }
    static int wait_for(pid_t pid) {
        int status = 0;
        waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::string output(const char* stream) const {
        std::ifstream in(dir_->path() / stream);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    /// Runs `pathscope run SCENARIO --db ... ARGS` to its end; the exit code.
    int run(const fs::path& scenario, std::vector<std::string> args = {}) const {
        args.insert(args.begin(), {"run", scenario.string(), "--db", db_});
        return wait_for(spawn(args));
    }
    pathscope::db::RunData last_run() const {
        auto store = pathscope::db::open_store(db_, pathscope::db::Database::Mode::read_only);
        const auto runs = pathscope::db::list_runs(*store);
        return pathscope::db::load_run(*store, runs.back().id);
    }
    static uint64_t drops(const pathscope::db::RunData& r, const std::string& reason, const std::string& path) {
        uint64_t n = 0;
        for (const auto& d : r.rows.drops)
            if (d.reason == reason && d.path == path) n += d.packets;
        return n;
    }

    std::unique_ptr<pathscope::test::TempDir> dir_;
    std::string db_;
};

/// Two namespaces joined by a veth pair, made by this test with ip alone
/// (quiet: no DAD, router solicitations or multicast, static neighbours),
/// and removed when it goes.
class TestNetwork {
  public:
    TestNetwork() : a_("kt" + std::to_string(getpid()) + "a"), b_("kt" + std::to_string(getpid()) + "b") {
        for (const auto& ns : {a_, b_}) {
            sh("ip netns add " + ns);
            for (const char* k : {"all", "default"})
                sh("ip netns exec " + ns + " sysctl -qw net.ipv6.conf." + k + ".accept_dad=0 net.ipv6.conf." + k +
                   ".router_solicitations=0 net.ipv6.conf." + k + ".mldv2_unsolicited_report_interval=1");
            sh("ip -n " + ns + " link set lo up");
        }
        sh("ip -n " + a_ + " link add kta address 02:00:00:00:0a:01 type veth peer name ktb address "
           "02:00:00:00:0a:02 netns " + b_);
        for (auto [ns, dev, addr] : {std::tuple{a_, "kta", "2001:db8:7::1/64"}, {b_, "ktb", "2001:db8:7::2/64"}}) {
            sh("ip -n " + ns + " link set " + dev + " multicast off");
            sh("ip -n " + ns + " -6 addr add " + addr + " dev " + dev + " nodad");
            sh("ip -n " + ns + " link set " + dev + " up");
        }
        sh("ip -n " + a_ + " -6 neigh replace 2001:db8:7::2 lladdr 02:00:00:00:0a:02 dev kta nud permanent");
        sh("ip -n " + b_ + " -6 neigh replace 2001:db8:7::1 lladdr 02:00:00:00:0a:01 dev ktb nud permanent");
        std::this_thread::sleep_for(300ms);  // the links' MLD reports are over
    }
    ~TestNetwork() {
        sh("ip netns delete " + a_);
        sh("ip netns delete " + b_);
    }
    const std::string& sender() const { return a_; }
    const std::string& receiver() const { return b_; }

  private:
    std::string a_, b_;
};

constexpr const char* kSend = R"([target]
kind = "linux"
[engine]
duration = 1.0
[capture]
trials = 1
sample_hz = 499
)";

TEST_F(KernelTarget, LedgerEqualsTheKernelsOwnCounters) {
    const TestNetwork net;
    const auto snd0 = snmp6(net.sender()), rcv0 = snmp6(net.receiver());
    const auto tx0 = link_packets(net.sender(), "kta"), rx0 = link_packets(net.receiver(), "ktb");
    const fs::path sc = write("ledger.toml", std::string(kSend) +
                                                 "[linux]\npath = \"send\"\nsender_namespace = \"" + net.sender() +
                                                 "\"\nreceiver_namespace = \"" + net.receiver() +
                                                 "\"\nsender_address = \"2001:db8:7::1/64\"\n"
                                                 "receiver_address = \"2001:db8:7::2/64\"\n"
                                                 "[source]\ndestination = \"2001:db8:7::2\"\nport = 9\npayload = 16\n");
    ASSERT_EQ(run(sc), 0) << output("stderr") << output("stdout");
    const auto snd1 = snmp6(net.sender()), rcv1 = snmp6(net.receiver());
    const auto tx1 = link_packets(net.sender(), "kta"), rx1 = link_packets(net.receiver(), "ktb");
    const auto r = last_run();
    ASSERT_EQ(r.rows.trials.size(), 1u);
    const auto& t = r.rows.trials[0];
    EXPECT_GT(t.received, 1000u);
    // The run's whole-trial ledger against the counters read from outside, before and after.
    EXPECT_EQ(t.received, rcv1.at("Ip6InReceives") - rcv0.at("Ip6InReceives"));
    EXPECT_EQ(t.delivered, rcv1.at("Ip6InDelivers") - rcv0.at("Ip6InDelivers"));
    EXPECT_EQ(t.sent, snd1.at("Udp6OutDatagrams") - snd0.at("Udp6OutDatagrams"));
    EXPECT_EQ(t.received, rx1.first - rx0.first) << "ip -s link: the receiver's veth";
    EXPECT_EQ(t.sent, tx1.second - tx0.second) << "ip -s link: the sender's veth";
    EXPECT_EQ(t.received, t.delivered + t.forwarded + t.dropped);
    EXPECT_EQ(t.sends, t.sent);
    // The devices' own counters (/proc/net/dev), stored as the trial's facts.
    std::string dev;
    for (const auto& [k, v] : r.rows.facts)
        if (k == "trial0.dev.receiver.ktb") dev = v;
    EXPECT_EQ(dev.substr(0, dev.find(" packets")), "rx " + std::to_string(rx1.first - rx0.first)) << dev;
    // Each interval's deltas add up to the trial's.
    uint64_t received = 0;
    for (const auto& i : r.rows.intervals) received += i.received;
    EXPECT_EQ(received, t.received);
    EXPECT_NE(output("stdout").find("[balanced]"), std::string::npos);
}

TEST_F(KernelTarget, DropsToAClosedPortAreNoSocketOneForOne) {
    // No sink: every datagram reaches a port nobody listens on.
    const fs::path sc = write("closed.toml", std::string(kSend) +
                                                 "[linux]\npath = \"send\"\nsink = false\n"
                                                 "[source]\ndestination = \"2001:db8:1::2\"\nport = 9\n"
                                                 "payload = 16\nrate = 20000\nbatch = 8\n");
    run(sc);
    const auto r = last_run();
    ASSERT_EQ(r.rows.trials.size(), 1u) << output("stderr");
    const auto& t = r.rows.trials[0];
    EXPECT_GT(t.sends, 1000u);
    EXPECT_EQ(t.sends, t.sent);
    EXPECT_EQ(drops(r, "NO_SOCKET", "kfree_skb"), t.sent) << output("stdout");
    EXPECT_EQ(drops(r, "Udp6NoPorts", "udp"), t.sent);
}

TEST_F(KernelTarget, DropsToAnUnroutedPrefixAreNoRouteOneForOne) {
    // Forwarded by the router, which has no route to 2001:db8:99::/48.
    const fs::path sc = write("unrouted.toml", std::string(kSend) +
                                                   "[linux]\npath = \"forward\"\n"
                                                   "receiver_address = \"2001:db8:2::2/64\"\n"
                                                   "[source]\ndestination = \"2001:db8:99::1\"\nport = 9\n"
                                                   "payload = 16\nrate = 20000\nbatch = 8\n");
    run(sc);
    const auto r = last_run();
    ASSERT_EQ(r.rows.trials.size(), 1u) << output("stderr");
    const auto& t = r.rows.trials[0];
    EXPECT_GT(t.sends, 1000u);
    EXPECT_EQ(t.sends, t.sent);
    EXPECT_EQ(t.received, t.sent) << "the router received every datagram";
    EXPECT_EQ(drops(r, "IP_INNOROUTES", "kfree_skb"), t.sent) << output("stdout");
    EXPECT_EQ(drops(r, "Ip6InNoRoutes", "receive"), t.sent);
    EXPECT_EQ(t.received, t.delivered + t.forwarded + t.dropped);
}

TEST_F(KernelTarget, NamespacesGoAfterANormalEnd) {
    const fs::path sc = write("end.toml", std::string(kSend) +
                                              "[linux]\npath = \"forward\"\nreceiver_address = \"2001:db8:2::2/64\"\n"
                                              "[source]\ndestination = \"2001:db8:2::2\"\n");
    const pid_t pid = spawn({"run", sc.string(), "--db", db_, "--duration", "2"});
    for (int i = 0; i < 100 && namespaces_of(pid).size() < 3; ++i) std::this_thread::sleep_for(50ms);
    EXPECT_EQ(namespaces_of(pid).size(), 3u) << "sender, router and receiver, while it runs";
    EXPECT_EQ(wait_for(pid), 0) << output("stderr");
    EXPECT_TRUE(namespaces_of(pid).empty());
}

TEST_F(KernelTarget, NamespacesGoAfterCtrlC) {
    const fs::path sc = write("int.toml", std::string(kSend) + "[linux]\npath = \"send\"\n"
                                                               "[source]\ndestination = \"2001:db8:1::2\"\n");
    const pid_t pid = spawn({"run", sc.string(), "--db", db_, "--duration", "30"});
    for (int i = 0; i < 100 && namespaces_of(pid).size() < 2; ++i) std::this_thread::sleep_for(50ms);
    ASSERT_EQ(namespaces_of(pid).size(), 2u);
    std::this_thread::sleep_for(500ms);
    kill(pid, SIGINT);
    EXPECT_EQ(wait_for(pid), 130) << output("stderr");
    EXPECT_TRUE(namespaces_of(pid).empty());
    EXPECT_EQ(last_run().info.status, "aborted");
}

TEST_F(KernelTarget, NamespacesOfAKilledRunGoAtTheNextStart) {
    const fs::path sc = write("kill.toml", std::string(kSend) + "[linux]\npath = \"send\"\n"
                                                                "[source]\ndestination = \"2001:db8:1::2\"\n");
    const pid_t pid = spawn({"run", sc.string(), "--db", db_, "--duration", "30"});
    for (int i = 0; i < 100 && namespaces_of(pid).size() < 2; ++i) std::this_thread::sleep_for(50ms);
    ASSERT_EQ(namespaces_of(pid).size(), 2u);
    kill(pid, SIGKILL);
    EXPECT_EQ(wait_for(pid), 128 + SIGKILL);
    EXPECT_EQ(namespaces_of(pid).size(), 2u) << "a kill -9 leaves them";
    EXPECT_EQ(run(sc, {"--duration", "0.5"}), 0) << output("stderr");
    EXPECT_TRUE(namespaces_of(pid).empty()) << "the next start removes them";
    EXPECT_NE(output("stderr").find("removed the namespaces of a run that did not end"), std::string::npos)
        << output("stderr");
}

TEST_F(KernelTarget, AGlobalSysctlIsRefusedAndTheHostUntouched) {
    const std::string before = sh("sysctl -n net.ipv4.udp_early_demux");
    const fs::path core = write("core.toml", std::string(kSend) +
                                                 "[linux]\npath = \"send\"\n[sysctl]\n\"net.core.rmem_max\" = 1\n"
                                                 "[source]\ndestination = \"2001:db8:1::2\"\n");
    EXPECT_NE(run(core), 0);
    EXPECT_NE(output("stderr").find("net.core.* settings"), std::string::npos) << output("stderr");
    const fs::path demux = write("demux.toml", std::string(kSend) +
                                                   "[linux]\npath = \"send\"\n[sysctl]\n\"net.ipv4.udp_early_demux\" = " +
                                                   (before.rfind("1", 0) == 0 ? "0" : "1") +
                                                   "\n[source]\ndestination = \"2001:db8:1::2\"\n");
    EXPECT_EQ(run(demux, {"--duration", "0.3"}), 0) << output("stderr");
    EXPECT_EQ(sh("sysctl -n net.ipv4.udp_early_demux"), before) << "the host's own value";
}

TEST_F(KernelTarget, WithoutACapabilityOneErrorNamesIt) {
    bool ok = false;
    sh("setpriv --version", &ok);
    if (!ok) PATHSCOPE_SKIP("needs setpriv (util-linux) to drop a capability");
    const fs::path sc = write("caps.toml", std::string(kSend) + "[linux]\npath = \"send\"\n"
                                                                "[source]\ndestination = \"2001:db8:1::2\"\n");
    const std::string err = sh(std::string("setpriv --inh-caps=-all --bounding-set=-net_admin ") + PATHSCOPE_CLI +
                               " run " + sc.string() + " --db " + db_ + " 2>&1", &ok);
    EXPECT_FALSE(ok);
    EXPECT_NE(err.find("needs root; this process lacks CAP_NET_ADMIN"), std::string::npos) << err;
    EXPECT_EQ(err.find("CAP_SYS_ADMIN"), std::string::npos) << "only what is missing: " << err;
    EXPECT_FALSE(fs::exists(db_)) << "refused before the store is touched";
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
