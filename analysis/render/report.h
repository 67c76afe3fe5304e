// A code-review report of one run, or of a baseline and a candidate: the
// environment and scenario difference, verdicts with ministat plots, per-stage
// deltas, per-call cycle histograms, queue skew and the flame graphs. Built
// once as plain data, rendered as text (80 columns), Markdown, HTML with
// inline SVG, or JSON.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/verdicts/compare.h"
#include "analysis/trees/flame_diff.h"
#include "common/histogram.h"
#include "analysis/stats/ministat.h"
#include "analysis/figures/queue_skew.h"
#include "analysis/figures/time_series.h"
#include "db/records.h"

namespace pathscope::analysis {

struct ReportOptions {
    double confidence = 95;
    unsigned top_frames = 12;      ///< rows of the hottest-functions table
    unsigned histogram_stages = 3; ///< busiest stages whose per-call cycles are drawn
};

struct Report {
    ReportOptions options;
    db::RunInfo base;
    bool has_cand = false;
    db::RunInfo cand;
    /// Field, base value, candidate value ("" with one run); differing first.
    std::vector<std::array<std::string, 3>> environment;
    /// Unified-style lines of the scenario text and --set settings: " same",
    /// "-base only", "+cand only".
    std::vector<std::string> scenario_diff;
    /// One run: what it ran with beside its scenario file, "--set key=value"
    /// and, for a matrix cell, "cell key=value" lines (empty: the file as written).
    std::vector<std::string> settings;
    /// Said before anything else: a starved worker, for each run that had
    /// one; what the two runs ran on differently.
    std::vector<std::string> warnings;

    std::vector<Metric> base_metrics, cand_metrics;
    std::vector<Verdict> verdicts;  ///< two runs only
    /// ministat's output (plot, table, verdict) for the headline metrics,
    /// when both runs have the 3 trials a side it needs.
    struct MinistatPlot {
        std::string title;
        std::string text;  ///< ministat's own output, its last line its own test alone
        /// "pathscope's verdict (as in every view): ...": the figure's
        /// verdict from `verdicts`, which may differ from ministat's test.
        std::string verdict;
    };
    std::vector<MinistatPlot> ministat_plots;

    struct StageHistogram {
        std::string stage;
        Histogram base, cand;
    };
    std::vector<StageHistogram> histograms;
    std::vector<QueueSkew> base_queues, cand_queues;
    /// Per-interval figures, for the HTML report's line chart.
    TimeSeries base_series, cand_series;

    /// What the stage cycles are per: "received packet", or "sent datagram"
    /// for a run that received nothing (see PacketBasis).
    std::string per_packet = "received packet";
    bool transmit = false;  ///< the base run only sent (PacketBasis)
    /// Stage cycles per packet; with one run, base against itself.
    FlameDiff stages;
    /// Each run's "pathscope's own timing: ..." line (timing_cost_line),
    /// and for a Linux run how its stages were estimated.
    std::vector<std::string> timing;
    /// Where the stage cycles come from: "exact counters" (the engine's), or
    /// "sampled kernel CPU time" when a run is a Linux run.
    std::string stage_source = "exact counters";
    /// What a Linux run lacks (kKernelAbsent), said in the sections it would
    /// fill; "" for engine runs.
    std::string absent;
    std::string stack_event;  ///< "" when the runs have no sampled stacks
    FlameDiff stacks;         ///< shares of the samples
    std::vector<SelfShare> hottest;  ///< functions by self share of the samples
};

Report build_report(const db::RunData& base, const db::RunData* cand, const ReportOptions& opt);

std::string render_report_text(const Report& r);
/// The text report's hottest-functions section alone (`compare` prints it).
std::string render_hottest_text(const Report& r);
std::string render_report_markdown(const Report& r);
std::string render_report_html(const Report& r);
std::string render_report_json(const Report& r);

/// The report's renderings; the CLI's --format and the desktop program's
/// export choose among them through the two functions below.
enum class ReportFormat { text, markdown, html, json };
/// The names `--format` accepts: "text", "md", "markdown", "html", "json".
inline constexpr std::array<const char*, 5> kReportFormatNames{"text", "md", "markdown", "html",
                                                               "json"};
/// A format from its name (kReportFormatNames); nullopt for any other.
std::optional<ReportFormat> report_format_from_name(std::string_view name);
/// A format from a file's ending: .txt, .md, .html or .htm, .json (any
/// case); nullopt for any other.
std::optional<ReportFormat> report_format_from_file(std::string_view file);
std::string render_report(const Report& r, ReportFormat format);

/// "-" lines of a, "+" lines of b, " " lines of both (longest common subsequence).
std::vector<std::string> line_diff(const std::string& a, const std::string& b);

}  // namespace pathscope::analysis
