// Every report format, and the folded and speedscope exports, on a small
// fixed store (a real SQLite file), against the files in tests/golden/.
// PATHSCOPE_UPDATE_GOLDEN=1 rewrites them after a deliberate change; review
// the diff before committing it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "analysis/trees/flame_tree.h"
#include "analysis/render/report.h"
#include "analysis/figures/run_metrics.h"
#include "db/queries.h"
#include "db/schema.h"
#include "db/writer.h"
#include "support/german_locale.h"
#include "support/setup_skip.h"
#include "support/temp_dir.h"

using namespace pathscope;

namespace {

const std::string kGolden = std::string(PATHSCOPE_SOURCE_DIR) + "/tests/golden/";

db::RunInfo info(const std::string& label, const std::string& settings, int n) {
    db::RunInfo r;
    r.uuid = "0000000000000000000000000000000" + std::to_string(n);
    r.label = label;
    r.status = "complete";
    r.scenario_path = "samples/default.toml";
    r.scenario_text = "[engine]\nburst = 32\n\n[capture]\ntrials = 3\n";
    r.settings = settings;
    r.host = "golden-host";
    r.cpu_model = "Example CPU @ 2.00GHz";
    r.tsc_hz = 2000000000;
    r.engine_version = "0.1.0";
    r.git_revision = "abc1234";
    r.started_at = "2026-01-0" + std::to_string(n) + "T10:00:00Z";
    r.ended_at = "2026-01-0" + std::to_string(n) + "T10:00:05Z";
    r.trials = 3;
    r.trial_seconds = 1;
    r.interval_seconds = 0.1;
    r.pmu = "pmus: perf\nperf::task-clock: supported\n";
    return r;
}

// Three trials; `lookup` cycles per packet and the rate set the verdicts.
db::Batch rows(double rate_mpps, double lookup, bool skewed) {
    db::Batch b;
    const double wobble[] = {-0.01, 0.0, 0.012};
    for (int t = 0; t < 3; ++t) {
        const double rx = rate_mpps * (1 + wobble[t]) * 1e6;
        const auto received = static_cast<uint64_t>(rx);
        db::TrialRow tr;
        tr.trial = t;
        tr.seconds = 1;
        tr.received = received;
        tr.forwarded = received * 3 / 4;
        tr.delivered = received - tr.forwarded;
        tr.rx_pps = rx;
        tr.forwarded_pps = rx * 0.75;
        tr.delivered_pps = rx * 0.25;
        b.trials.push_back(tr);
        const double lk = lookup * (1 + wobble[(t + 1) % 3]);
        b.stages.push_back({t, -1, "eth_rx", 0, received / 32, received, received * 30});
        b.stages.push_back({t, -1, "ip6_lookup", 1, received / 32, received,
                            static_cast<uint64_t>(lk * static_cast<double>(received))});
        b.stages.push_back({t, -1, "eth_tx", 2, received / 24, tr.forwarded, tr.forwarded * 20});
        const uint64_t q1 = skewed ? received / 1000 : received / 2;
        b.queues.push_back({t, -1, "wire", 0, "rx", received - q1, (received - q1) * 64, 0, 0, 0});
        b.queues.push_back({t, -1, "wire", 1, "rx", q1, q1 * 64, 0, 0, 0});
        db::HistogramRow h;
        h.trial = t;
        h.kind = "stage_call_cycles";
        h.subject = "ip6_lookup";
        h.unit = "cycles";
        const uint64_t base = static_cast<uint64_t>(lookup * 32);
        h.min = base - 100;
        h.max = base * 4 + t;
        h.buckets = {{analysis::bucket_index(h.min), 10},
                     {analysis::bucket_index(base), 800 + 10u * t},
                     {analysis::bucket_index(base * 2), 150},
                     {analysis::bucket_index(h.max), 5}};
        for (const auto& [i, c] : h.buckets) h.count += c;
        h.sum = h.count * base;
        b.histograms.push_back(h);
        b.perf.push_back({t, "perf::task-clock", true,
                          static_cast<uint64_t>(static_cast<double>(received) * (lk / 2 + 40)),
                          1000000000, 1000000000, ""});
        b.perf.push_back({t, "perf::cycles", false, 0, 0, 0, "not supported"});
        auto stack = [&](std::vector<std::string> names, uint64_t w) {
            db::StackRow s;
            s.trial = t;
            s.event = "perf::cpu-clock";
            for (auto& n : names) s.frames.push_back({n, "pathscope"});
            s.weight = w;
            b.stacks.push_back(s);
        };
        stack({"main", "Engine::walk", "eth_rx_process"}, 60 + t);
        stack({"main", "Engine::walk", "ip6_lookup_process", "rte_fib6_lookup<&>"},
              static_cast<uint64_t>(lk * 2));
        stack({"main", "Engine::walk"}, 20);
    }
    return b;
}

std::string read(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

class Golden : public ::testing::Test {
  protected:
    void SetUp() override {
        const std::string path = (dir.path() / "golden.db").string();
        {
            auto db = db::open_store(path, db::Database::Mode::read_write);
            db::BatchWriter w(*db);
            db::RunInfo a = info("before", "", 1), b = info("after", "engine.burst=64", 2);
            w.insert_run(a);
            w.write(a.id, rows(10.0, 60.0, true));
            w.insert_run(b);
            w.write(b.id, rows(11.0, 48.0, false));
        }
        auto db = db::open_store(path, db::Database::Mode::read_only);
        base = db::load_run(*db, db::find_run(*db, "before").id);
        cand = db::load_run(*db, db::find_run(*db, "after").id);
    }

    void check(const std::string& name, const std::string& actual) {
        const std::string file = kGolden + name;
        if (std::getenv("PATHSCOPE_UPDATE_GOLDEN")) {
            std::ofstream(file, std::ios::binary) << actual;
            return;
        }
        const std::string expected = read(file);
        ASSERT_FALSE(expected.empty()) << file << " is missing";
        EXPECT_EQ(actual, expected) << name << " differs from " << file
                                    << " (PATHSCOPE_UPDATE_GOLDEN=1 rewrites it)";
    }

    test::TempDir dir{"golden"};
    db::RunData base, cand;
};

}  // namespace

TEST_F(Golden, ReportFormats) {
    const analysis::Report two = analysis::build_report(base, &cand, {});
    check("report.txt", analysis::render_report_text(two));
    check("report.md", analysis::render_report_markdown(two));
    check("report.html", analysis::render_report_html(two));
    check("report.json", analysis::render_report_json(two));
    check("report-one-run.txt",
          analysis::render_report_text(analysis::build_report(base, nullptr, {})));
}

// Every format reads the same under a locale whose decimal point is a comma
// (the GUI runs under the user's: Qt sets it from the environment): no
// "x=\"12,5\"" in an SVG, no "12,50%" in a table.
TEST_F(Golden, EveryFormatIsTheSameUnderAGermanLocale) {
    PATHSCOPE_GERMAN_LOCALE(de);
    const analysis::Report two = analysis::build_report(base, &cand, {});
    check("report.txt", analysis::render_report_text(two));
    check("report.md", analysis::render_report_markdown(two));
    check("report.html", analysis::render_report_html(two));
    check("report.json", analysis::render_report_json(two));
}

TEST_F(Golden, TextFitsEightyColumns) {
    std::istringstream text(analysis::render_report_text(analysis::build_report(base, &cand, {})));
    int n = 0;
    for (std::string line; std::getline(text, line); ++n) EXPECT_LE(line.size(), 80u) << line;
    EXPECT_GT(n, 40);
}

TEST_F(Golden, VerdictsOfTheFixedStore) {
    const analysis::Report r = analysis::build_report(base, &cand, {});
    std::map<std::string, std::string> outcome;
    for (const auto& v : r.verdicts) outcome[v.base.name] = v.outcome;
    EXPECT_EQ(outcome["rx rate"], "better");      // 10 -> 11 Mpps, 1% wobble
    EXPECT_EQ(outcome["ip6_lookup"], "better");   // 60 -> 48 cycles/pkt
    EXPECT_EQ(outcome["eth_rx"], "no difference");  // 30 on both sides
    EXPECT_EQ(outcome["task-clock"], "better");
    ASSERT_EQ(r.base_queues.size(), 1u);
    EXPECT_TRUE(r.base_queues[0].skewed);
    EXPECT_FALSE(r.cand_queues[0].skewed);
    EXPECT_EQ(r.scenario_diff.back(), "+--set engine.burst=64");
}

TEST_F(Golden, Exports) {
    const analysis::FlameTree stacks = analysis::stack_tree(cand);
    const analysis::FlameTree stages = analysis::stage_tree(cand);
    check("export.folded", analysis::to_folded(stacks));
    check("export.speedscope.json",
          analysis::to_speedscope({{"stage cycles", &stages}, {"perf::cpu-clock", &stacks}},
                                  "golden"));
}
