// pathscope frames: a pcap of UDP/IPv6 frames for a scenario's pcap workload.
#include <iostream>

#include "capture/frame_pcap.h"
#include "cli/cli_support.h"
#include "engine/routes.h"

namespace pathscope::cli {

namespace {

struct FramesArgs {
    std::vector<std::string> to;
    std::string dst_mac = "02:00:00:00:00:01", sources = "2001:db8:100::/48", out;
    uint32_t flows = 64, count = 1024;
    uint16_t size = 64;
};

int frames(const FramesArgs& a) {
    capture::FramesSpec spec;
    for (const auto& t : a.to) {
        const auto target = capture::parse_udp_target(t);
        if (!target)
            throw UsageError("--to '" + t + "': expected [ADDRESS]:PORT or [ADDRESS]:PORT*WEIGHT, "
                             "like [2001:db8:1::1]:9*4");
        spec.targets.push_back(*target);
    }
    const auto mac = engine::parse_mac(a.dst_mac);
    if (!mac) throw UsageError("--dst-mac '" + a.dst_mac + "' is not a MAC address like 02:00:00:00:00:01");
    const auto sources = engine::parse_prefix6(a.sources);
    if (!sources) throw UsageError("--sources '" + a.sources + "' is not an IPv6 prefix like 2001:db8:100::/48");
    spec.dst_mac = *mac;
    spec.sources = *sources;
    spec.flows = a.flows;
    spec.count = a.count;
    spec.frame_size = a.size;
    const size_t n = capture::write_udp6_pcap(a.out, spec);
    std::cerr << "wrote " << n << " UDP/IPv6 frames of " << a.size << " bytes (" << spec.flows
              << " flows, " << spec.targets.size() << " destinations) to " << a.out << "\n";
    return 0;
}

}  // namespace

void add_frames_verb(CLI::App& app, Verbs& verbs) {
    auto a = std::make_shared<FramesArgs>();
    CLI::App* v = app.add_subcommand("frames", "write a pcap of UDP/IPv6 frames for a pcap workload");
    v->footer(
        "Writes COUNT Ethernet/IPv6/UDP frames, well formed (checksums included), to\n"
        "FILE as a pcap that a scenario's [workload] kind = \"pcap\" replays through\n"
        "net_pcap (infinite = true loops it). Frame i comes from flow i mod FLOWS\n"
        "(source SOURCES + flow + 1, port 1024 + flow) and goes to the --to destinations\n"
        "in turn, each as often as its weight; frame i is stamped i microseconds, so\n"
        "the same options give the same file, byte for byte. For example, 80% to a\n"
        "sink on port 9 and 20% to an echo on port 7 of the engine's address:\n"
        "  pathscope frames --to '[2001:db8:1::1]:9*4' --to '[2001:db8:1::1]:7' -o local.pcap");
    v->add_option("--to", a->to, "a destination, [ADDRESS]:PORT[*WEIGHT] (repeat for more)")
        ->type_name("DEST")
        ->required()
        ->allow_extra_args(false);
    v->add_option("--dst-mac", a->dst_mac, "the receiving port's MAC (default 02:00:00:00:00:01)")
        ->type_name("MAC");
    v->add_option("--sources", a->sources, "the flows' source prefix (default 2001:db8:100::/48)")
        ->type_name("PREFIX");
    v->add_option("--flows", a->flows, "distinct sources (default 64)")
        ->type_name("N")
        ->check(CLI::Range(1u, 1'000'000u));
    v->add_option("--size", a->size, "bytes per frame, 62 to 9000 (default 64)")
        ->type_name("BYTES")
        ->check(CLI::Range(62, 9000));
    v->add_option("--count", a->count, "frames to write (default 1024)")
        ->type_name("N")
        ->check(CLI::Range(1u, 10'000'000u));
    v->add_option("-o,--output", a->out, "the pcap file to write")->type_name("FILE")->required();
    verbs.add(v, [a] { return frames(*a); });
}

}  // namespace pathscope::cli
