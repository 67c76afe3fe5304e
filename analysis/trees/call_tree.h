// Call trees of sampled stacks as a profiler's tables show them: top-down
// (the call tree with self and inclusive cost), bottom-up (for each function
// that was sampled running, the chains of its callers, each carrying that
// function's own cost) and caller/callee (per function: its self and
// inclusive cost, who called it and what it called). Made from one flame
// tree (a run) or two (a comparison: base, candidate, change, noise), all
// from one top-down tree, so that the tables agree with each other and with
// the flame graph: a share here is the run's figure (FlameTree::
// mean_scaled_*) the flame graph shows.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/trees/flame_diff.h"
#include "analysis/trees/flame_tree.h"

namespace pathscope::analysis {

/// What the columns of a cost vector are. For each side (one for a run;
/// base then candidate for a comparison): its raw weight over all trials
/// (samples), then one column per counted trial with that trial's scaled
/// weight. Every figure of a call tree is a sum of stacks' vectors, so each
/// is formed from its trials as FlameTree::mean_scaled_* forms it, and the
/// comparison's noise verdict tests the same per-trial values diff_trees does.
class CostColumns {
  public:
    explicit CostColumns(const FlameTree& run);
    CostColumns(const FlameTree& base, const FlameTree& cand, const DiffOptions& opt);

    int sides() const { return sides_; }
    bool comparison() const { return sides_ == 2; }
    size_t width() const { return width_; }
    /// What the raw weights count ("samples").
    const std::string& unit() const { return unit_; }
    /// How a comparison decides noise, in words (FlameDiff::method's rule).
    const std::string& noise_method() const { return method_; }

    /// Adds a flame tree node's own weight on `side` to `out` (width() values).
    void add_stack(const FlameTree& t, size_t node, int side, double* out) const;
    /// Raw weight on `side` (samples, over all trials).
    double samples(const double* v, int side) const { return v[first_[side]]; }
    /// The run's figure: the mean over counted trials of the scaled weight.
    double value(const double* v, int side) const;
    /// value() as a fraction of the side's whole tree (0..1).
    double share(const double* v, int side) const {
        return whole_[side] > 0 ? value(v, side) / whole_[side] : 0;
    }
    /// A comparison's verdict on v: its change from base to candidate is
    /// within noise (always true for a single run).
    bool within_noise(const double* v) const;

  private:
    int sides_ = 1;
    size_t width_ = 0;
    std::array<size_t, 2> first_{};
    std::array<std::vector<int>, 2> counted_;
    std::array<double, 2> whole_{};
    std::string unit_, method_;
    std::optional<NoiseRule> noise_;
};

/// A top-down or bottom-up call tree. Node 0 is the root ("all"); a node's
/// parent comes before it. Names are interned (dense ids); each node holds a
/// self and a total cost vector (CostColumns). Top-down: self is the weight
/// sampled in the node itself, total its subtree's. Bottom-up: a first-level
/// node is a function sampled running, its children are its callers, and
/// every node's total is the own cost of that first-level function reached
/// along this chain of callers; it keeps no self cost (self() reads zeros),
/// which halves the largest of the trees.
class CallTree {
  public:
    enum class Kind { top_down, bottom_up };

    static CallTree top_down(const FlameTree& run);
    /// base and candidate merged by call path.
    static CallTree top_down(const FlameTree& base, const FlameTree& cand,
                             const DiffOptions& opt = {});
    /// The inverted tree of a top-down one.
    static CallTree bottom_up(const CallTree& top_down);

    Kind kind() const { return kind_; }
    const CostColumns& columns() const { return columns_; }

    size_t size() const { return parent_.size(); }
    uint32_t name_id(size_t i) const { return name_[i]; }
    const std::string& name(size_t i) const { return (*names_)[name_[i]]; }
    size_t name_count() const { return names_->size(); }
    const std::string& name_of(uint32_t id) const { return (*names_)[id]; }
    int parent(size_t i) const { return parent_[i]; }
    size_t child_count(size_t i) const { return child_start_[i + 1] - child_start_[i]; }
    int child(size_t i, size_t k) const { return children_[child_start_[i] + k]; }
    /// Node i's place among its parent's children.
    size_t row(size_t i) const { return row_[i]; }
    const double* self(size_t i) const {
        return self_.empty() ? zeros_.data() : &self_[i * columns_.width()];
    }
    const double* total(size_t i) const { return &total_[i * columns_.width()]; }
    /// The node at `path` (names from the root's first child), or -1.
    int find(const std::vector<std::string>& path) const;
    /// The name ids matching a search (NameMatcher: plain text regardless of
    /// case, or a regular expression), by name id.
    std::vector<bool> match_names(const std::string& pattern, bool regex) const;

  private:
    explicit CallTree(Kind kind, CostColumns columns) : kind_(kind), columns_(std::move(columns)) {}
    void link_children();
    friend class CallTreeBuilder;

    Kind kind_;
    CostColumns columns_;
    std::shared_ptr<const std::vector<std::string>> names_;
    std::vector<uint32_t> name_;
    std::vector<int> parent_;
    std::vector<uint32_t> child_start_;  ///< node i's children: children_[start[i] .. start[i+1])
    std::vector<int> children_;
    std::vector<uint32_t> row_;
    std::vector<double> self_, total_;  ///< node * width + column
    std::vector<double> zeros_;         ///< width zeros: a bottom-up tree's self
};

/// Per function (by name id): its own cost, summed over every call path,
/// and its inclusive cost, counted once per stack however deep it recurses;
/// and for one function its callers (the cost of this function reached from
/// each) and callees (the cost flowing into each).
class CallerCallee {
  public:
    explicit CallerCallee(std::shared_ptr<const CallTree> top_down);
    const CallTree& tree() const { return *tree_; }
    const CostColumns& columns() const { return tree_->columns(); }
    /// Every function that was sampled (all name ids but the root's).
    const std::vector<uint32_t>& functions() const { return functions_; }
    const double* self(uint32_t name) const { return &self_[name * columns().width()]; }
    const double* inclusive(uint32_t name) const { return &inclusive_[name * columns().width()]; }
    /// The id of `name`, or -1.
    int64_t find(const std::string& name) const;

    struct Links {
        std::vector<uint32_t> names;
        std::vector<double> costs;  ///< names.size() x width
        const double* cost(size_t k, size_t width) const { return &costs[k * width]; }
    };
    struct Neighbours {
        Links callers, callees;
    };
    /// Who called `name` and what it called; a pair is counted once per stack.
    Neighbours neighbours(uint32_t name) const;

  private:
    std::shared_ptr<const CallTree> tree_;
    std::vector<uint32_t> functions_;
    std::vector<double> self_, inclusive_;  ///< name * width + column
    std::vector<int> stacks_;                ///< the top-down nodes with a weight of their own
};

/// The three views of one run's (or one comparison's) stacks, built together.
struct CallViews {
    std::shared_ptr<const CallTree> top_down, bottom_up;
    std::shared_ptr<const CallerCallee> callers;
};
CallViews build_call_views(const FlameTree& run);
CallViews build_call_views(const FlameTree& base, const FlameTree& cand, const DiffOptions& opt = {});

}  // namespace pathscope::analysis
