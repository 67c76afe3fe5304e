#include "analysis/verdicts/path_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/verdicts/compare.h"
#include "analysis/trees/flame_diff.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"
#include "analysis/text/safe_text.h"

namespace pathscope::analysis {

namespace {

constexpr const char* kDropStage = "drop";
constexpr const char* kControlRefused = "nd_solicitations_refused";

std::string reason_node(const std::string& reason, const std::string& path) {
    return "drop: " + reason + (path == "send" ? " (send)" : "");
}

/// Sum of a fact "trialN.KEY" over trials.
uint64_t fact_sum(const db::RunData& run, const std::string& key) {
    uint64_t v = 0;
    for (const auto& [k, value] : run.rows.facts) {
        const auto dot = k.find('.');
        if (k.rfind("trial", 0) != 0 || dot == std::string::npos || k.substr(dot + 1) != key)
            continue;
        // A value that is not a count (a damaged store) adds nothing.
        char* end = nullptr;
        const unsigned long long n = std::strtoull(value.c_str(), &end, 10);
        if (end != value.c_str() && *end == '\0' && value[0] != '-') v += n;
    }
    return v;
}

int add_node(PathGraph& g, const std::string& name, PathNode::Kind kind) {
    if (int i = g.find(name); i >= 0) return i;
    PathNode n;
    n.name = name;
    n.kind = kind;
    g.nodes.push_back(n);
    return static_cast<int>(g.nodes.size()) - 1;
}

bool is_sink(const std::string& name) {
    return name == db::kDeliverSink || name == db::kWireSink || name == db::kNeighbourTable;
}

/// Layers: the longest path from a source (a node nothing enters), over the
/// graph less the edges that close a cycle (the neighbour table hands held
/// packets back to nd_resolve). Sinks and drop reasons go right of every
/// stage, so that packets leave the path on one side.
void lay_out(PathGraph& g) {
    const size_t n = g.nodes.size();
    std::vector<std::vector<int>> out(n);
    std::vector<int> indegree(n, 0);
    for (const auto& e : g.edges) out[e.from].push_back(e.to), ++indegree[e.to];
    // Depth-first from the sources (then anything left) marks back edges.
    std::vector<int> state(n, 0);  // 0 new, 1 on the stack, 2 done
    std::set<std::pair<int, int>> back;
    std::function<void(int)> visit = [&](int v) {
        state[v] = 1;
        for (int w : out[v]) {
            if (state[w] == 1) back.insert({v, w});
            else if (state[w] == 0) visit(w);
        }
        state[v] = 2;
    };
    for (size_t v = 0; v < n; ++v)
        if (indegree[v] == 0 && state[v] == 0) visit(static_cast<int>(v));
    for (size_t v = 0; v < n; ++v)
        if (state[v] == 0) visit(static_cast<int>(v));
    // Longest path on what is left (a DAG), in topological order.
    std::vector<int> in(n, 0), layer(n, 0), order;
    for (const auto& e : g.edges)
        if (!back.count({e.from, e.to})) ++in[e.to];
    for (size_t v = 0; v < n; ++v)
        if (in[v] == 0) order.push_back(static_cast<int>(v));
    for (size_t k = 0; k < order.size(); ++k) {
        const int v = order[k];
        for (int w : out[v]) {
            if (back.count({v, w})) continue;
            layer[w] = std::max(layer[w], layer[v] + 1);
            if (--in[w] == 0) order.push_back(w);
        }
    }
    int last_stage = 0;
    for (size_t v = 0; v < n; ++v)
        if (g.nodes[v].kind == PathNode::Kind::stage) last_stage = std::max(last_stage, layer[v]);
    g.layers = 0;
    for (size_t v = 0; v < n; ++v) {
        PathNode& node = g.nodes[v];
        node.layer = node.kind == PathNode::Kind::stage ? layer[v] : last_stage + 1;
        g.layers = std::max(g.layers, node.layer + 1);
    }
    std::vector<int> rows(static_cast<size_t>(g.layers), 0);
    for (auto& node : g.nodes) node.row = rows[static_cast<size_t>(node.layer)]++;
}

/// Each edge's packets per trial over the trial's path packets, as a tree of
/// "from -> to" children, so that diff_trees judges edges as it does stages.
FlameTree edge_tree(const db::RunData& run) {
    const int trials = std::max<int>(1, static_cast<int>(run.rows.trials.size()));
    FlameTree tree(trials, "packets");
    const PacketBasis basis = packet_basis(run.rows.trials);
    for (const auto& t : run.rows.trials) tree.set_trial_scale(t.trial, static_cast<double>(basis.packets(t)));
    for (const auto& e : run.rows.edges)
        if (e.seq == -1 && e.trial < trials)
            tree.add({e.from + " -> " + e.to}, static_cast<double>(e.packets), e.trial);
    leave_out_replaced(tree, run);
    return tree;
}

std::string hex(FlameRgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

std::string quoted(const std::string& s) { return dot_quoted(s); }

/// A dot label of several lines: each line escaped as a dot string, joined
/// by dot's own line break.
std::string label_lines(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) {
        const std::string q = dot_quoted(l);
        out += (out.empty() ? "" : "\\n") + q.substr(1, q.size() - 2);
    }
    return "\"" + out + "\"";
}

}  // namespace

int PathGraph::find(const std::string& name) const {
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].name == name) return static_cast<int>(i);
    return -1;
}

FlameRgb heat_colour(double cpp, double max) {
    const double k = max > 0 ? std::clamp(cpp / max, 0.0, 1.0) : 0.0;
    // Pale yellow (255, 245, 200) to deep red (200, 40, 30).
    return {static_cast<int>(255 - 55 * k), static_cast<int>(245 - 205 * k),
            static_cast<int>(200 - 170 * k)};
}

PathGraph path_graph(const db::RunData& run) { return path_graph(run, summarize_run(run)); }

PathGraph path_graph(const db::RunData& run, const RunSummary& sum) {
    PathGraph g;
    g.path_unit = sum.basis.unit;
    // Edges of every trial, summed.
    std::map<std::pair<std::string, std::string>, uint64_t> edges;
    for (const auto& e : run.rows.edges)
        if (e.seq == -1) edges[{e.from, e.to}] += e.packets;
    std::set<std::string> on_path;
    for (const auto& [k, packets] : edges) on_path.insert(k.first), on_path.insert(k.second);
    // Stages in graph order, then sinks, then drop reasons (most first).
    for (const auto& st : sum.stages) {
        if (!on_path.count(st.name)) continue;
        PathNode& n = g.nodes[static_cast<size_t>(add_node(g, st.name, PathNode::Kind::stage))];
        n.packets = st.packets;
        n.cycles_per_packet = st.cycles_per_packet;
        n.cycles_per_path_packet = st.cycles_per_path_packet;
        n.share = sum.all.cycles_per_path_packet > 0
                      ? st.cycles_per_path_packet / sum.all.cycles_per_path_packet
                      : 0;
        g.max_cycles_per_packet = std::max(g.max_cycles_per_packet, n.cycles_per_packet);
    }
    for (const char* sink : {db::kDeliverSink, db::kWireSink, db::kNeighbourTable})
        if (on_path.count(sink)) add_node(g, sink, PathNode::Kind::sink);
    for (const auto& [k, packets] : edges) {
        const int from = add_node(g, k.first, is_sink(k.first) ? PathNode::Kind::sink : PathNode::Kind::stage);
        const int to = add_node(g, k.second, is_sink(k.second) ? PathNode::Kind::sink : PathNode::Kind::stage);
        g.edges.push_back({from, to, packets});
        if (g.nodes[static_cast<size_t>(to)].kind == PathNode::Kind::sink)
            g.nodes[static_cast<size_t>(to)].packets += packets;
    }
    // The drop stage fans out to its reasons (the drop rows, every trial).
    if (const int drop = g.find(kDropStage); drop >= 0) {
        std::map<std::string, uint64_t> reasons;
        for (const auto& d : sum.drops) reasons[reason_node(d.reason, d.path)] += d.packets;
        if (const uint64_t refused = fact_sum(run, kControlRefused))
            reasons[std::string("drop: ") + kControlRefused] += refused;
        std::vector<std::pair<std::string, uint64_t>> sorted(reasons.begin(), reasons.end());
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
        for (const auto& [name, packets] : sorted) {
            const int r = add_node(g, name, PathNode::Kind::reason);
            g.nodes[static_cast<size_t>(r)].packets = packets;
            g.edges.push_back({drop, r, packets});
        }
    }
    for (auto& n : g.nodes)
        n.colour = n.kind == PathNode::Kind::stage    ? heat_colour(n.cycles_per_packet, g.max_cycles_per_packet)
                   : n.kind == PathNode::Kind::reason ? FlameRgb{0xf0, 0xd0, 0xd0}
                                                      : FlameRgb{0xd8, 0xe8, 0xf8};
    lay_out(g);
    return g;
}

PathGraph path_graph_compare(const db::RunData& base, const db::RunData& cand, double confidence) {
    PathGraph g = path_graph(cand);
    const PathGraph b = path_graph(base);
    // What only the base had stays, with no packets, so that a path that
    // went away is seen.
    for (const auto& e : b.edges) {
        const PathNode& bf = b.nodes[static_cast<size_t>(e.from)];
        const PathNode& bt = b.nodes[static_cast<size_t>(e.to)];
        // add_node finds a node the candidate has, or adds it with no packets.
        const int from = add_node(g, bf.name, bf.kind), to = add_node(g, bt.name, bt.kind);
        if (std::none_of(g.edges.begin(), g.edges.end(),
                         [&](const PathEdge& ce) { return ce.from == from && ce.to == to; }))
            g.edges.push_back({from, to, 0});
    }
    g.comparison = true;
    DiffOptions opt;
    opt.confidence = confidence;
    FlameDiff stages = diff_trees(stage_tree(base), stage_tree(cand), opt);
    mark_stages_by_verdicts(stages, compare_metrics(run_metrics(base), run_metrics(cand), confidence));
    g.method = stages.method;
    for (int k : stages.nodes[0].children) {
        const DiffNode& d = stages.nodes[static_cast<size_t>(k)];
        if (const int i = g.find(d.name); i >= 0) {
            PathNode& n = g.nodes[static_cast<size_t>(i)];
            n.compared = true;
            n.noise = d.noise;
            n.unjudged = d.unjudged;
            n.relative = d.relative;
            n.colour = diff_colour(d);
        }
    }
    for (auto& n : g.nodes)
        if (n.kind == PathNode::Kind::stage && !n.compared) n.colour = {0xc8, 0xc8, 0xc8};
    const FlameDiff edges = diff_trees(edge_tree(base), edge_tree(cand), opt);
    std::map<std::string, const DiffNode*> by_name;
    for (int k : edges.nodes[0].children) by_name[edges.nodes[static_cast<size_t>(k)].name] = &edges.nodes[static_cast<size_t>(k)];
    for (auto& e : g.edges) {
        const auto it = by_name.find(g.nodes[static_cast<size_t>(e.from)].name + " -> " +
                                     g.nodes[static_cast<size_t>(e.to)].name);
        if (it == by_name.end()) {
            e.colour = {0xc8, 0xc8, 0xc8};  // drop reasons: their stage's edge is judged
            continue;
        }
        e.compared = true;
        e.noise = it->second->noise;
        e.relative = it->second->relative;
        // A line needs more ink than a box: full red or blue once it changed.
        e.colour = e.noise ? FlameRgb{0xa0, 0xa0, 0xa0}
                   : it->second->delta > 0 ? FlameRgb{0xd0, 0x20, 0x20}
                                           : FlameRgb{0x20, 0x40, 0xd0};
    }
    lay_out(g);
    return g;
}

std::vector<NodeBalance> path_balance(const PathGraph& g, const db::RunData& run) {
    std::vector<NodeBalance> out;
    const size_t n = g.nodes.size();
    std::vector<uint64_t> in(n, 0), leaving(n, 0);
    std::vector<bool> entered(n, false);
    for (const auto& e : g.edges) {
        in[static_cast<size_t>(e.to)] += e.packets;
        entered[static_cast<size_t>(e.to)] = true;
        leaving[static_cast<size_t>(e.from)] += e.packets;
    }
    db::TrialRow total;
    for (const auto& t : run.rows.trials) db::add_ledger(total, t);
    for (size_t i = 0; i < n; ++i) {
        const PathNode& node = g.nodes[i];
        NodeBalance b;
        b.node = node.name;
        if (node.kind == PathNode::Kind::stage) {
            b.source = !entered[i];
            b.packets = node.packets;
            b.in = b.source ? node.packets : in[i];
            b.out = leaving[i];
        } else if (node.name == db::kDeliverSink || node.name == db::kWireSink) {
            b.in = b.out = in[i];
            b.packets = node.name == db::kDeliverSink
                            ? total.delivered
                            : total.forwarded + total.replied + total.sent +
                                  fact_sum(run, "nd_solicitations_sent");
        } else {
            continue;  // the neighbour table holds packets; reasons end the path
        }
        out.push_back(b);
    }
    return out;
}

std::string render_balance(const std::vector<NodeBalance>& bs) {
    std::string s;
    for (const auto& b : bs)
        s += fmt::format("{:<12} in {:>10}{} = packets {:>10} = out {:>10}  {}\n", b.node, b.in,
                         b.source ? " (source)" : "         ", b.packets, b.out,
                         b.ok() ? "ok" : "UNBALANCED");
    return s;
}

std::string render_dot(const PathGraph& g, const std::string& title) {
    uint64_t most = 1;
    for (const auto& e : g.edges) most = std::max(most, e.packets);
    std::string s = "digraph path {\n";
    s += "  rankdir=LR;\n  nodesep=0.25;\n  ranksep=0.6;\n  labelloc=t;\n";
    std::vector<std::string> title_lines{title};
    // g.method begins "within noise: ..." (its own definition of grey).
    if (g.comparison) title_lines.push_back("(change against the base; grey: " + g.method + ")");
    s += "  label=" + label_lines(title_lines) + ";\n";
    s += "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n";
    s += "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.6];\n";
    for (const auto& n : g.nodes) {
        std::vector<std::string> label{n.name};
        if (n.kind == PathNode::Kind::stage) {
            // Compared: the figure the change is of (cycles per path packet).
            if (g.comparison)
                label.push_back(fmt::format("{:.1f} {}, {:.1f}% of cycles", n.cycles_per_path_packet,
                                            g.path_unit, n.share * 100));
            else
                label.push_back(fmt::format("{:.1f} cyc/pkt, {:.1f}% of cycles", n.cycles_per_packet,
                                            n.share * 100));
            if (n.compared && std::isfinite(n.relative))
                label.push_back(fmt::format("{:+.1f}%{}", n.relative * 100, n.noise ? " (" + (n.unjudged.empty() ? std::string("noise") : n.unjudged) + ")" : ""));
        }
        label.push_back(fmt::format("{} pkts", n.packets));
        const char* shape = n.kind == PathNode::Kind::stage ? "box" : n.kind == PathNode::Kind::sink ? "ellipse" : "note";
        s += "  " + quoted(n.name) + " [label=" + label_lines(label) + ", shape=" + shape +
             ", fillcolor=" + quoted(hex(n.colour)) + "];\n";
    }
    for (int layer = 0; layer < g.layers; ++layer) {
        s += "  { rank=same;";
        for (const auto& n : g.nodes)
            if (n.layer == layer) s += " " + quoted(n.name) + ";";
        s += " }\n";
    }
    for (const auto& e : g.edges) {
        const double width = 0.5 + 7.5 * static_cast<double>(e.packets) / static_cast<double>(most);
        std::string label = std::to_string(e.packets);
        if (e.compared && std::isfinite(e.relative) && !e.noise) label += fmt::format(" ({:+.1f}%)", e.relative * 100);
        s += "  " + quoted(g.nodes[static_cast<size_t>(e.from)].name) + " -> " +
             quoted(g.nodes[static_cast<size_t>(e.to)].name) +
             fmt::format(" [penwidth={:.2f}, color={}, label={}];\n", width, quoted(hex(e.colour)), quoted(label));
    }
    s += "}\n";
    return s;
}

}  // namespace pathscope::analysis
