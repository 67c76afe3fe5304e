// One table of report formats for the CLI's --format and the desktop
// program's export by file ending.
#include <gtest/gtest.h>

#include "analysis/render/report.h"

using namespace pathscope;
using namespace pathscope::analysis;

TEST(ReportFormat, EveryNameTheCliAcceptsIsKnown) {
    for (const char* name : kReportFormatNames)
        EXPECT_TRUE(report_format_from_name(name).has_value()) << name;
    EXPECT_EQ(report_format_from_name("md"), ReportFormat::markdown);
    EXPECT_EQ(report_format_from_name("markdown"), ReportFormat::markdown);
    EXPECT_EQ(report_format_from_name("json"), ReportFormat::json);
    EXPECT_FALSE(report_format_from_name("pdf").has_value());
    EXPECT_FALSE(report_format_from_name("").has_value());
}

TEST(ReportFormat, FileEndingsChooseTheSameRenderings) {
    EXPECT_EQ(report_format_from_file("/tmp/r.txt"), ReportFormat::text);
    EXPECT_EQ(report_format_from_file("review.MD"), ReportFormat::markdown);
    EXPECT_EQ(report_format_from_file("a.b/report.html"), ReportFormat::html);
    EXPECT_EQ(report_format_from_file("report.htm"), ReportFormat::html);
    EXPECT_EQ(report_format_from_file("out.json"), ReportFormat::json);
    EXPECT_FALSE(report_format_from_file("a.b/report").has_value());
    EXPECT_FALSE(report_format_from_file("report.pdf").has_value());
}

TEST(ReportFormat, RenderReportIsTheNamedRenderer) {
    db::RunData run;
    run.info.label = "base";
    run.info.trials = 1;
    db::TrialRow t;
    t.received = 1000;
    t.seconds = 1;
    run.rows.trials.push_back(t);
    run.rows.stages.push_back({0, -1, "eth_rx", 0, 100, 1000, 50000, 0, 0});
    const Report r = build_report(run, nullptr, {});
    EXPECT_EQ(render_report(r, ReportFormat::text), render_report_text(r));
    EXPECT_EQ(render_report(r, ReportFormat::markdown), render_report_markdown(r));
    EXPECT_EQ(render_report(r, ReportFormat::html), render_report_html(r));
    EXPECT_EQ(render_report(r, ReportFormat::json), render_report_json(r));
}
