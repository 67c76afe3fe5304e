// Command-line parsing shared by the verbs: options with values, flags and
// positional arguments, with errors that print the verb's usage.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace pathscope::cli {

[[noreturn]] void usage_error(const std::string& msg, const char* usage);

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>> values;  ///< option -> every value given
    std::set<std::string> flags;

    bool has(const std::string& opt) const { return values.count(opt) || flags.count(opt); }
    /// The last value of `opt`, or `fallback`.
    std::string get(const std::string& opt, const std::string& fallback = "") const;
    const std::vector<std::string>& all(const std::string& opt) const;
};

/// Parses `args` against the options a verb takes (`with_value`: take the
/// next word; `flags`: stand alone). --help/-h is the caller's to check first.
Args parse_args(const std::vector<std::string>& args, const std::set<std::string>& with_value,
                const std::set<std::string>& flags, const char* usage);

bool wants_help(const std::vector<std::string>& args);

/// A whole number, or a usage error naming the option.
uint64_t parse_count(const std::string& opt, const std::string& v, const char* usage);
/// A positive number of seconds, or a usage error naming the option.
double parse_seconds(const std::string& opt, const std::string& v, const char* usage);

/// One of ministat's confidence levels (80 90 95 98 99 99.5), or a usage
/// error naming the option.
double parse_confidence(const std::string& opt, const std::string& v, const char* usage);

/// Writes `text` to `path`, or to standard output for "-"; throws naming
/// the file when it cannot be written.
void write_output(const std::string& path, const std::string& text);

/// The store --db names, or pathscope.db in the current folder.
std::string db_path(const Args& a);

}  // namespace pathscope::cli
