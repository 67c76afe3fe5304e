// pathscope: the command line. Each verb is a thin layer over the libraries;
// CLI11 parses, checks and documents the options.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "capture/scenario.h"
#include "cli/cli_support.h"
#include "analysis/text/safe_text.h"

using pathscope::analysis::printable;
using pathscope::analysis::printable_lines;

using namespace pathscope::cli;

namespace {

// Edit distance, for "did you mean" on a mistyped verb.
size_t distance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

// Verb help names the whole command ("usage: pathscope run [OPTIONS] ...").
class Formatter : public CLI::Formatter {
  public:
    std::string make_usage(const CLI::App* app, std::string name) const override {
        std::string usage = CLI::Formatter::make_usage(app, name);
        const std::string from = "Usage: " + name;
        if (const auto at = usage.find(from); at != std::string::npos)
        {
            // Every parent's name in front: "pathscope bench route-output".
            std::string path = name;
            for (const CLI::App* p = app->get_parent(); p && path.rfind("pathscope ", 0) != 0;
                 p = p->get_parent())
                path = (p->get_parent() ? p->get_name() : std::string("pathscope")) + " " + path;
            usage.replace(at, from.size(), "usage: " + path);
        }
        return usage;
    }
};

bool is_verb(const CLI::App& app, const std::string& word) {
    for (const CLI::App* sub : app.get_subcommands({}))
        if (sub->get_name() == word) return true;
    return false;
}

std::string closest_verb(const CLI::App& app, const std::string& word) {
    std::string best;
    size_t best_d = 3;  // suggest only near misses
    for (const CLI::App* sub : app.get_subcommands({})) {
        const size_t d = distance(word, sub->get_name());
        if (d < best_d) best_d = d, best = sub->get_name();
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "pathscope: an interactive packet-path profiler. An embedded IPv6/UDP engine runs on\n"
        "DPDK ports with a cycle counter on every stage; runs are recorded into an SQLite\n"
        "store and compared with statistics.",
        "pathscope"};
    app.set_version_flag("--version", std::string("pathscope ") + PATHSCOPE_VERSION_TEXT);
    app.footer(
        "Every verb takes --help. The store is pathscope.db in the current folder unless\n"
        "--db names another. A run is named by its id, its label (the latest run with\n"
        "that label) or label@N (the N-th, oldest first).");
    app.formatter(std::make_shared<Formatter>());
    app.require_subcommand(1);
    Verbs verbs;
    add_run_verb(app, verbs);
    add_store_verbs(app, verbs);
    add_report_verbs(app, verbs);
    add_gate_verb(app, verbs);
    add_stats_verb(app, verbs);
    add_import_export_verbs(app, verbs);
    add_routes_verb(app, verbs);
    add_frames_verb(app, verbs);
    add_bench_verb(app, verbs);
    add_stage_verb(app, verbs);
    add_completion_verbs(app, verbs);
    std::string help_verb;
    CLI::App* help = app.add_subcommand("help", "show this text, or a verb's own help");
    help->add_option("VERB", help_verb, "the verb to explain");

    // A word that is no verb is answered before parsing, with a suggestion.
    if (argc > 1 && argv[1][0] != '-') {
        const std::string word = argv[1];
        if (!is_verb(app, word)) {
            std::cerr << "pathscope: no verb named '" << printable(word) << "'";
            if (const std::string near = closest_verb(app, word); !near.empty())
                std::cerr << " (did you mean '" << near << "'?)";
            std::cerr << "; pathscope --help lists the verbs\n";
            return 2;
        }
    }
    std::string verb_name;
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        const CLI::App* sub = app.get_subcommands().empty() ? nullptr : app.get_subcommands()[0];
        // A verb's own subcommand (bench route-output --help) gets its own help.
        while (sub && sub != help && !sub->get_subcommands().empty()) sub = sub->get_subcommands()[0];
        std::cout << (sub && sub != help ? sub->help() : app.help());
        return 0;
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::RequiredError& e) {
        if (app.get_subcommands().empty()) {  // no verb at all
            std::cout << app.help();
            return 2;
        }
        std::cerr << "pathscope " << app.get_subcommands()[0]->get_name() << ": " << printable_lines(e.what())
                  << " (see --help)\n";
        return 2;
    } catch (const CLI::ParseError& e) {
        const std::string where =
            app.get_subcommands().empty() ? "" : " " + app.get_subcommands()[0]->get_name();
        std::cerr << "pathscope" << where << ": " << printable_lines(e.what()) << " (see pathscope" << where
                  << " --help)\n";
        return 2;
    }
    CLI::App* chosen = app.get_subcommands()[0];
    if (chosen == help) {
        if (help_verb.empty()) {
            std::cout << app.help();
            return 0;
        }
        if (!is_verb(app, help_verb) || help_verb == "help") {
            std::cerr << "pathscope help: no verb named '" << printable(help_verb)
                      << "'; pathscope --help lists the verbs\n";
            return 2;
        }
        std::cout << app.get_subcommand(help_verb)->help();
        return 0;
    }
    verb_name = chosen->get_name();
    for (const auto& [verb, run] : verbs.list) {
        if (verb != chosen) continue;
        try {
            return run();
        } catch (const pathscope::capture::ScenarioError& e) {
            // A setting refused (in the file or a --set): as a bad flag, exit 2.
            std::cerr << "pathscope " << verb_name << ": " << printable_lines(e.what()) << "\n";
            return 2;
        } catch (const UsageError& e) {
            std::cerr << "pathscope " << verb_name << ": " << printable_lines(e.what()) << " (see pathscope "
                      << verb_name << " --help)\n";
            return 2;
        } catch (const std::exception& e) {
            std::cerr << "pathscope " << verb_name << ": " << printable_lines(e.what()) << "\n";
            return 1;
        }
    }
    return 2;
}
