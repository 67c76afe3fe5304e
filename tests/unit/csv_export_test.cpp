// CSV exports: the store table's own columns as the header, and fields
// quoted as RFC 4180 says (a comma, a quote, a CR or an LF).
#include <gtest/gtest.h>

#include "analysis/render/csv_export.h"

using namespace pathscope;

namespace {

std::string header(const std::string& csv) { return csv.substr(0, csv.find('\n')); }

}  // namespace

// A line break in a field is shown (\r, \n), not written: a CSV printed to a
// terminal never moves its cursor, and every row is one line.
TEST(CsvExport, AFieldWithALineBreakStaysOnItsLine) {
    db::RunData run;
    run.rows.perf.push_back({0, "perf::cycles", false, 0, 0, 0, "refused\rby the PMU"});
    run.rows.perf.push_back({0, "perf::task-clock", true, 5, 6, 6, "plain"});
    run.rows.perf.push_back({0, "perf::cpu-clock", true, 5, 6, 6, "a \"b\", c\nd"});
    const std::string csv = analysis::to_csv(run, "perf");
    EXPECT_NE(csv.find(",refused\\rby the PMU\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",plain\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",\"a \"\"b\"\", c\\nd\"\n"), std::string::npos) << csv;
}

// What show's figures are made from is in the export: the rate window's
// packets on both sides, and idle calls and cycles apart from the totals.
TEST(CsvExport, TrialsAndStagesCarryWhatTheFiguresNeed) {
    db::RunData run;
    db::TrialRow t;
    t.trial = 1;
    t.seconds = 0.8;
    t.received = 1000;
    t.window_received = 790;
    t.rx_pps = 987.5;
    t.sends = 600;
    t.sent = 590;
    t.window_sent = 470;
    t.sent_pps = 587.5;
    run.rows.trials.push_back(t);
    run.rows.stages.push_back({1, -1, "eth_rx", 0, 500, 790, 90000, 400, 30000});
    const std::string trials = analysis::to_csv(run, "trials");
    EXPECT_EQ(header(trials),
              "trial,seconds,received,delivered,forwarded,replied,dropped,sent,rx_pps,"
              "forwarded_pps,delivered_pps,window_received,walks,idle_walks,sends,sent_pps,"
              "window_sent,route_lookups,source_selections,block,replaced,window_ns,steal_ns,"
              "others_ns,max_disturbance,timer_cycles,timing_period");
    EXPECT_NE(trials.find("\n1,0.8,1000,0,0,0,0,590,987.5,0,0,790,0,0,600,587.5,470,0,0,-1,no,0,0,0,"
                          "0,0,1\n"),
              std::string::npos)
        << trials;
    const std::string stages = analysis::to_csv(run, "stages");
    EXPECT_EQ(header(stages), "trial,seq,stage,ord,calls,packets,cycles,idle_calls,idle_cycles");
    EXPECT_NE(stages.find("\n1,-1,eth_rx,0,500,790,90000,400,30000\n"), std::string::npos)
        << stages;
    EXPECT_THROW(analysis::to_csv(run, "nope"), std::invalid_argument);
}
