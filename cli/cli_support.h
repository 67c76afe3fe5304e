// What the verbs share: the verb table, value checks with messages that say
// how to fix them, output files, and opening a store for reading.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/queries.h"
#include "db/connection.h"

namespace pathscope::cli {

/// A mistake in the command line that parsing could not see (two options
/// that do not go together, a wrong kind of argument): exit status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The verbs, each a CLI11 subcommand with the function that runs it.
struct Verbs {
    std::vector<std::pair<CLI::App*, std::function<int()>>> list;
    void add(CLI::App* verb, std::function<int()> run) { list.emplace_back(verb, std::move(run)); }
};

void add_run_verb(CLI::App& app, Verbs& verbs);
void add_store_verbs(CLI::App& app, Verbs& verbs);   // list, show, merge
void add_report_verbs(CLI::App& app, Verbs& verbs);  // compare, report
void add_gate_verb(CLI::App& app, Verbs& verbs);
void add_stats_verb(CLI::App& app, Verbs& verbs);
void add_import_export_verbs(CLI::App& app, Verbs& verbs);
void add_routes_verb(CLI::App& app, Verbs& verbs);
void add_frames_verb(CLI::App& app, Verbs& verbs);
void add_bench_verb(CLI::App& app, Verbs& verbs);  // bench route-output
void add_stage_verb(CLI::App& app, Verbs& verbs);  // stage FILE.so: a plugin's declaration
/// completion bash, and the hidden man-pages (add them last: they read every verb).
void add_completion_verbs(CLI::App& app, Verbs& verbs);

// Value checks: each names what it wants, so the error says how to fix it.
extern const CLI::Validator kConfidence;  ///< 80 90 95 98 99 99.5
/// The level a --confidence that kConfidence passed gives (in the C locale).
double confidence_value(const std::string& checked);

/// An option that sets the scenario's numeric `key` (--duration sets
/// engine.duration): checked by the scenario's own range check, so the
/// option and --set KEY=VALUE give the same answer.
CLI::Validator setting_check(const std::string& key, const std::string& type_name);

/// --db FILE, default pathscope.db in the current folder.
CLI::Option* add_db_option(CLI::App* verb, std::string& path);

/// " --db FILE" (quoted for a shell when it needs to be) for a command that
/// a verb prints for the user to run next, or "" for the default store.
std::string db_argument(const std::string& path);

/// Opens an existing store for reading. A read verb never creates one: a
/// missing or empty file is refused, naming the file and how to make a
/// store (read_write only migrates it and marks runs whose capture died).
std::unique_ptr<db::Database> open_existing_store(const std::string& path,
                                                  db::Database::Mode mode);

/// The run `ref` names (an id, a label, or label@N), saying on standard
/// error which run a label that names several was taken to mean.
db::RunInfo resolve_run(const db::Database& db, const std::string& ref);

/// Writes `text` to `path`, or to standard output for "-"; throws naming
/// the file when it cannot be written.
void write_output(const std::string& path, const std::string& text);

/// A label a user may give: anything but a number (numbers mean run ids).
void check_label(const std::string& label);

}  // namespace pathscope::cli
