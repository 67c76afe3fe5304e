// The difference of two flame trees, node by node (matched by call path):
// each node's change in absolute and relative terms, and whether it is within
// noise. With trials on both sides, noise is Student's t on the per-trial
// values; without, a stated threshold decides.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "analysis/trees/flame_tree.h"
#include "analysis/stats/stats.h"

namespace pathscope::analysis {

struct DiffOptions {
    double confidence = 95;
    /// Without trials: changes below this fraction of the node's baseline
    /// value, or below `min_share` of the whole tree, count as noise.
    double threshold = 0.05;
    double min_share = 0.005;
};

/// Whether the change between two sides' per-trial values is within noise:
/// Student's t on the trials when both sides have two or more counted
/// trials, with the false discovery rate controlled over every node of the
/// comparison (Benjamini-Hochberg), else the stated thresholds. Every
/// comparison of flame trees (nodes, functions, call trees) decides with
/// this one rule.
struct NoiseRule {
    NoiseRule(const FlameTree& base, const FlameTree& cand, const DiffOptions& opt);
    bool operator()(const Summary& b, const Summary& c) const;
    /// By trials: Student's t's two-sided p of the change (1 without trials).
    double p_value(const Summary& b, const Summary& c) const;
    /// By trials: marks noise in a family of changes from their p-values
    /// (Benjamini-Hochberg at the rule's confidence); `noise` is left as
    /// the thresholds set it otherwise.
    void decide(const std::vector<double>& p, const std::vector<bool*>& noise) const;
    /// The rule in words ("within noise: Student's t on 3 vs 3 trials ...").
    std::string method() const;
    DiffOptions opt;
    bool by_trials = false;
    int base_trials = 0, cand_trials = 0;
    double whole = 0;  ///< the larger of the two roots' means
};

struct DiffNode {
    std::string name;
    int parent = -1;
    std::vector<int> children;
    double base = 0, cand = 0;  ///< mean over trials of the scaled totals
    double delta = 0;           ///< cand - base
    double relative = 0;        ///< delta / base; infinite when the node is new
    double p = 1;               ///< Student's t's p on the trials (1 without trials)
    bool noise = true;
    /// Set when the stage's verdict could not judge the change ("unreliable",
    /// "too few trials"): views print it instead of "within noise".
    std::string unjudged;
};

/// The word every view gives a node's change: its verdict's word when that
/// could not judge, else "within noise" or "changed".
std::string change_word(const DiffNode& n);

struct FlameDiff {
    std::vector<DiffNode> nodes;  ///< node 0 is the root; parents before children
    std::string method;           ///< how noise was decided, in words
    std::string path(size_t i) const;
};

FlameDiff diff_trees(const FlameTree& base, const FlameTree& cand, const DiffOptions& opt = {});

/// diff_trees(t, t) of a tree that grows (a followed run's stack tree:
/// nodes appended, weights and counted trials changed between updates),
/// kept from update to update: each appends the new nodes and sets every
/// node's values, where diff_trees makes all of a long profile's million
/// nodes again. Its nodes are numbered in the tree's order (parents before
/// children, each node's children in the tree's order), not depth first;
/// every node, value and verdict is diff_trees'.
class GrowingSelfDiff {
  public:
    /// The diff of `t`: the tree of the last update, grown, unless reset()
    /// was called since. A diff it returned is never changed while anyone
    /// else holds it (the window showing it): a free one is grown.
    std::shared_ptr<const FlameDiff> update(const FlameTree& t);
    /// The next tree is not the last one grown.
    void reset();

  private:
    struct Kept {
        std::shared_ptr<FlameDiff> diff;
        std::vector<int> node_of;  ///< tree node -> its diff node
    };
    std::array<Kept, 2> kept_;  ///< the newest, and the one before (the window may still hold it)
    size_t newest_ = 0;
};

/// A function's own (self) share of the samples, summed over every call
/// path it appears on, in both trees; noise decided as for nodes.
struct SelfShare {
    std::string name;
    double base = 0, cand = 0;  ///< mean over trials of the scaled self weight
    bool noise = true;
};
/// The `rows` functions with the largest self share in either tree.
std::vector<SelfShare> hottest_functions(const FlameTree& base, const FlameTree& cand,
                                         size_t rows, const DiffOptions& opt = {});

}  // namespace pathscope::analysis
