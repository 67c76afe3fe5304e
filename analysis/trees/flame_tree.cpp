#include "analysis/trees/flame_tree.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "analysis/text/json_text.h"
#include "analysis/text/number_text.h"
#include "analysis/text/safe_text.h"

namespace pathscope::analysis {

FlameTree::FlameTree(int trials, std::string unit)
    : trials_(std::max(1, trials)), unit_(std::move(unit)), scale_(trials_, 1.0),
      counted_(trials_, true) {
    nodes_.push_back(Node{intern("all"), -1, {}});
    self_.assign(trials_, 0.0);
}

uint32_t FlameTree::intern(const std::string& name) {
    auto [it, fresh] = name_ids_.try_emplace(name, static_cast<uint32_t>(names_.size()));
    if (fresh) names_.push_back(name);
    return it->second;
}

void FlameTree::add(const std::vector<std::string>& frames, double weight, int trial) {
    size_t node = 0;
    for (const auto& f : frames) node = static_cast<size_t>(add_child(node, f));
    add_weight(node, weight, trial);
}

int FlameTree::add_child(size_t node, const std::string& name) {
    const uint32_t id = intern(name);
    const uint64_t key = (static_cast<uint64_t>(node) << 32) | id;
    auto it = child_of_.find(key);
    if (it == child_of_.end()) {
        const int fresh = static_cast<int>(nodes_.size());
        nodes_.push_back(Node{id, static_cast<int>(node), {}});
        nodes_[node].children.push_back(fresh);
        self_.resize(self_.size() + trials_, 0.0);
        it = child_of_.emplace(key, fresh).first;
        stale_ = true;
    }
    return it->second;
}

void FlameTree::reserve(size_t nodes) {
    nodes_.reserve(nodes);
    self_.reserve(nodes * static_cast<size_t>(trials_));
    child_of_.reserve(nodes);
}

void FlameTree::add_weight(size_t node, double weight, int trial) {
    if (trial < 0 || trial >= trials_)
        throw std::out_of_range("trial " + std::to_string(trial) + " of a tree of " +
                                std::to_string(trials_));
    self_[node * trials_ + trial] += weight;
    stale_ = true;
}

void FlameTree::set_trial_scale(int trial, double divisor) {
    if (trial >= 0 && trial < trials_ && divisor >= 0) scale_[trial] = divisor;
}

void FlameTree::exclude_trial(int trial) {
    if (trial >= 0 && trial < trials_) counted_[trial] = false;
}

void FlameTree::count_every_trial() { counted_.assign(static_cast<size_t>(trials_), true); }

std::vector<int> FlameTree::counted_trials() const {
    std::vector<int> out;
    for (int t = 0; t < trials_; ++t)
        if (counted_[t]) out.push_back(t);
    return out;
}

double FlameTree::mean_scaled_total(size_t i) const {
    const std::vector<int> trials = counted_trials();
    double s = 0;
    for (int t : trials) s += scaled_total(i, t);
    return trials.empty() ? 0 : s / static_cast<double>(trials.size());
}

double FlameTree::mean_scaled_self(size_t i) const {
    const std::vector<int> trials = counted_trials();
    double s = 0;
    for (int t : trials) s += scaled_self(i, t);
    return trials.empty() ? 0 : s / static_cast<double>(trials.size());
}

double FlameTree::export_self(size_t i) const {
    const double whole = mean_scaled_total(0);
    return whole > 0 ? mean_scaled_self(i) / whole * total(0) : 0;
}

int FlameTree::child(size_t node, const std::string& name) const {
    auto id = name_ids_.find(name);
    if (id == name_ids_.end()) return -1;
    auto it = child_of_.find((static_cast<uint64_t>(node) << 32) | id->second);
    return it == child_of_.end() ? -1 : it->second;
}

void FlameTree::refresh() const {
    if (!stale_) return;
    total_ = self_;
    // Children come after their parents, so one backward pass sums subtrees.
    for (size_t i = nodes_.size(); i-- > 1;) {
        const size_t p = static_cast<size_t>(nodes_[i].parent);
        for (int t = 0; t < trials_; ++t) total_[p * trials_ + t] += total_[i * trials_ + t];
    }
    stale_ = false;
}

double FlameTree::total(size_t i) const {
    refresh();
    double s = 0;
    for (int t = 0; t < trials_; ++t) s += total_[i * trials_ + t];
    return s;
}

double FlameTree::self(size_t i) const {
    double s = 0;
    for (int t = 0; t < trials_; ++t) s += self_[i * trials_ + t];
    return s;
}

double FlameTree::scaled_total(size_t i, int trial) const {
    refresh();
    return scale_[trial] > 0 ? total_[i * trials_ + trial] / scale_[trial] : 0;
}

std::string FlameTree::path(size_t i) const {
    std::vector<size_t> chain;
    for (int n = static_cast<int>(i); n > 0; n = nodes_[n].parent) chain.push_back(n);
    std::string out;
    for (size_t k = chain.size(); k-- > 0;) {
        out += names_[nodes_[chain[k]].name];
        if (k) out += ';';
    }
    return out;
}

namespace {

// One trial's weights as they are (a folded file read, or a one-trial run,
// exports byte for byte). Several trials' in whole units, as the store holds
// stack weights, so that an export imported and exported again is the same
// file: within half a unit of the run's shares, and at least 1 for any stack
// with weight, so none is lost.
double export_weight(const FlameTree& tree, size_t i) {
    if (tree.trials() == 1) return tree.self(i);
    const double w = tree.export_self(i);
    return w > 0 ? std::max(1.0, std::round(w)) : 0;
}

}  // namespace

std::string to_folded(const FlameTree& tree) {
    // Keyed by the escaped stack: escaping is many-to-one (every byte that is
    // not UTF-8 shows as U+FFFD), so two stacks may print alike, and they are
    // one line with their weights summed, as a reader would make them. The
    // map keeps the lines sorted.
    std::map<std::string, double> lines;
    for (size_t i = 1; i < tree.size(); ++i) {
        const double w = export_weight(tree, i);
        if (w == 0) continue;
        // Each frame escaped, so that a name holding ';' or a line break
        // cannot split its frame or its line.
        std::vector<size_t> chain;
        for (int n = static_cast<int>(i); n > 0; n = tree.parent(static_cast<size_t>(n)))
            chain.push_back(static_cast<size_t>(n));
        std::string path;
        for (size_t k = chain.size(); k-- > 0;)
            path += folded_frame(tree.name(chain[k])) + (k ? ";" : "");
        lines[path] += w;
    }
    std::string out;
    for (const auto& [path, w] : lines) out += path + " " + shortest_number(w) + "\n";
    return out;
}

std::string to_speedscope(const std::vector<NamedTree>& profiles, const std::string& name) {
    using nlohmann::ordered_json;
    std::map<std::string, size_t> frame_index;
    ordered_json frames = ordered_json::array();
    ordered_json out_profiles = ordered_json::array();
    for (const auto& profile : profiles) {
        const FlameTree& t = *profile.tree;
        // Each node's stack of frame indices, built from its parent's (parents come first).
        std::vector<std::vector<size_t>> stack_of(t.size());
        ordered_json samples = ordered_json::array(), weights = ordered_json::array();
        double total = 0;
        for (size_t i = 1; i < t.size(); ++i) {
            auto [it, fresh] = frame_index.try_emplace(t.name(i), frame_index.size());
            if (fresh) frames.push_back({{"name", t.name(i)}});
            stack_of[i] = stack_of[static_cast<size_t>(t.parent(i))];
            stack_of[i].push_back(it->second);
            const double w = export_weight(t, i);
            if (w <= 0) continue;
            samples.push_back(stack_of[i]);
            weights.push_back(w);
            total += w;
        }
        out_profiles.push_back({{"type", "sampled"},
                                {"name", profile.name},
                                {"unit", "none"},
                                {"startValue", 0},
                                {"endValue", total},
                                {"samples", std::move(samples)},
                                {"weights", std::move(weights)}});
    }
    const ordered_json doc = {{"$schema", "https://www.speedscope.app/file-format-schema.json"},
                              {"name", name},
                              {"exporter", "pathscope"},
                              {"activeProfileIndex", 0},
                              {"shared", {{"frames", std::move(frames)}}},
                              {"profiles", std::move(out_profiles)}};
    return dump_json(doc);
}

}  // namespace pathscope::analysis
