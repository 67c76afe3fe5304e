// The path graph's own rules, on small hand-made runs: layers are the longest
// path from the sources with the neighbour table's loop left out; sinks and
// reasons stand right of every stage; a stage that loses packets is said
// not to balance; the dot text names every node and edge; a comparison greys
// what is within noise and colours an edge whose share moved.
#include <gtest/gtest.h>

#include "analysis/verdicts/path_graph.h"

using namespace pathscope;
using namespace pathscope::analysis;

namespace {

/// rx -> in -> out -> wire, in -> drop (reason bad), out -> neighbours ->
/// out (held, then released): `lost` packets vanish in "in".
db::RunData small_run(int trials, uint64_t bad, uint64_t lost = 0) {
    db::RunData r;
    for (int t = 0; t < trials; ++t) {
        db::TrialRow tr;
        tr.trial = t;
        tr.received = 100;
        tr.forwarded = 100 - bad - lost;
        tr.dropped = bad;
        r.rows.trials.push_back(tr);
        const uint64_t kept = 100 - bad - lost;
        r.rows.stages.push_back({t, -1, "rx", 0, 10, 100, 1000});
        r.rows.stages.push_back({t, -1, "in", 1, 10, 100, 3000});
        r.rows.stages.push_back({t, -1, "out", 2, 10, kept + 5, 500});
        r.rows.stages.push_back({t, -1, "drop", 3, 2, bad, 100});
        r.rows.edges.push_back({t, -1, "rx", "in", 100});
        r.rows.edges.push_back({t, -1, "in", "out", kept});
        r.rows.edges.push_back({t, -1, "in", "drop", bad});
        r.rows.edges.push_back({t, -1, "out", "neighbours", 5});
        r.rows.edges.push_back({t, -1, "neighbours", "out", 5});
        r.rows.edges.push_back({t, -1, "out", "wire", kept});
        r.rows.drops.push_back({t, "bad", "in", "receive", bad});
    }
    return r;
}

}  // namespace

TEST(PathGraph, LayersFollowTheLongestPathAndSinksStandRight) {
    const db::RunData run = small_run(1, 10);
    const PathGraph g = path_graph(run);
    auto layer = [&](const char* n) { return g.nodes[static_cast<size_t>(g.find(n))].layer; };
    EXPECT_EQ(layer("rx"), 0);
    EXPECT_EQ(layer("in"), 1);
    EXPECT_EQ(layer("out"), 2);   // not pushed right by the table's loop back into it
    EXPECT_EQ(layer("drop"), 2);
    EXPECT_EQ(layer("wire"), 3);  // every sink and reason right of every stage
    EXPECT_EQ(layer("neighbours"), 3);
    EXPECT_EQ(layer("drop: bad"), 3);
    EXPECT_EQ(g.layers, 4);
    // The stage with the most cycles per packet is the deepest colour.
    const PathNode& in = g.nodes[static_cast<size_t>(g.find("in"))];
    EXPECT_DOUBLE_EQ(in.cycles_per_packet, 30.0);
    EXPECT_EQ(in.colour.g, heat_colour(1, 1).g);
    EXPECT_NEAR(in.share, 3000.0 / 4600.0, 1e-9);
}

TEST(PathGraph, BalanceHoldsAtEveryStageAndSaysWhereItDoesNot) {
    const db::RunData good = small_run(2, 10);
    for (const auto& b : path_balance(path_graph(good), good)) EXPECT_TRUE(b.ok()) << b.node;
    const db::RunData lossy = small_run(2, 10, 3);  // "in" loses 3 packets a trial
    const auto balance = path_balance(path_graph(lossy), lossy);
    bool in_flagged = false;
    for (const auto& b : balance) {
        if (b.node == "in") in_flagged = !b.ok() && b.out + 6 == b.packets;
        else EXPECT_TRUE(b.ok()) << b.node;
    }
    EXPECT_TRUE(in_flagged);
    EXPECT_NE(render_balance(balance).find("UNBALANCED"), std::string::npos);
}

TEST(PathGraph, DotNamesEveryNodeAndEdgeOnePerRank) {
    const db::RunData run = small_run(1, 10);
    const PathGraph g = path_graph(run);
    const std::string dot = render_dot(g, "a \"quoted\" title");
    EXPECT_NE(dot.find("rankdir=LR"), std::string::npos);
    EXPECT_NE(dot.find("a \\\"quoted\\\" title"), std::string::npos);
    for (const auto& n : g.nodes) EXPECT_NE(dot.find("\"" + n.name + "\" [label="), std::string::npos) << n.name;
    EXPECT_NE(dot.find("\"in\" -> \"drop\""), std::string::npos);
    EXPECT_NE(dot.find("\"drop\" -> \"drop: bad\""), std::string::npos);
    EXPECT_NE(dot.find("\\n30.0 cyc/pkt"), std::string::npos);  // dot's line break, once escaped
    size_t ranks = 0;
    for (size_t at = 0; (at = dot.find("rank=same", at)) != std::string::npos; ++at) ++ranks;
    EXPECT_EQ(ranks, static_cast<size_t>(g.layers));
}

TEST(PathGraph, ComparisonGreysNoiseAndColoursAMovedEdge) {
    db::RunData base = small_run(4, 10), cand = small_run(4, 30);
    // A little spread between trials, so that Student's t has a variance.
    for (int t = 0; t < 4; ++t) {
        base.rows.edges[static_cast<size_t>(t) * 6 + 0].packets += static_cast<uint64_t>(t);
        cand.rows.edges[static_cast<size_t>(t) * 6 + 0].packets += static_cast<uint64_t>(3 - t);
    }
    const PathGraph g = path_graph_compare(base, cand);
    ASSERT_TRUE(g.comparison);
    bool moved = false, grey = false;
    for (const auto& e : g.edges) {
        const std::string name = g.nodes[static_cast<size_t>(e.from)].name + " -> " + g.nodes[static_cast<size_t>(e.to)].name;
        if (name == "in -> drop") {
            moved = e.compared && !e.noise && e.relative > 1.9 && e.colour.r > e.colour.b;
        }
        if (name == "rx -> in") grey = e.compared && e.noise && e.colour.r == e.colour.b;
    }
    EXPECT_TRUE(moved) << "10 -> 30 of 100 packets dropped is a change";
    EXPECT_TRUE(grey) << "every packet received in both is no change";
}
