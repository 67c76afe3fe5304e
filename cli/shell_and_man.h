// Text made from the command line's own definition (the CLI11 tree), so
// that it cannot drift from what the parser takes: the bash completion
// script and the man pages, one per verb.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace pathscope::cli {

/// A bash completion script for `app` (the whole pathscope command):
/// verbs, their sub-verbs and options; files where a value or an argument goes.
std::string bash_completion(const CLI::App& app);

/// The man pages of `app`: ("pathscope.1", its page) and one
/// ("pathscope-VERB.1", ...) per verb, in roff (man(7)).
std::vector<std::pair<std::string, std::string>> man_pages(const CLI::App& app,
                                                           const std::string& version);

}  // namespace pathscope::cli
