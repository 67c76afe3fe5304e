// pathscope completion bash, and the hidden man-pages verb the build runs:
// both made from the command line's own definition (cli/shell_and_man.h).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/cli_support.h"
#include "cli/shell_and_man.h"

namespace pathscope::cli {

void add_completion_verbs(CLI::App& app, Verbs& verbs) {
    auto shell = std::make_shared<std::string>();
    CLI::App* v = app.add_subcommand("completion", "print the shell completion script");
    v->footer(
        "Prints a bash completion script for pathscope, made from the command line's own\n"
        "definition (so it knows every verb and option of this build). The Debian package\n"
        "installs it; from a build tree, add to ~/.bashrc:\n"
        "  source <(build/dev/cli/pathscope completion bash)");
    v->add_option("SHELL", *shell, "the shell: bash")->required()->check(CLI::IsMember({"bash"}));
    const CLI::App* root = &app;
    verbs.add(v, [root, shell] {  // `shell` lives as long as the option that writes it
        std::cout << bash_completion(*root);
        return 0;
    });

    auto dir = std::make_shared<std::string>();
    CLI::App* m = app.add_subcommand("man-pages", "write the man pages, one per verb, into DIR");
    m->group("");  // not listed: the build runs it (cli/CMakeLists.txt)
    m->add_option("DIR", *dir, "where the pages go")->required();
    verbs.add(m, [root, dir] {
        std::filesystem::create_directories(*dir);
        for (const auto& [name, text] : man_pages(*root, PATHSCOPE_VERSION_TEXT)) {
            const std::string path = *dir + "/" + name;
            std::ofstream out(path);
            out << text;
            if (!out.flush()) throw std::runtime_error(path + ": cannot write the man page");
        }
        return 0;
    });
}

}  // namespace pathscope::cli
