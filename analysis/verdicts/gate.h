// A regression gate for CI: a candidate run judged against a baseline with
// compare's statistics, on a few headline metrics, with one outcome a CI job
// can act on. A metric fails the gate when it is worse with significance
// *and* by more than the allowed regression; the gate cannot judge when a
// metric has too few trials a side, is missing from a run, or measures the
// workload instead of the engine (a rate from a starved worker).
#pragma once

#include <string>
#include <vector>

#include "analysis/verdicts/compare.h"
#include "db/records.h"

namespace pathscope::analysis {

struct GateOptions {
    /// Metrics judged besides the defaults (the run's rate and "all stages").
    std::vector<std::string> metrics;
    double max_regression_percent = 2;
    double confidence = 95;
    /// Fewer trials a side than this and a metric cannot be judged (ministat
    /// refuses fewer than 3 values a set).
    size_t min_trials = 3;
};

/// Where a run of the gate came from, for the summary.
struct GateRun {
    int64_t id = 0;
    std::string label, store;
    size_t trials = 0;
};

struct GateLine {
    std::string name, unit;
    Verdict verdict;          ///< valid when judged
    bool judged = false;      ///< a verdict the gate may act on
    bool regression = false;  ///< worse, significant, and beyond the limit
    std::string why_not;      ///< when not judged: why
};

enum class GateOutcome { pass, fail, cannot_judge };

struct GateResult {
    GateRun base, cand;
    GateOptions options;
    std::vector<GateLine> lines;
    std::vector<std::string> warnings;  ///< a starved worker, a self-comparison
    GateOutcome outcome = GateOutcome::cannot_judge;
    /// The exit status a CI job acts on: 0 pass, 1 fail, 2 cannot judge.
    int exit_status() const;
};

/// Judges `cand` against `base`. A regression anywhere fails the gate even
/// when another metric cannot be judged; otherwise any metric that cannot be
/// judged makes the outcome cannot_judge. Throws std::runtime_error naming a
/// metric that neither run has.
GateResult judge_gate(const db::RunData& base, const db::RunData& cand, const GateOptions& opt,
                      const std::string& base_store, const std::string& cand_store);

/// "pass", "fail" or "cannot judge".
const char* gate_outcome_text(GateOutcome o);
/// A short Markdown summary for a review tool's comment: the outcome, each
/// failing metric with its change and interval, and the table of verdicts.
std::string render_gate_markdown(const GateResult& g);
std::string render_gate_json(const GateResult& g);

}  // namespace pathscope::analysis
