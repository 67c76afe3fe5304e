// pathscope gate: a CI job's regression check of a candidate run against a
// baseline, with an exit status to act on and a summary to post.
#include <iostream>

#include "analysis/verdicts/gate.h"
#include "analysis/text/safe_text.h"
#include "analysis/verdicts/sequential.h"
#include "cli/cli_support.h"
#include "db/queries.h"

namespace pathscope::cli {

namespace {

struct GateArgs {
    std::string db, base_db, base, cand, baseline_label;
    std::vector<std::string> metrics;
    std::string format = "md", out = "-", confidence;  ///< "": 95, or an auto experiment's level
    double max_regression = 2;
};

db::RunData load(const std::string& store, const std::string& ref) {
    auto db = open_existing_store(store, db::Database::Mode::read_only);
    return db::load_run(*db, resolve_run(*db, ref).id);
}

int gate(GateArgs a) {
    if (!a.baseline_label.empty()) {
        if (!a.cand.empty())
            throw UsageError("--baseline-label names the baseline: give the candidate only");
        a.cand = a.base;
        if (a.baseline_label.find_first_not_of("0123456789") == std::string::npos)
            throw UsageError("--baseline-label '" + a.baseline_label +
                             "' is a number: give a run id as BASE instead");
        a.base = a.baseline_label;  // a label names its latest run
    }
    if (a.base.empty() || a.cand.empty())
        throw UsageError("gate needs BASE and CANDIDATE (two runs), or --baseline-label L and "
                         "CANDIDATE");
    const std::string base_store = a.base_db.empty() ? a.db : a.base_db;
    const db::RunData base = load(base_store, a.base);
    const db::RunData cand = load(a.db, a.cand);
    analysis::GateOptions opt;
    opt.metrics = a.metrics;
    opt.max_regression_percent = a.max_regression;
    opt.confidence = a.confidence.empty() ? analysis::judged_confidence(base, cand, 95)
                                          : confidence_value(a.confidence);
    const analysis::GateResult g =
        analysis::judge_gate(base, cand, opt, db::redacted(base_store), db::redacted(a.db));
    const std::string text =
        a.format == "json" ? analysis::render_gate_json(g) : analysis::render_gate_markdown(g);
    write_output(a.out, text);
    std::cerr << "pathscope gate: " << analysis::gate_outcome_text(g.outcome) << " (exit status "
              << g.exit_status() << ")"
              << (a.out == "-" ? "" : "; the " + a.format + " summary is in " +
                                          analysis::printable(a.out))
              << "\n";
    return g.exit_status();
}

}  // namespace

void add_gate_verb(CLI::App& app, Verbs& verbs) {
    auto a = std::make_shared<GateArgs>();
    CLI::App* v = app.add_subcommand(
        "gate", "a regression gate for CI: exit 1 when the candidate is significantly worse");
    v->footer(
        "Judges CANDIDATE against BASE with the statistics of `compare` (Student's t\n"
        "over the runs' trials; paired t when they are cells of one experiment) on the\n"
        "run's rate (rx, or tx for a run that only sent) and \"all stages\" cycles per\n"
        "packet, and on each --metric, the false discovery rate controlled over them\n"
        "(Benjamini-Hochberg). A metric fails the gate when the whole interval of its\n"
        "change is worse than --max-regression percent. Exit status:\n"
        "  0  pass: no metric is proven to have regressed beyond the limit;\n"
        "  1  fail: at least one is (each is named with its change and interval);\n"
        "  2  cannot judge (fewer than 3 trials a side, a trial without a value, a\n"
        "     test that cannot reject at this N, a verdict resting on a disturbed\n"
        "     trial, a metric one run lacks, a rate from a starved worker) or bad\n"
        "     input (no such store, run or metric).\n"
        "It prints a short Markdown summary for a review tool's comment (--format md)\n"
        "or JSON. A CI job, against the latest nightly baseline:\n"
        "  pathscope run samples/default.toml --trials 5 --label pr-123 --db ci.db\n"
        "  pathscope gate --baseline-label nightly --base-db team.db pr-123 --db ci.db\n"
        "A run is named by its id, its label (the latest run with that label) or label@N.");
    v->add_option("BASE", a->base, "the baseline: id, label or label@N");
    v->add_option("CANDIDATE", a->cand, "the candidate: id, label or label@N");
    add_db_option(v, a->db);
    v->add_option("--base-db", a->base_db, "the baseline's store, when it is not --db's")
        ->type_name("FILE");
    v->add_option("--baseline-label", a->baseline_label,
                  "the baseline is the latest run with this label (a nightly baseline)")
        ->type_name("LABEL");
    v->add_option("--metric", a->metrics,
                  "a metric judged besides the defaults (repeat for more): \"tx rate\", a stage\n"
                  "name, \"STAGE p99\", \"rr p99\", a perf event... (see pathscope compare --help)")
        ->type_name("NAME")
        ->allow_extra_args(false);
    v->add_option("--max-regression", a->max_regression,
                  "percent a metric may get worse before the gate fails (default 2)")
        ->type_name("PCT")
        ->check(CLI::Range(0.0, 1000.0));
    v->add_option("--format", a->format, "md (default) or json")
        ->check(CLI::IsMember({"md", "json"}));
    v->add_option("-o,--output", a->out, "write the summary there instead of standard output")
        ->type_name("FILE");
    v->add_option("--confidence", a->confidence, "80, 90, 95 (default), 98, 99 or 99.5")
        ->check(kConfidence);
    verbs.add(v, [a] {
        // Every failure to judge is exit status 2, so that 1 always means a
        // regression: a missing store or run is bad input here, not an error.
        try {
            return gate(*a);
        } catch (const UsageError&) {
            throw;
        } catch (const std::exception& e) {
            std::cerr << "pathscope gate: " << analysis::printable_lines(e.what()) << "\n";
            return 2;
        }
    });
}

}  // namespace pathscope::cli
