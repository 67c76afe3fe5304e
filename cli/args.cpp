#include "cli/args.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "analysis/stats.h"

namespace pathscope::cli {

void usage_error(const std::string& msg, const char* usage) {
    std::cerr << "pathscope: " << msg << "\n\n" << usage;
    std::exit(2);
}

std::string Args::get(const std::string& opt, const std::string& fallback) const {
    auto it = values.find(opt);
    return it == values.end() || it->second.empty() ? fallback : it->second.back();
}

const std::vector<std::string>& Args::all(const std::string& opt) const {
    static const std::vector<std::string> none;
    auto it = values.find(opt);
    return it == values.end() ? none : it->second;
}

Args parse_args(const std::vector<std::string>& args, const std::set<std::string>& with_value,
                const std::set<std::string>& flags, const char* usage) {
    Args out;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i];
        std::string inline_value;
        bool has_inline = false;
        if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {
            inline_value = a.substr(a.find('=') + 1);
            a = a.substr(0, a.find('='));
            has_inline = true;
        }
        if (with_value.count(a)) {
            if (!has_inline && i + 1 >= args.size()) usage_error(a + " needs a value", usage);
            out.values[a].push_back(has_inline ? inline_value : args[++i]);
        } else if (flags.count(a) && !has_inline) {
            out.flags.insert(a);
        } else if (a.size() > 1 && a[0] == '-') {
            usage_error("unknown option '" + args[i] + "'", usage);
        } else {
            out.positional.push_back(args[i]);
        }
    }
    return out;
}

bool wants_help(const std::vector<std::string>& args) {
    for (const auto& a : args)
        if (a == "--help" || a == "-h") return true;
    return false;
}

uint64_t parse_count(const std::string& opt, const std::string& v, const char* usage) {
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 12)
        usage_error(opt + " needs a whole number, not '" + v + "'", usage);
    return std::stoull(v);
}

double parse_seconds(const std::string& opt, const std::string& v, const char* usage) {
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !(d > 0))
        usage_error(opt + " needs a positive number of seconds, not '" + v + "'", usage);
    return d;
}

double parse_confidence(const std::string& opt, const std::string& v, const char* usage) {
    char* end = nullptr;
    const double c = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !analysis::is_confidence_level(c))
        usage_error(opt + " takes 80, 90, 95, 98, 99 or 99.5, not '" + v + "'", usage);
    return c;
}

void write_output(const std::string& path, const std::string& text) {
    if (path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return;
    }
    std::ofstream f(path, std::ios::binary);
    f << text;
    f.close();
    if (!f)
        throw std::runtime_error("cannot write '" + path + "' (is the folder there and writable?)");
}

std::string db_path(const Args& a) { return a.get("--db", "pathscope.db"); }

}  // namespace pathscope::cli
