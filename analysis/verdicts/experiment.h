// An experiment's matrix judged one setting at a time: for every
// combination of the other settings, the runs of the setting's values are
// compared (each against the first value, the baseline) on a few headline
// metrics, with the same verdicts as `compare`. The seed review's table
// ("do unconnected sockets pay for a per-packet route lookup, in each of the
// four bind/connect combinations?") is compare --experiment ID --by
// engine.route_cache over a bind x connect x route_cache matrix.
#pragma once

#include <string>
#include <vector>

#include "analysis/verdicts/compare.h"
#include "db/records.h"

namespace pathscope::analysis {

struct ExperimentRow {
    std::string others;             ///< the other settings, "socket.bind=false socket.connect=true"
    std::vector<int64_t> run_ids;   ///< one per value of the setting (0: no such cell)
    /// verdicts[m][v - 1]: metric m, value v against value 0.
    std::vector<std::vector<Verdict>> verdicts;
    std::vector<std::string> labels;  ///< the runs' labels, one per value ("" when no cell)
    /// values[m][v]: metric m's per-trial values in the run of value v (empty when none).
    std::vector<std::vector<std::vector<double>>> values;
};

struct ExperimentComparison {
    std::string experiment;
    std::string by;                   ///< the setting judged
    std::vector<std::string> values;  ///< its values, in cell order; values[0] is the baseline
    std::vector<std::string> metrics;  ///< metric names compared, with their units below
    std::vector<std::string> units;
    std::vector<ExperimentRow> rows;
    double confidence = 95;
    size_t runs = 0;
};

/// A cell's settings from RunInfo::cell ("key=value" lines), in order.
std::vector<std::pair<std::string, std::string>> cell_settings(const std::string& cell);

/// A cell told apart from the experiment's other cells (`cells`, every
/// cell's RunInfo::cell, this one among them): only the settings whose
/// value is not the same in all cells, each key shortened to its shortest
/// trailing part ("socket.bind" to "bind", "engine.route_cache" to
/// "cache", parts split at '.' and '_') that no other such key ends in:
/// "bind=true connect=false cache=on". A cell no other differs from keeps
/// all its settings, shortened alike.
std::string cell_difference(const std::string& cell, const std::vector<std::string>& cells);

/// A verdict as the comparison prints it: "better", "worse", "no
/// difference", "too few trials" or "unreliable".
std::string verdict_text(const Verdict& v);

/// Judges `by` across `runs` (the experiment's cells). `metrics` names
/// the metrics to compare ("tx rate", "all stages", "udp6_output",
/// "ip6_lookup p50", ...); empty: the run's rate (tx or rx) and "all
/// stages". Throws std::runtime_error naming what is wrong (no such
/// setting, a metric no run has).
ExperimentComparison compare_experiment(const std::vector<db::RunData>& runs,
                                        const std::string& by,
                                        const std::vector<std::string>& metrics,
                                        double confidence);

}  // namespace pathscope::analysis
