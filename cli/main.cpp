// pathscope: the command line. Each verb is a thin layer over the libraries.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "capture/run.h"
#include "capture/runtime_table.h"
#include "capture/scenario.h"
#include "engine/route_gen.h"

namespace {

using namespace pathscope;

constexpr const char* kUsage =
    "usage: pathscope VERB [options]\n"
    "\n"
    "verbs:\n"
    "  run [SCENARIO]     run the engine on a scenario and print the per-stage table\n"
    "  routes             write a route table shaped like a full IPv6 BGP view\n"
    "  help [VERB]        show this text, or a verb's own help\n"
    "\n"
    "Every verb takes --help.\n";

constexpr const char* kRunUsage =
    "usage: pathscope run [SCENARIO] [--duration SECONDS] [--no-histograms]\n"
    "\n"
    "Runs the IPv6/UDP engine on the ports, routes, applications and workload that\n"
    "SCENARIO (a TOML file) describes, then prints a table per stage (calls, packets,\n"
    "packets/call, cycles/call, cycles/packet, drops), the receive ledger\n"
    "(received = delivered + forwarded + replied + drops), drops by reason, per-queue\n"
    "counters and per-call cycle histograms.\n"
    "\n"
    "  SCENARIO            default: samples/default.toml (built-in generator on a\n"
    "                      net_ring port, 40,000 routes, forwarding to net_null)\n"
    "  --duration SECONDS  override engine.duration\n"
    "  --no-histograms     leave out the per-call cycle histograms\n";

constexpr const char* kRoutesUsage =
    "usage: pathscope routes [--count N] [--seed S] [--nexthop ID] [-o FILE]\n"
    "\n"
    "Writes N IPv6 routes (default 40000) with the prefix-length mix of a full BGP\n"
    "view (mostly /48, /32, /44, /40, /36), one \"PREFIX/LEN NEXTHOP\" per line, to\n"
    "FILE (default: standard output). The same seed gives the same table.\n";

[[noreturn]] void usage_error(const std::string& msg, const char* usage) {
    std::cerr << "pathscope: " << msg << "\n\n" << usage;
    std::exit(2);
}

bool wants_help(const std::vector<std::string>& args) {
    for (const auto& a : args)
        if (a == "--help" || a == "-h") return true;
    return false;
}

uint64_t parse_count(const std::string& flag, const std::string& v, const char* usage) {
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 12)
        usage_error(flag + " needs a whole number, not '" + v + "'", usage);
    return std::stoull(v);
}

std::string default_scenario() {
    if (std::filesystem::exists("samples/default.toml")) return "samples/default.toml";
    return std::string(PATHSCOPE_SOURCE_DIR) + "/samples/default.toml";
}

int cmd_run(const std::vector<std::string>& args) {
    if (wants_help(args)) {
        std::cout << kRunUsage;
        return 0;
    }
    std::string scenario;
    double duration = -1;
    capture::TableOptions topt;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--duration") {
            if (i + 1 >= args.size())
                usage_error("--duration needs a number of seconds", kRunUsage);
            char* end = nullptr;
            duration = std::strtod(args[++i].c_str(), &end);
            if (*end || duration <= 0)
                usage_error("--duration needs a positive number of seconds, not '" + args[i] + "'",
                            kRunUsage);
        } else if (a == "--no-histograms") {
            topt.histograms = false;
        } else if (a.rfind("-", 0) == 0) {
            usage_error("unknown option '" + a + "'", kRunUsage);
        } else if (scenario.empty()) {
            scenario = a;
        } else {
            usage_error("more than one scenario given ('" + scenario + "', '" + a + "')",
                        kRunUsage);
        }
    }
    if (scenario.empty()) scenario = default_scenario();
    auto cfg = capture::load_scenario(scenario).engine;
    if (duration > 0) cfg.duration_s = duration;
    const bool tty = isatty(STDERR_FILENO);
    std::cerr << "pathscope run: " << scenario << " for " << cfg.duration_s
              << " s (Ctrl-C stops early)\n";
    auto result = capture::run_engine(cfg, [&](double t, const engine::EngineSnapshot& s) {
        if (!tty) return;
        std::fprintf(stderr, "\r  %5.1f / %.1f s  received %llu packets ", t, cfg.duration_s,
                     static_cast<unsigned long long>(s.ledger.received));
    });
    if (tty) std::fprintf(stderr, "\r%60s\r", "");
    std::cout << "scenario " << scenario << "\n" << capture::render_runtime(result, topt);
    return result.snapshot.ledger.balanced() ? 0 : 1;
}

int cmd_routes(const std::vector<std::string>& args) {
    if (wants_help(args)) {
        std::cout << kRoutesUsage;
        return 0;
    }
    uint64_t count = 40000, seed = 1, nexthop = 1;
    std::string out;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) usage_error(a + " needs a value", kRoutesUsage);
            return args[++i];
        };
        if (a == "--count")
            count = parse_count(a, value(), kRoutesUsage);
        else if (a == "--seed")
            seed = parse_count(a, value(), kRoutesUsage);
        else if (a == "--nexthop")
            nexthop = parse_count(a, value(), kRoutesUsage);
        else if (a == "-o" || a == "--output")
            out = value();
        else
            usage_error("unknown argument '" + a + "'", kRoutesUsage);
    }
    if (count == 0 || count > 10'000'000)
        usage_error("--count must be between 1 and 10000000", kRoutesUsage);
    if (nexthop == 0 || nexthop > UINT32_MAX)
        usage_error("--nexthop must be 1 or more", kRoutesUsage);
    const auto routes = engine::generate_routes(static_cast<uint32_t>(count), seed);
    if (out.empty()) {
        engine::write_routes(std::cout, routes, static_cast<uint32_t>(nexthop));
    } else {
        std::ofstream f(out);
        if (!f) throw std::runtime_error(out + ": cannot write: " + std::strerror(errno));
        engine::write_routes(f, routes, static_cast<uint32_t>(nexthop));
        std::cerr << "wrote " << routes.size() << " routes to " << out << "\n";
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::cout << kUsage;
        return args.empty() ? 2 : 0;
    }
    const std::string verb = args[0];
    args.erase(args.begin());
    try {
        if (verb == "run") return cmd_run(args);
        if (verb == "routes") return cmd_routes(args);
        if (verb == "help") {
            if (args.empty())
                std::cout << kUsage;
            else if (args[0] == "run")
                std::cout << kRunUsage;
            else if (args[0] == "routes")
                std::cout << kRoutesUsage;
            else
                usage_error("no verb named '" + args[0] + "'", kUsage);
            return 0;
        }
        usage_error("no verb named '" + verb + "'", kUsage);
    } catch (const std::exception& e) {
        std::cerr << "pathscope " << verb << ": " << e.what() << "\n";
        return 1;
    }
}
