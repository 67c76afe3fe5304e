// The numbers `show`, `compare` and the reports print: idle polling kept
// apart from per-packet cycles, a trial table that adds up, "all stages" the
// sum of its rows, and per-call verdicts judged per packet across burst sizes.
#include <gtest/gtest.h>

#include "capture/profile_text.h"
#include "analysis/verdicts/compare.h"
#include "analysis/render/report.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"
#include "analysis/render/run_view.h"

#include <nlohmann/json.hpp>
#include <sstream>

using namespace pathscope;
using namespace pathscope::analysis;

namespace {

// One trial: eth_rx polled 1000 times, 100 of them busy (32 packets each),
// and its 900 empty polls cost 90,000 cycles; ip6_lookup ran 100 busy calls.
db::RunData starved_run(int trials = 1, uint64_t burst = 32, uint64_t lookup_cycles = 64000) {
    db::RunData r;
    r.info.id = 7;
    r.info.label = "starved";
    r.info.tsc_hz = 2'000'000'000;
    for (int t = 0; t < trials; ++t) {
        const uint64_t packets = 100 * burst;
        db::TrialRow tr;
        tr.trial = t;
        tr.seconds = 1.6;
        tr.received = packets + 500;  // the whole trial received more than its window
        tr.forwarded = tr.received;
        tr.window_received = packets;
        tr.rx_pps = static_cast<double>(packets) / 1.6;
        tr.walks = 1000;
        tr.idle_walks = 900;
        r.rows.trials.push_back(tr);
        r.rows.stages.push_back({t, -1, "eth_rx", 0, 1000, tr.received, 90'000 + 32'000, 900,
                                 90'000});
        r.rows.stages.push_back({t, -1, "ip6_lookup", 1, 100, tr.received,
                                 lookup_cycles + static_cast<uint64_t>(t), 0, 0});
        db::HistogramRow h;
        h.trial = t;
        h.kind = db::kStageCallCycles;
        h.subject = "ip6_lookup";
        h.unit = "cycles";
        Histogram hist;
        for (int i = 0; i < 100; ++i) hist.add(lookup_cycles / 100 + static_cast<uint64_t>(i));
        h.count = hist.count();
        h.sum = hist.sum();
        h.min = hist.min();
        h.max = hist.max();
        for (uint32_t b = 0; b < hist.counts().size(); ++b)
            if (hist.counts()[b]) h.buckets.emplace_back(b, hist.counts()[b]);
        r.rows.histograms.push_back(h);
        // A stage that sorts before ip6_lookup by name but comes after it in the graph.
        h.subject = "eth_tx";
        r.rows.histograms.push_back(h);
        r.rows.stages.push_back({t, -1, "eth_tx", 2, 100, tr.received, 10'000, 0, 0});
    }
    return r;
}

TEST(RunSummary, IdlePollingIsNotChargedToPackets) {
    const RunSummary s = summarize_run(starved_run());
    ASSERT_EQ(s.stages.size(), 3u);
    const StageLine& rx = s.stages[0];
    EXPECT_EQ(rx.name, "eth_rx");
    EXPECT_EQ(rx.busy_calls(), 100u);
    EXPECT_EQ(rx.busy_cycles(), 32'000u);
    // 32,000 busy cycles over 3,700 packets, not 122,000.
    EXPECT_NEAR(rx.cycles_per_packet, 32'000.0 / 3700, 1e-9);
    EXPECT_NEAR(rx.cycles_per_call, 320.0, 1e-9);
    EXPECT_NEAR(rx.idle_share, 90'000.0 / 122'000, 1e-9);
    EXPECT_TRUE(s.worker.measured);
    EXPECT_TRUE(s.worker.starved());
    EXPECT_NEAR(s.worker.idle_walk_share(), 0.9, 1e-12);
}

// A per-call histogram holds the busy calls that were timed: when some were
// interrupted or not timed, its heading says how many of the stage's busy
// calls it leaves out, instead of a count that disagrees with `busy calls`.
TEST(RunSummary, AHistogramSaysWhichBusyCallsItHolds) {
    EXPECT_EQ(histogram_calls_note(1234, 1234), "1234 busy calls; idle calls are left out");
    EXPECT_EQ(histogram_calls_note(1200, 1234),
              "1200 of the stage's 1234 busy calls: idle calls and 34 untimed or interrupted ones "
              "(their cycles estimated) are left out");
}

TEST(RunSummary, AllStagesIsTheSumOfItsRows) {
    const RunSummary s = summarize_run(starved_run());
    double sum = 0;
    for (const auto& st : s.stages) sum += st.cycles_per_path_packet;
    EXPECT_NEAR(s.all.cycles_per_path_packet, sum, 1e-9);
    EXPECT_NEAR(s.all.cycles_per_path_packet, (32'000.0 + 64'000 + 10'000) / 3700, 1e-9);
}

TEST(RunSummary, TheTextViewSaysWhatItCounts) {
    const std::string text = render_run(starved_run());
    // The trial table shows the packets its rate is computed over.
    EXPECT_NE(text.find("rx in window"), std::string::npos) << text;
    EXPECT_NE(text.find("         3200 "), std::string::npos) << text;
    EXPECT_NE(text.find("rx rate = rx in window / window s"), std::string::npos);
    // The starved worker is named, and the stage table says busy calls only.
    EXPECT_NE(text.find("WARNING: run 7: the worker was starved: 90.0%"), std::string::npos)
        << text;
    EXPECT_NE(text.find("busy calls"), std::string::npos);
    EXPECT_NE(text.find("(100 busy calls; idle calls are left out)"), std::string::npos) << text;
    for (size_t at = 0, end; at < text.size(); at = end + 1) {
        end = text.find('\n', at);
        if (text.compare(at, 8, "WARNING:") == 0 || text.compare(at, 4, "    ") == 0) {
            EXPECT_LE(end - at, 80u) << text.substr(at, end - at);
        }
    }
}

// A trial a re-run replaced stays in the ledger's counts and leaves every
// figure: the stage table, the stage flame graph and the footnote agree.
TEST(RunSummary, ATrialAReRunReplacedCountsInNoFigure) {
    db::RunData run = starved_run(3);
    run.rows.trials[0].replaced = true;
    run.rows.stages[1].cycles = 640'000;  // trial 0's ip6_lookup: ten times the others'
    const RunSummary s = summarize_run(run);
    EXPECT_EQ(s.counted_trials(), 2u);
    const StageLine* lookup = nullptr;
    for (const auto& st : s.stages)
        if (st.name == "ip6_lookup") lookup = &st;
    ASSERT_NE(lookup, nullptr);
    EXPECT_EQ(lookup->busy_calls(), 300u);  // a count: all three trials, as the ledger
    EXPECT_NEAR(lookup->cycles_per_path_packet, 64'001.5 / 3700, 1e-9);  // trials 1 and 2
    const FlameTree tree = stage_tree(run);
    EXPECT_EQ(tree.counted_trials(), (std::vector<int>{1, 2}));
    db::ThreadRow worker;
    worker.role = db::kWorkerThread;
    worker.cpu = 1;
    run.rows.threads.push_back(worker);
    const std::string text = render_run(run);
    EXPECT_NE(text.find("\nworker on CPU 1: 3000 graph walks"), std::string::npos) << text;
    EXPECT_NE(text.find("averaged over the 2 trials that count"), std::string::npos) << text;
    EXPECT_NE(text.find("count all 3 trials, the 1 replaced by a re-run"), std::string::npos)
        << text;
}

TEST(RunSummary, AQuietWorkerIsNotFlagged) {
    db::RunData r = starved_run();
    r.info.label = "quiet";
    r.rows.trials[0].idle_walks = 400;
    EXPECT_FALSE(summarize_run(r).worker.starved());
    EXPECT_EQ(render_run(r).find("starved"), std::string::npos);
    r.rows.trials[0].walks = r.rows.trials[0].idle_walks = 0;  // not measured
    EXPECT_FALSE(summarize_run(r).worker.measured);
    EXPECT_NE(render_run(r).find("idle polling not measured"), std::string::npos);
}

TEST(Compare, StageCyclesAreBusyCyclesPerReceivedPacketAsInTheReport) {
    const db::RunData run = starved_run(3);
    const auto metrics = run_metrics(run);
    const FlameTree tree = stage_tree(run);
    double all = 0;
    for (const auto& m : metrics) {
        if (m.group != kStageCycles) continue;
        EXPECT_EQ(m.unit, kCyclesPerRxPacket);
        if (m.name == kAllStages) {
            all = m.values[0];
            continue;
        }
        // The report's stage tree divides by received packets too.
        for (int k : tree.children(0))
            if (tree.name(k) == m.name) {
                EXPECT_NEAR(tree.scaled_total(static_cast<size_t>(k), 0), m.values[0], 1e-6)
                    << m.name;
            }
    }
    EXPECT_NEAR(all, (32'000.0 + 64'000 + 10'000) / 3700, 1e-9);
}

TEST(Compare, PerCallVerdictsAcrossBurstSizesAreJudgedPerPacket) {
    // Twice the packets per call, twice the cycles per call: the same cost
    // per packet, so no per-call "worse" verdict may appear.
    const db::RunData base = starved_run(5, 32, 64'000);
    const db::RunData cand = starved_run(5, 64, 128'000);
    const auto verdicts = compare_metrics(run_metrics(base), run_metrics(cand), 95);
    std::vector<std::string> latency;
    for (const auto& v : verdicts) {
        if (v.base.group != kCallLatency) continue;
        latency.push_back(v.base.name);
        EXPECT_EQ(v.base.unit, "cyc/pkt@call") << v.base.name;
        // Both sides per packet: about 20 cycles each, not 640 against 20.
        EXPECT_NEAR(v.cand_summary.mean / v.base_summary.mean, 1.0, 0.1) << v.base.name;
        EXPECT_LT(v.base_summary.mean, 40) << v.base.name;
        EXPECT_FALSE(v.note.empty());
    }
    // In graph order (ip6_lookup before eth_tx), not by name.
    ASSERT_EQ(latency.size(), 4u);
    EXPECT_EQ(latency[0], "ip6_lookup p50");
    EXPECT_EQ(latency[2], "eth_tx p50");
    // The same burst size keeps per-call units.
    for (const auto& v : compare_metrics(run_metrics(base), run_metrics(base), 95))
        if (v.base.group == kCallLatency) {
            EXPECT_EQ(v.base.unit, "cycles/call");
        }
}

TEST(Report, AStarvedWorkerIsWarnedAboutFirst) {
    const db::RunData base = starved_run(3);
    const Report r = build_report(base, &base, {});
    ASSERT_EQ(r.warnings.size(), 2u);
    const std::string text = render_report_text(r);
    EXPECT_EQ(text.find("WARNING: run 7 \"starved\": the worker was starved"),
              text.find("WARNING"));
    EXPECT_LT(text.find("WARNING"), text.find("Environment"));
    EXPECT_NE(render_report_markdown(r).find("**Warning:**"), std::string::npos);
    EXPECT_NE(render_report_html(r).find("class=\"warning\""), std::string::npos);
    EXPECT_NE(render_report_json(r).find("\"warnings\""), std::string::npos);
}

}  // namespace

namespace {

// A C++ template symbol easily runs to thousands of characters: the text
// views print it whole (the 80-column report fits names on purpose, marking
// the cut with "~"; nothing is cut by a buffer).
TEST(Text, AFiveThousandCharacterSymbolIsNeverCut) {
    db::RunData run = starved_run(3);
    const std::string symbol = "ns::f<" + std::string(4990, 'x') + ">::g";
    run.rows.stacks.push_back({0, "cpu-clock", {{"main", ""}, {symbol, ""}}, 5});
    run.info.note = "note " + symbol;
    const std::string show = render_run(run);
    EXPECT_NE(show.find("  " + symbol + "\n"), std::string::npos);
    EXPECT_NE(show.find("note: note " + symbol + "\n"), std::string::npos);
    const Report r = build_report(run, &run, {});
    EXPECT_NE(render_report_markdown(r).find("ns::f\\<" + std::string(4990, 'x') + "\\>::g"),
              std::string::npos);
    EXPECT_NE(render_report_html(r).find("ns::f&lt;" + std::string(4990, 'x') + "&gt;::g"),
              std::string::npos);
    const std::string text = render_report_text(r);
    EXPECT_NE(text.find(std::string(30, 'x') + ">::g"), std::string::npos)
        << text.substr(text.find("Hottest"));
}

// A label is the user's text: in a Markdown report it reads as that text,
// never as markup that breaks the table or renders as HTML.
TEST(Markdown, LabelsAndSymbolsAreEscaped) {
    db::RunData run = starved_run(3);
    run.info.label = "a|b <script>x</script> *bold* _it_ [link](u) `code` \\ & eth_rx";
    run.rows.stacks.push_back({0, "cpu-clock", {{"main", ""}, {"rte_fib6_lookup<&>", ""}}, 5});
    const std::string md = render_report_markdown(build_report(run, nullptr, {}));
    const std::string want =
        "a\\|b \\<script\\>x\\</script\\> \\*bold\\* \\_it\\_ \\[link\\](u) \\`code\\` \\\\ "
        "\\& eth_rx";
    EXPECT_NE(md.find("# pathscope report: " + want), std::string::npos) << md.substr(0, 200);
    EXPECT_EQ(md.find("<script>"), std::string::npos) << md.substr(0, 400);
    EXPECT_NE(md.find("rte_fib6_lookup\\<\\&\\>"), std::string::npos);
    // The environment table's label row keeps its two columns: no pipe of
    // the label split it (a table row of two cells has three unescaped pipes).
    std::istringstream lines(md);
    int rows = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("|", 0) != 0 || line.find(want) == std::string::npos) continue;
        int pipes = 0;
        for (size_t i = 0; i < line.size(); ++i) pipes += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
        EXPECT_EQ(pipes, 3) << line;
        ++rows;
    }
    EXPECT_EQ(rows, 1);
}

// Labels, paths and symbols are bytes from the user's machine: a report or
// a speedscope export must stay valid JSON whatever they hold.
TEST(Json, InvalidUtf8AndControlCharactersStayValidJson) {
    db::RunData run = starved_run(3);
    run.info.label = std::string("bad\xff\xfe label\x01\x1f\"\\ end");
    run.info.settings = "engine.burst=32\n\ttab";
    const Report r = build_report(run, &run, {});
    const std::string text = render_report_json(r);
    nlohmann::json doc;
    ASSERT_NO_THROW(doc = nlohmann::json::parse(text)) << text.substr(0, 400);
    const std::string label = doc["base"]["label"];
    EXPECT_EQ(label, "bad\xEF\xBF\xBD\xEF\xBF\xBD label\x01\x1f\"\\ end");

    std::istringstream perf(
        "worker 123 [001] 1.000: 1 cpu-clock:\n"
        "\t    1000 f\xc3\xffooo<\x01> (/usr/lib/x.so)\n"
        "\t    2000 main (/usr/bin/app)\n\n");
    const FlameTree tree = capture::parse_perf_script(perf, "perf.txt");
    const std::string speedscope = to_speedscope({{"cpu\xff", &tree}}, "name\x80");
    ASSERT_NO_THROW(doc = nlohmann::json::parse(speedscope)) << speedscope;
    bool replaced = false;
    for (const auto& f : doc["shared"]["frames"])
        replaced = replaced || (f["name"].get<std::string>().rfind("f\xEF\xBF\xBD", 0) == 0 &&
                                f["name"].get<std::string>().find("ooo<\x01>") != std::string::npos);
    EXPECT_TRUE(replaced) << speedscope;
}

}  // namespace
