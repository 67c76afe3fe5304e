// The report as one self-contained HTML page: tables, the ministat plot and
// histograms as preformatted text, and inline SVG flame graphs with zoom on
// click and search.
#include "analysis/render/chart_svg.h"
#include "analysis/render/flame_svg.h"
#include "analysis/figures/metric_names.h"
#include "analysis/render/report.h"
#include "analysis/render/report_tables.h"

namespace pathscope::analysis {

const char* const kReportStyle = R"(body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px}
td{text-align:right}td:first-child,th:first-child{text-align:left}
tr.better td{background:#e6f4e6}tr.worse td{background:#fbe7e7}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto}
svg.flame{font:11px monospace;cursor:pointer;display:block}
svg.flame text{pointer-events:none}svg.flame .hint{fill:#666}
.search{margin:.5em 0}.matched{margin-left:1em;color:#666})";

namespace {


// Zoom: a clicked frame fills the width, its ancestors span it, everything
// outside it is hidden. Search: frames whose name contains the text turn
// magenta, and the share of the root they cover is shown.
const char* const kScript = R"(
(function () {
  // As the report's SVG and the desktop widget label frames: the name with
  // its share where it fits, else the end of the name (the function).
  function label(name, share, px) {
    var fits = Math.floor((px - 6) / 7);
    if (fits < 4) return '';
    var full = name + ' ' + (share * 100).toFixed(1) + '%';
    if (full.length <= fits) return full;
    return name.length <= fits ? name : '~' + name.slice(name.length - (fits - 1));
  }
  document.querySelectorAll('svg.flame').forEach(function (svg) {
    var width = +svg.getAttribute('data-width');
    var frames = Array.prototype.slice.call(svg.querySelectorAll('g.f'));
    frames.forEach(function (g) {
      g.dataset.n = g.querySelector('title').textContent.split(' | ')[0];
      g.dataset.fill = g.querySelector('rect').getAttribute('fill');
    });
    function zoom(x0, w0, d0) {
      frames.forEach(function (g) {
        var x = +g.dataset.x, w = +g.dataset.w, d = +g.dataset.d, eps = 1e-9;
        var inside = x >= x0 - eps && x + w <= x0 + w0 + eps && d >= d0;
        var above = d < d0 && x <= x0 + eps && x + w >= x0 + w0 - eps;
        g.style.display = inside || above ? '' : 'none';
        if (g.style.display) return;
        var nx = above ? 0 : (x - x0) / w0 * width, nw = above ? width : w / w0 * width;
        var rect = g.querySelector('rect'), text = g.querySelector('text');
        rect.setAttribute('x', nx.toFixed(1));
        rect.setAttribute('width', Math.max(0.1, nw - 0.5).toFixed(1));
        text.setAttribute('x', (nx + 3).toFixed(1));
        text.textContent = label(g.dataset.n, w, nw);  // the share of all, at any zoom
      });
    }
    svg.addEventListener('click', function (e) {
      var g = e.target.closest('g.f');
      if (g) zoom(+g.dataset.x, +g.dataset.w, +g.dataset.d);
    });
    var box = document.getElementById('search-' + svg.id);
    var shown = document.getElementById('matched-' + svg.id);
    if (!box) return;
    box.addEventListener('input', function () {
      var q = box.value.toLowerCase(), covered = [];
      frames.forEach(function (g) {
        var hit = q && g.dataset.n.toLowerCase().indexOf(q) >= 0 && g.dataset.d > 0;
        g.querySelector('rect').setAttribute('fill', hit ? '#e040fb' : g.dataset.fill);
        if (!hit) return;
        var x = +g.dataset.x, w = +g.dataset.w;
        if (!covered.some(function (c) { return x >= c[0] && x + w <= c[0] + c[1] + 1e-9; }))
          covered.push([x, w]);
      });
      var sum = covered.reduce(function (s, c) { return s + c[1]; }, 0);
      shown.textContent = q ? 'matched ' + (sum * 100).toFixed(2) + '% of all' : '';
    });
  });
})();
)";

}  // namespace

std::string html_table(const Table& t, int verdict_column) {
    std::string out = "<table>\n<tr>";
    for (const auto& h : t.header) out += "<th>" + xml_escape(h) + "</th>";
    out += "</tr>\n";
    for (const auto& row : t.rows) {
        std::string cls;
        if (verdict_column >= 0 && row.size() > static_cast<size_t>(verdict_column)) {
            const std::string& v = row[static_cast<size_t>(verdict_column)];
            if (v.rfind("better", 0) == 0) cls = " class=\"better\"";
            if (v.rfind("worse", 0) == 0) cls = " class=\"worse\"";
        }
        out += "<tr" + cls + ">";
        for (const auto& c : row) out += "<td>" + xml_escape(c) + "</td>";
        out += "</tr>\n";
    }
    return out + "</table>\n";
}

namespace {

std::string pre(const std::string& s) { return "<pre>" + xml_escape(s) + "</pre>\n"; }

std::string flame_section(const std::string& title, const std::string& id, const FlameDiff& d,
                          const std::string& unit, bool differential, const std::string& note) {
    FlameSvgOptions opt;
    opt.id = id;
    opt.unit = unit;
    opt.differential = differential;
    std::string out = "<h2>" + xml_escape(title) + "</h2>\n";
    if (differential)
        out += "<p>Widths follow the candidate. Red grew, blue shrank, grey is within noise (" +
               xml_escape(note) + ").</p>\n";
    out += "<div class=\"search\"><label>search <input type=\"search\" id=\"search-" + id +
           "\"></label><span class=\"matched\" id=\"matched-" + id + "\"></span></div>\n";
    return out + flame_svg(d, opt);
}

}  // namespace

std::string render_report_html(const Report& r) {
    const std::string title = report_title(r);
    std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    xml_escape(title) + "</title>\n<style>\n" + kReportStyle +
                    "\n</style>\n</head>\n<body>\n<h1>" + xml_escape(title) + "</h1>\n";
    for (const auto& w : r.warnings)
        o += "<p class=\"warning\"><strong>Warning:</strong> " + xml_escape(w) + "</p>\n";
    o += "<h2>Environment</h2>\n" + html_table(environment_table(r));
    if (r.has_cand) {
        std::string diff;
        for (const auto& l : r.scenario_diff)
            if (l[0] != ' ') diff += l + "\n";
        o += "<h2>Scenario difference</h2>\n" +
             pre(diff.empty() ? "(none: same scenario and settings)\n" : diff);
    } else {
        std::string lines;
        for (const auto& l : r.settings) lines += l + "\n";
        o += "<h2>Settings</h2>\n" + pre(lines.empty() ? "(none: the scenario as written)\n" : lines);
    }
    o += std::string("<h2>") + (r.has_cand ? "Verdicts" : "Measurements") + "</h2>\n" +
         html_table(verdict_table(r), 7);
    for (const auto& n : verdict_notes(r)) o += "<p>" + xml_escape(n) + "</p>\n";
    for (const auto& plot : r.ministat_plots)
        o += "<h2>" + xml_escape(plot.title) + "</h2>\n" + pre(plot.text) +
             (plot.verdict.empty() ? "" : "<p>" + xml_escape(plot.verdict) + "</p>\n");
    o += "<h2>Cycles per " + r.per_packet + " by stage" +
         (r.absent.empty() ? "" : " (" + xml_escape(r.stage_source) + ")") + "</h2>\n" +
         html_table(stage_table(r));
    for (const auto& t : r.timing) o += "<p>" + xml_escape(t) + "</p>\n";
    o += flame_section(r.has_cand ? "Stage cycles per packet, difference" : "Stage cycles per packet",
                       "stages", r.stages, r.transmit ? "cyc/tx pkt" : "cyc/rx pkt", r.has_cand, r.stages.method);
    for (const auto& h : r.histograms) {
        o += "<h2>Cycles per call of " + xml_escape(h.stage) + "</h2>\n";
        std::vector<SvgHistogram> series{{(r.has_cand ? "base: " : "") + r.base.label, "#3070d0", &h.base}};
        if (r.has_cand) series.push_back({"cand: " + r.cand.label, "#e06020", &h.cand});
        o += histogram_svg(series, kCyclesPerBusyCall);
    }
    if (!r.base_series.points.empty()) {
        // Receive (or, for a run that only sent, transmit) rate per interval;
        // a comparison draws both runs on one axis.
        const bool transmit = r.transmit;
        auto line = [transmit](const TimeSeries& ts, const std::string& name, const char* colour) {
            SvgLine l{name, colour, {}};
            for (const auto& p : ts.points)
                l.points.emplace_back((p.t0 + p.t1) / 2, (transmit ? p.tx_pps : p.rx_pps) / 1e6);
            return l;
        };
        std::vector<SvgLine> lines{line(r.base_series, (r.has_cand ? "base: " : "") + r.base.label, "#3070d0")};
        if (r.has_cand && !r.cand_series.points.empty())
            lines.push_back(line(r.cand_series, "cand: " + r.cand.label, "#e06020"));
        std::vector<double> bounds(r.base_series.trial_starts.begin() + 1, r.base_series.trial_starts.end());
        o += std::string(transmit ? "<h2>Transmit rate per interval</h2>\n"
                                  : "<h2>Receive rate per interval</h2>\n") +
             line_chart_svg(lines, "seconds (trials one after another)", "Mpps", bounds);
    }
    o += "<h2>Queues</h2>\n" + html_table(queue_table(r));
    if (!r.absent.empty()) o += "<p>" + xml_escape(r.absent) + "</p>\n";
    if (!r.stack_event.empty()) {
        o += flame_section("Sampled call stacks (" + r.stack_event + ", share of samples)",
                           "stacks", r.stacks, "of the samples", r.has_cand, r.stacks.method);
        o += "<h2>Hottest functions</h2>\n" + html_table(hottest_table(r));
    } else {
        o += "<h2>Sampled call stacks</h2>\n<p>No sampled stacks in this run.</p>\n";
    }
    return o + "<script>" + kScript + "</script>\n</body>\n</html>\n";
}

}  // namespace pathscope::analysis
