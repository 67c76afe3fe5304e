// The report as JSON: every figure the other formats show, for scripts.
#include "analysis/text/json_text.h"
#include "analysis/figures/metric_names.h"
#include "analysis/render/report.h"
#include "analysis/render/report_tables.h"

namespace pathscope::analysis {

namespace {

using nlohmann::ordered_json;

template <typename T, typename F>
ordered_json array(const std::vector<T>& items, F each) {
    ordered_json out = ordered_json::array();
    for (const auto& item : items) out.push_back(each(item));
    return out;
}

ordered_json run(const db::RunInfo& r) {
    return {{"id", r.id},
            {"uuid", r.uuid},
            {"label", r.label},
            {"kind", r.kind},
            {"status", r.status},
            {"host", r.host},
            {"cpu", r.cpu_model},
            {"tsc_hz", r.tsc_hz},
            {"version", r.engine_version},
            {"git_revision", r.git_revision},
            {"started", r.started_at},
            {"trials", r.trials},
            {"trial_seconds", r.trial_seconds},
            {"settings", r.settings}};
}

ordered_json summary(const Summary& s) {
    return {{"n", s.n},         {"min", s.min},   {"max", s.max},
            {"median", s.median}, {"mean", s.mean}, {"stddev", s.stddev}};
}

ordered_json metric(const Metric& m) {
    return {{"group", m.group},
            {"name", m.name},
            {"unit", m.unit},
            {"higher_is_better", m.higher_is_better},
            {"values", m.values}};
}

ordered_json verdict(const Verdict& v) {
    ordered_json o = {{"group", v.base.group},
                      {"name", v.base.name},
                      {"unit", v.base.unit},
                      {"test", v.test},
                      {"base", summary(v.base_summary)},
                      {"cand", summary(v.cand_summary)},
                      {"change_percent", v.percent},
                      {"outcome", v.outcome},
                      {"significant", v.significant},
                      {"p", v.p},
                      {"q", v.q},
                      {"family", v.family},
                      {"interval_confidence", v.confidence},
                      {"unreliable", v.unreliable},
                      {"warning", v.warning},
                      {"note", v.note}};
    if (v.t_family()) {
        o["difference"] = v.difference;
        o["half_width"] = v.half_width;
        o["change_percent_half_width"] = v.percent_half_width;
        o["no_variance"] = v.no_variance;
    }
    if (v.test == kStudentT) {
        o["ministat_percent_half_width"] = v.t.percent_half_width;
        o["pooled_s"] = v.t.pooled_s;
    } else if (v.test == kMannWhitneyU) {
        o["u"] = v.u.u;
        o["exact"] = v.u.exact;
        o["shift"] = v.u.shift;
    } else {
        o["pairs"] = v.pairs;
        o["paired_t_p"] = v.paired.p;
        o["signed_rank"] = {{"statistic", v.signed_rank.statistic},
                            {"p", v.signed_rank.p},
                            {"exact", v.signed_rank.exact},
                            {"shift", v.signed_rank.shift}};
    }
    return o;
}

ordered_json histogram(const Histogram& h) {
    return {{"count", h.count()},
            {"min", h.min()},
            {"max", h.max()},
            {"mean", h.mean()},
            {"p50", h.percentile(50)},
            {"p90", h.percentile(90)},
            {"p95", h.percentile(95)},
            {"p99", h.percentile(99)},
            {"mad", h.mad()}};
}

ordered_json queues(const std::vector<QueueSkew>& list) {
    return array(list, [](const QueueSkew& q) {
        return ordered_json{{"port", q.port},
                            {"dir", q.dir},
                            {"max_over_mean", q.max_over_mean},
                            {"jain", q.jain},
                            {"skewed", q.skewed},
                            {"flag", q.flag},
                            {"queues", array(q.queues, [](const QueueShare& s) {
                                 return ordered_json{
                                     {"queue", s.queue}, {"packets", s.packets}, {"share", s.share}};
                             })}};
    });
}

ordered_json diff_nodes(const FlameDiff& d) {
    ordered_json out = ordered_json::array();
    for (size_t i = 0; i < d.nodes.size(); ++i) {
        const DiffNode& n = d.nodes[i];
        out.push_back({{"path", i ? d.path(i) : "all"},
                       {"base", n.base},
                       {"cand", n.cand},
                       {"delta", n.delta},
                       {"relative", n.relative},
                       {"noise", n.noise}});
    }
    return out;
}

}  // namespace

std::string render_report_json(const Report& r) {
    ordered_json doc = {
        {"title", report_title(r)},
        {"confidence", r.options.confidence},
        {"warnings", r.warnings},
        {"base", run(r.base)},
        {"cand", r.has_cand ? run(r.cand) : ordered_json(nullptr)},
        {"environment", array(r.environment,
                              [](const std::array<std::string, 3>& e) {
                                  return ordered_json{
                                      {"field", e[0]}, {"base", e[1]}, {"cand", e[2]}};
                              })},
        {"scenario_diff", r.scenario_diff},
        {"settings", r.settings},
        {"base_metrics", array(r.base_metrics, metric)},
        {"cand_metrics", array(r.cand_metrics, metric)},
        {"verdicts", array(r.verdicts, verdict)},
        {"stages",
         {{"unit", "busy cycles per " + r.per_packet},
          {"noise_method", r.stages.method},
          {"timing", r.timing},
          {"nodes", diff_nodes(r.stages)}}},
        {"histograms", array(r.histograms,
                             [&](const Report::StageHistogram& h) {
                                 return ordered_json{
                                     {"stage", h.stage},
                                     {"unit", kCyclesPerBusyCall},
                                     {"base", histogram(h.base)},
                                     {"cand", r.has_cand ? histogram(h.cand)
                                                         : ordered_json(nullptr)}};
                             })},
        {"queues", {{"base", queues(r.base_queues)}, {"cand", queues(r.cand_queues)}}},
        {"stacks",
         {{"event", r.stack_event},
          {"noise_method", r.stacks.method},
          {"hottest", array(r.hottest, [](const SelfShare& s) {
               return ordered_json{{"function", s.name},
                                   {"base_share", s.base},
                                   {"cand_share", s.cand},
                                   {"noise", s.noise}};
           })}}}};
    // A Linux run's: where its stage cycles come from, and what it lacks
    // (engine reports keep the fields they always had).
    if (!r.absent.empty()) {
        doc["stages"]["source"] = r.stage_source;
        doc["absent"] = r.absent;
    }
    return dump_json(doc);
}

}  // namespace pathscope::analysis
