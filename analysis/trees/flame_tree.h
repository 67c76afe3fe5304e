// Flame trees: weighted call trees from the stage counters (exact cycles),
// sampled stacks, folded-stack files or `perf script` text, kept per trial so
// that their difference can tell a real change from run-to-run noise.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <unordered_map>
#include <vector>

namespace pathscope::analysis {

class FlameTree {
  public:
    /// `trials` repetitions; `unit` names what the weights count ("cycles").
    explicit FlameTree(int trials = 1, std::string unit = "samples");

    int trials() const { return trials_; }
    const std::string& unit() const { return unit_; }

    /// Adds `weight` to the stack `frames` (root first) in `trial`.
    void add(const std::vector<std::string>& frames, double weight, int trial = 0);
    /// The child of `node` called `name`, made when missing (a builder that
    /// walks interned stacks adds each distinct stack once this way).
    int add_child(size_t node, const std::string& name);
    /// Room for `nodes` nodes in all, made before a large build.
    void reserve(size_t nodes);
    /// Adds `weight` to node `node`'s own weight in `trial`.
    void add_weight(size_t node, double weight, int trial = 0);
    /// What a trial's weights are divided by when trials are compared
    /// (its packets, or its total samples); 1 by default. A trial whose
    /// divisor is 0 (nothing received) scales to 0, as its per-trial
    /// metric does.
    void set_trial_scale(int trial, double divisor);
    /// Leaves a trial out of the run's figures (a time range it has no
    /// interval in).
    void exclude_trial(int trial);
    /// Counts every trial again (a growing tree's trial gained samples).
    void count_every_trial();
    /// The trials the run's figures are the mean of.
    std::vector<int> counted_trials() const;

    /// Node 0 is the root (named "all"); a child's index is above its parent's.
    size_t size() const { return nodes_.size(); }
    const std::string& name(size_t i) const { return names_[nodes_[i].name]; }
    int parent(size_t i) const { return nodes_[i].parent; }
    const std::vector<int>& children(size_t i) const { return nodes_[i].children; }
    /// Names are interned: a node's name id, and the names by id (ids are
    /// dense, from 0 to name_count() - 1; 0 is the root's "all").
    uint32_t name_id(size_t i) const { return nodes_[i].name; }
    size_t name_count() const { return names_.size(); }
    const std::string& name_of(uint32_t id) const { return names_[id]; }
    /// The child of `node` called `name`, or -1.
    int child(size_t node, const std::string& name) const;
    /// Weight of the node and everything under it, over all trials.
    double total(size_t i) const;
    /// Weight of the node itself, over all trials.
    double self(size_t i) const;
    /// A trial's total for the node, divided by the trial's scale.
    double scaled_total(size_t i, int trial) const;
    /// A trial's own weight for the node, divided by the trial's scale.
    double scaled_self(size_t i, int trial) const {
        return scale_[trial] > 0 ? self_[i * trials_ + trial] / scale_[trial] : 0;
    }
    /// The run's figure for a node: the mean over the counted trials of its
    /// scaled total (or self) weight, the per-trial statistic the
    /// comparisons test (analysis::run_figure). Shares are ratios of these.
    double mean_scaled_total(size_t i) const;
    double mean_scaled_self(size_t i) const;
    /// A node's own weight for an export (folded, speedscope): its share of
    /// the run by mean_scaled_self, times the whole tree's raw weight, so
    /// the file keeps its unit and total (samples, cycles) and every share
    /// in it is the run's figure. For one trial it is self(i) exactly.
    double export_self(size_t i) const;
    /// "a;b;c" from the root's first child down to node i.
    std::string path(size_t i) const;

  private:
    struct Node {
        uint32_t name = 0;
        int parent = -1;
        std::vector<int> children;
    };
    uint32_t intern(const std::string& name);
    void refresh() const;

    int trials_;
    std::string unit_;
    std::vector<Node> nodes_;
    std::vector<std::string> names_;
    std::unordered_map<std::string, uint32_t> name_ids_;
    std::unordered_map<uint64_t, int> child_of_;  // (parent << 32 | name) -> node
    std::vector<double> self_;                   // node * trials + trial
    std::vector<double> scale_;
    std::vector<bool> counted_;
    mutable std::vector<double> total_;  // node * trials + trial, rebuilt on demand
    mutable bool stale_ = true;
};

/// Every stack with weight of its own, sorted, weighed by export_self in
/// whole units (for one trial: its weight; for several: each trial counts
/// alike).
std::string to_folded(const FlameTree& tree);

/// speedscope's file format (sampled profiles, shared frames), one profile
/// a tree: https://www.speedscope.app/file-format-schema.json
struct NamedTree {
    std::string name;
    const FlameTree* tree;
};
std::string to_speedscope(const std::vector<NamedTree>& profiles, const std::string& name);

}  // namespace pathscope::analysis
