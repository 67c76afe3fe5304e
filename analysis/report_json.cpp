// The report as JSON: every figure the other formats show, for scripts.
#include "analysis/metric_names.h"
#include "analysis/json.h"
#include "analysis/report.h"
#include "analysis/report_tables.h"

namespace pathscope::analysis {

namespace {

struct Obj {
    std::string s = "{";
    Obj& raw(const std::string& k, const std::string& v) {
        s += (s.size() > 1 ? ", " : "") + json_string(k) + ": " + v;
        return *this;
    }
    Obj& str(const std::string& k, const std::string& v) { return raw(k, json_string(v)); }
    Obj& num(const std::string& k, double v) { return raw(k, json_number(v)); }
    Obj& flag(const std::string& k, bool v) { return raw(k, v ? "true" : "false"); }
    std::string done() const { return s + "}"; }
};

template <typename T, typename F>
std::string array(const std::vector<T>& items, F each, const char* sep = ", ") {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + each(items[i]);
    return out + "]";
}

std::string run(const db::RunInfo& r) {
    return Obj()
        .num("id", static_cast<double>(r.id))
        .str("uuid", r.uuid)
        .str("label", r.label)
        .str("kind", r.kind)
        .str("status", r.status)
        .str("host", r.host)
        .str("cpu", r.cpu_model)
        .num("tsc_hz", static_cast<double>(r.tsc_hz))
        .str("version", r.engine_version)
        .str("git_revision", r.git_revision)
        .str("started", r.started_at)
        .num("trials", r.trials)
        .num("trial_seconds", r.trial_seconds)
        .str("settings", r.settings)
        .done();
}

std::string summary(const Summary& s) {
    return Obj()
        .num("n", static_cast<double>(s.n))
        .num("min", s.min)
        .num("max", s.max)
        .num("median", s.median)
        .num("mean", s.mean)
        .num("stddev", s.stddev)
        .done();
}

std::string metric(const Metric& m) {
    return Obj()
        .str("group", m.group)
        .str("name", m.name)
        .str("unit", m.unit)
        .flag("higher_is_better", m.higher_is_better)
        .raw("values", array(m.values, json_number))
        .done();
}

std::string verdict(const Verdict& v) {
    Obj o;
    o.str("group", v.base.group)
        .str("name", v.base.name)
        .str("unit", v.base.unit)
        .str("test", v.test)
        .raw("base", summary(v.base_summary))
        .raw("cand", summary(v.cand_summary))
        .num("change_percent", v.percent)
        .str("outcome", v.outcome)
        .flag("significant", v.significant)
        .str("warning", v.warning);
    if (v.test == kStudentT)
        o.num("difference", v.t.difference)
            .num("half_width", v.t.half_width)
            .num("change_percent_half_width", v.t.percent_half_width)
            .num("pooled_s", v.t.pooled_s);
    else
        o.num("u", v.u.u).num("p", v.u.p).flag("exact", v.u.exact).num("shift", v.u.shift);
    return o.done();
}

std::string histogram(const Histogram& h) {
    return Obj()
        .num("count", static_cast<double>(h.count()))
        .num("min", static_cast<double>(h.min()))
        .num("max", static_cast<double>(h.max()))
        .num("mean", h.mean())
        .num("p50", h.percentile(50))
        .num("p90", h.percentile(90))
        .num("p95", h.percentile(95))
        .num("p99", h.percentile(99))
        .num("mad", h.mad())
        .done();
}

std::string queues(const std::vector<QueueSkew>& list) {
    return array(list, [](const QueueSkew& q) {
        return Obj()
            .str("port", q.port)
            .str("dir", q.dir)
            .num("max_over_mean", q.max_over_mean)
            .num("jain", q.jain)
            .flag("skewed", q.skewed)
            .str("flag", q.flag)
            .raw("queues", array(q.queues,
                                 [](const QueueShare& s) {
                                     return Obj()
                                         .num("queue", s.queue)
                                         .num("packets", static_cast<double>(s.packets))
                                         .num("share", s.share)
                                         .done();
                                 }))
            .done();
    });
}

std::string diff_nodes(const FlameDiff& d) {
    std::vector<size_t> index(d.nodes.size());
    for (size_t i = 0; i < index.size(); ++i) index[i] = i;
    return array(
        index,
        [&](size_t i) {
            const DiffNode& n = d.nodes[i];
            return Obj()
                .str("path", i ? d.path(i) : "all")
                .num("base", n.base)
                .num("cand", n.cand)
                .num("delta", n.delta)
                .num("relative", n.relative)
                .flag("noise", n.noise)
                .done();
        },
        ",\n    ");
}

}  // namespace

std::string render_report_json(const Report& r) {
    Obj o;
    o.str("title", report_title(r))
        .num("confidence", r.options.confidence)
        .raw("base", run(r.base))
        .raw("cand", r.has_cand ? run(r.cand) : "null")
        .raw("environment", array(r.environment,
                                  [](const std::array<std::string, 3>& e) {
                                      return Obj()
                                          .str("field", e[0])
                                          .str("base", e[1])
                                          .str("cand", e[2])
                                          .done();
                                  }))
        .raw("scenario_diff", array(r.scenario_diff, json_string))
        .raw("base_metrics", array(r.base_metrics, metric, ",\n  "))
        .raw("cand_metrics", array(r.cand_metrics, metric, ",\n  "))
        .raw("verdicts", array(r.verdicts, verdict, ",\n  "))
        .raw("stages", Obj().str("unit", "cycles per received packet")
                           .str("noise_method", r.stages.method)
                           .raw("nodes", diff_nodes(r.stages))
                           .done())
        .raw("histograms", array(r.histograms,
                                 [&](const Report::StageHistogram& h) {
                                     return Obj()
                                         .str("stage", h.stage)
                                         .str("unit", "cycles per call")
                                         .raw("base", histogram(h.base))
                                         .raw("cand", r.has_cand ? histogram(h.cand) : "null")
                                         .done();
                                 }))
        .raw("queues", Obj().raw("base", queues(r.base_queues))
                           .raw("cand", queues(r.cand_queues))
                           .done())
        .raw("stacks", Obj().str("event", r.stack_event)
                           .str("noise_method", r.stacks.method)
                           .raw("hottest", array(r.hottest,
                                                 [](const SelfShare& s) {
                                                     return Obj()
                                                         .str("function", s.name)
                                                         .num("base_share", s.base)
                                                         .num("cand_share", s.cand)
                                                         .flag("noise", s.noise)
                                                         .done();
                                                 }))
                           .done());
    std::string out = o.done();
    // One top-level key a line keeps golden diffs readable.
    std::string pretty;
    int depth = 0;
    bool in_string = false, escaped = false;
    for (const char c : out) {
        pretty += c;
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') --depth;
        if (c == ',' && depth == 1) pretty += "\n";
    }
    return pretty + "\n";
}

}  // namespace pathscope::analysis
