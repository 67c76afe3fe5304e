// What a run measured, as per-trial numbers ready for a verdict: throughput,
// cycles per packet at each stage, per-call cycle percentiles, perf counters
// per packet; and the run's flame trees (stages and sampled stacks).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/trees/flame_diff.h"
#include "analysis/trees/flame_tree.h"
#include "analysis/figures/metric_names.h"
#include "analysis/figures/run_summary.h"
#include "db/records.h"

namespace pathscope::analysis {

struct Metric {
    std::string group;  ///< "throughput", "stage cycles", "call latency", "perf"
    std::string name;   ///< "rx rate", "ip6_lookup", "ip6_lookup p99", ...
    std::string unit;   ///< "Mpps", "cycles/pkt", "cycles/call", "ns/pkt", ...
    bool higher_is_better = false;
    bool skewed = false;         ///< compared with Mann-Whitney U, not Student's t
    /// One per trial. NaN: the trial has no value (a trial a re-run
    /// replaced, a trial that moved no packet, a counter the PMU lacks):
    /// missing is left out of every statistic, never counted as 0.
    std::vector<double> values;
    /// Call latency only: the stage's packets per busy call, per trial.
    std::vector<double> packets_per_call = {};
    /// Per trial: its time block (trials of an experiment's runs with the
    /// same block ran side by side, and pair), and why it was disturbed
    /// ("" when it was not, or was not measured).
    std::vector<int> blocks = {};
    std::vector<std::string> disturbed = {};
    /// The run's experiment id ("" outside one): runs of one experiment pair by block.
    std::string experiment = {};
    /// Why this figure measures the workload, not the engine ("" when it
    /// does not): a starved worker's rates. Judged, it is unreliable.
    std::string workload_bound = {};
    /// The run's trials that count (not replaced by a re-run).
    size_t counted = 0;
    /// How many values are there (not NaN).
    size_t present() const;
};

/// `values` without the missing ones (NaN), in order.
std::vector<double> present_values(const std::vector<double>& values);

std::vector<Metric> run_metrics(const db::RunData& run);

/// A run's figure from its per-trial values: their mean, the statistic the
/// comparisons test, with the trials' spread (sample standard deviation).
/// `show`, `run`, the reports, the exports and the GUI form every run
/// figure of a per-trial metric this way; a pooled figure (all trials'
/// counters summed, then divided) is another quantity with another name.
struct RunFigure {
    double mean = 0, stddev = 0;
    size_t trials = 0;
};
RunFigure run_figure(const std::vector<double>& per_trial);

/// The name of a perf event's metric ("perf::cpu-clock" -> "cpu-clock").
std::string perf_metric_name(const std::string& event);

/// The metric named (group, name) in `metrics`, or nullptr.
const Metric* find_metric(const std::vector<Metric>& metrics, const std::string& group,
                          const std::string& name);
/// The first metric called `name` in `metrics` (of any group), or nullptr:
/// how a user's --metric NAME is looked up.
const Metric* find_metric(const std::vector<Metric>& metrics, const std::string& name);

/// Stages as children of the root, weighted by their exact busy cycles; each
/// trial is scaled by its received packets, so compared values are cycles
/// per received packet (they add up to the run's cycles per packet).
FlameTree stage_tree(const db::RunData& run);
/// Leaves the trials a re-run replaced out of a whole run's tree, as every
/// figure of the run leaves them out (the stage table, compare).
void leave_out_replaced(FlameTree& tree, const db::RunData& run);
/// Adds the busy cycles of the stage rows `wanted(trial, seq)` keeps to a
/// stage tree, a frame a stage; with several receive queues, eth_rx's as a
/// child frame per queue (its instances').
void add_stage_frames(FlameTree& tree, const db::RunData& run,
                      const std::function<bool(int trial, int seq)>& wanted);

/// The run's sampled call stacks of `event` ("" picks the event with the
/// most samples), each trial scaled by its sample count (compared values are
/// shares of the samples); trials without samples are not counted.
FlameTree stack_tree(const db::RunData& run, const std::string& event = "");
/// The event stack_tree("") picks, or "" when the run has no stacks.
std::string main_stack_event(const db::RunData& run);

class StackPlacer;

/// stack_tree(run) of a run that grows (the GUI's live view follows a
/// running capture): each update places only the stack rows added since the
/// last, where building the tree again walks every distinct stack of the
/// run (half a second for a million samples over a hundred thousand
/// stacks). After every update the tree is the one stack_tree(run) builds.
class GrowingStackTree {
  public:
    GrowingStackTree();
    ~GrowingStackTree();
    /// `run` holds the rows of the run of the last update with rows
    /// appended (db::merge_run_rows), unless reset() was called since.
    /// Returns its tree, or nullptr when it has no stacks.
    const FlameTree* update(const db::RunData& run);
    /// The rows of the next update are not the last one's grown (another
    /// run, or a trial's stacks read again): it builds the tree anew.
    void reset();
    /// The main event (main_stack_event) and its samples over every row.
    const std::string& event() const { return event_; }
    uint64_t samples() const;
    /// The tree of the last update (nullptr: no stacks).
    const FlameTree* tree() const { return tree_.get(); }
    /// That tree against itself (a run's own flame graph), grown with it.
    std::shared_ptr<const FlameDiff> own_diff();

  private:
    std::map<std::string, uint64_t> event_weight_;
    size_t rows_ = 0;  ///< stack rows placed
    std::string event_;
    std::unique_ptr<FlameTree> tree_;
    GrowingSelfDiff diff_;  ///< of tree_
    std::unique_ptr<StackPlacer> placer_;
    std::vector<double> per_trial_;
};

/// Finds a sampled stack's node in a tree, making it when missing: from the
/// run's interned stacks each distinct stack is walked once (a million
/// sample rows over a hundred thousand stacks cost a hundred thousand
/// walks), from a row's own frames (rows made in memory) every time.
class StackPlacer {
  public:
    StackPlacer(FlameTree& tree, const db::StackIndex& index);
    /// Reads `index` from now on: the one before grown (a followed run's
    /// index, with the nodes and frames of later reads appended).
    void follow(const db::StackIndex& index);
    size_t node(const db::StackRow& row);

  private:
    size_t place(int32_t index_node);
    FlameTree& tree_;
    const db::StackIndex* index_;
    std::vector<int32_t> placed_;       ///< per index node, its tree node (-1: not yet)
    std::vector<std::string> names_;    ///< per index frame, its frame_name
};

}  // namespace pathscope::analysis
