#include "cli/cli_support.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "analysis/text/number_text.h"
#include "analysis/text/safe_text.h"
#include "analysis/stats/stats.h"
#include "capture/scenario.h"
#include "db/schema.h"

namespace pathscope::cli {

namespace {
constexpr const char* kDefaultStore = "pathscope.db";
}  // namespace

CLI::Validator setting_check(const std::string& key, const std::string& type_name) {
    return CLI::Validator(
        [key](std::string& v) -> std::string {
            const std::optional<double> d = analysis::parse_number(v);
            if (!d) return "needs a number, not '" + v + "'";
            return capture::check_setting(key, *d);
        },
        type_name);
}

const CLI::Validator kConfidence(
    [](std::string& v) -> std::string {
        const std::optional<double> c = analysis::parse_number(v);
        if (!c || !analysis::is_confidence_level(*c))
            return "takes 80, 90, 95, 98, 99 or 99.5, not '" + v + "'";
        return "";
    },
    "PERCENT");

double confidence_value(const std::string& checked) {
    return analysis::parse_number(checked).value_or(95);
}

CLI::Option* add_db_option(CLI::App* verb, std::string& path) {
    path = kDefaultStore;
    return verb->add_option("--db", path, "the store (default: pathscope.db in this folder)")
        ->type_name("FILE");
}

std::string db_argument(const std::string& name) {
    if (name == kDefaultStore) return "";
    // A command to run later: a server's URL without its password (libpq
    // finds it in ~/.pgpass or PGPASSWORD).
    const std::string path = db::without_password(name);
    if (!path.empty() &&
        path.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                               "_./:=@%+-") == std::string::npos)
        return " --db " + path;
    std::string quoted = "'";
    for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return " --db " + quoted + "'";
}

std::unique_ptr<db::Database> open_existing_store(const std::string& path,
                                                  db::Database::Mode mode) {
    return db::open_store(path, mode, db::Create::never);
}

db::RunInfo resolve_run(const db::Database& db, const std::string& ref) {
    std::string note;
    db::RunInfo info = db::find_run(db, ref, &note);
    if (!note.empty()) std::cerr << "pathscope: " << analysis::printable_lines(note) << "\n";
    return info;
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

void check_label(const std::string& label) {
    if (!label.empty() && label.find_first_not_of("0123456789") == std::string::npos)
        throw UsageError("--label '" + label +
                         "' is a number, and numbers name run ids; give the label a letter");
    if (label.find('@') != std::string::npos)
        throw UsageError("--label '" + label + "' holds '@', which picks a run by its place (label@N)");
}

}  // namespace pathscope::cli
