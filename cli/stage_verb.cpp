// pathscope stage FILE.so: what a stage plugin declares (its name, process
// shape, next stages, drop reasons, config keys with their ranges), read
// from the plugin itself, so that a scenario's [stage.config] can be written
// without its source. Naming the file here is what allows loading it.
#include <cinttypes>
#include <cstdio>
#include <filesystem>

#include "analysis/text/safe_text.h"
#include "cli/cli_support.h"
#include "engine/plugins/plugin_library.h"

namespace pathscope::cli {

namespace {

using analysis::printable;

int describe(const std::string& file) {
    const std::string path = std::filesystem::absolute(file).lexically_normal().string();
    engine::probe_plugin(path);  // a plugin that crashes while loading is named, not followed
    const engine::StageDeclaration& d = engine::load_plugin(path);
    std::printf("stage %s: %s\n", d.name.c_str(), printable(d.summary).c_str());
    std::printf("plugin %s, stage API version %u, process function per %s\n",
                printable(path).c_str(), d.raw->api_version, d.raw->burst ? "burst" : "packet");
    std::string next;
    for (const auto& n : d.next_stages) next += (next.empty() ? "" : ", ") + printable(n);
    std::printf("next stages: %s\n", next.empty() ? "(none besides its main edge)" : next.c_str());
    std::printf("drop reasons:%s\n", d.drops.empty() ? " (none)" : "");
    for (const auto& r : d.drops) std::printf("  %-24s %s\n", r.name.c_str(), printable(r.text).c_str());
    std::printf("config ([stage.config], or --stage FILE.so:after=STAGE,KEY=VALUE):%s\n",
                d.config.empty() ? " (none)" : "");
    for (const auto& k : d.config) {
        char range[96];
        if (k.is_text)
            std::snprintf(range, sizeof range, "text, %" PRId64 "-%" PRId64 " bytes, default \"%s\"",
                          k.min, k.max, printable(k.default_text.substr(0, 20)).c_str());
        else
            std::snprintf(range, sizeof range, "integer %" PRId64 " to %" PRId64 ", default %" PRId64,
                          k.min, k.max, k.default_int);
        std::printf("  %-16s %-44s %s\n", k.name.c_str(), range, printable(k.help).c_str());
    }
    return 0;
}

}  // namespace

void add_stage_verb(CLI::App& app, Verbs& verbs) {
    auto file = std::make_shared<std::string>();
    CLI::App* v = app.add_subcommand("stage", "describe a stage plugin: its edges, drops and config");
    v->footer(
        "Loads FILE.so (first in a child process, so that one that crashes while loading\n"
        "is named) and prints what it declares through pathscope/stage.h: its name, its\n"
        "process function's shape, the next stages it may send packets to, its drop\n"
        "reasons and the keys its [stage.config] takes, with their ranges and defaults.\n"
        "Put it in a run with [[stage]] (and --allow-plugins) or --stage; see\n"
        "docs/plugins.md.");
    v->add_option("FILE.so", *file, "the plugin")->required()->check(CLI::ExistingFile);
    verbs.add(v, [file] { return describe(*file); });
}

}  // namespace pathscope::cli
