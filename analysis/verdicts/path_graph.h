// The packet path of a run as a graph: the stages that handled packets, the
// edges between them with the packets each carried, the sinks where packets
// left the path (delivered, onto the wire, held for a neighbour) and the drop
// stage fanning out to its reasons. Laid out in layers, left to right from
// the sources; shared by the Path page and `pathscope export --format dot`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/trees/flame_layout.h"
#include "analysis/figures/run_summary.h"
#include "db/records.h"

namespace pathscope::analysis {

struct PathNode {
    enum class Kind { stage, sink, reason };
    std::string name;  ///< stage or sink name; a reason node's is "drop: REASON"
    Kind kind = Kind::stage;
    /// Stages: the graph library's packets (objects processed), summed over
    /// trials; sinks and reasons: the packets that ended there.
    uint64_t packets = 0;
    /// Stages: busy cycles per packet of the stage's own packets and the share
    /// of all stages' cycles, as the stage table shows them (summarize_run).
    double cycles_per_packet = 0;
    double share = 0;  ///< 0..1
    /// Busy cycles per path packet (cyc/rx pkt): the figure a comparison's
    /// change is of, shown beside it.
    double cycles_per_path_packet = 0;
    int layer = 0;     ///< longest path from a source, in edges
    int row = 0;       ///< place within its layer, from the top
    FlameRgb colour{0xc8, 0xc8, 0xc8};  ///< cycles per packet (one run) or change (comparison)
    /// Comparison only: the candidate's cycles per path packet against the
    /// base's, as the differential stage tree judges it.
    bool compared = false, noise = true;
    std::string unjudged;  ///< as DiffNode::unjudged
    double relative = 0;  ///< (cand - base) / base
};

struct PathEdge {
    int from = 0, to = 0;  ///< node indices
    /// Packets summed over the run's trials (the candidate's, compared).
    uint64_t packets = 0;
    FlameRgb colour{0x70, 0x70, 0x70};
    /// Comparison only: the share of path packets taking this edge, per
    /// trial, cand against base (Student's t as the differential trees).
    bool compared = false, noise = true;
    double relative = 0;
};

struct PathGraph {
    std::vector<PathNode> nodes;
    std::vector<PathEdge> edges;
    int layers = 0;
    double max_cycles_per_packet = 0;  ///< over stages: the colour scale's top
    bool comparison = false;
    std::string method;  ///< comparison: how noise was decided
    std::string path_unit = "cyc/rx pkt";  ///< cycles_per_path_packet's unit
    int find(const std::string& name) const;  ///< node index, or -1
};

/// The graph of one run (every trial's edges summed).
PathGraph path_graph(const db::RunData& run);
/// The same, from the run's summary when the caller has it already.
PathGraph path_graph(const db::RunData& run, const RunSummary& sum);
/// The candidate's graph coloured by change against `base`: nodes by their
/// cycles per path packet, edges by their share of path packets; grey within
/// noise, red grew, blue shrank (diff_colour). Edges only in the base are
/// kept with 0 packets.
PathGraph path_graph_compare(const db::RunData& base, const db::RunData& cand,
                             double confidence = 95);

/// A colour for cycles per packet: pale yellow (none) to deep red (`max`).
FlameRgb heat_colour(double cycles_per_packet, double max);

/// One node's packet balance: what came in (incoming edges; a source's own
/// packets), what the node handled, what went out (outgoing edges; for the
/// drop stage its reasons).
struct NodeBalance {
    std::string node;
    uint64_t in = 0, packets = 0, out = 0;
    bool source = false;
    bool ok() const { return in == packets && out == packets; }
};
/// The balance of every stage (sinks have no out), and of the sinks against
/// the run's ledger ("deliver" = delivered, "wire" = forwarded + replied +
/// sent + solicitations sent): in = packets = out + drops at every node.
std::vector<NodeBalance> path_balance(const PathGraph& g, const db::RunData& run);
/// "node: in N = packets N = out N [ok|UNBALANCED]" a line.
std::string render_balance(const std::vector<NodeBalance>& b);

/// The graph for Graphviz (dot): left to right, one rank per layer, edge
/// widths by packets, nodes filled with their colour, labelled with cycles
/// per packet, share and packets.
std::string render_dot(const PathGraph& g, const std::string& title);

}  // namespace pathscope::analysis
