#include "gui/pages/compare_page.h"
#include "gui/display_text.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "analysis/figures/metric_names.h"
#include "gui/models/verdict_table_model.h"
#include "gui/pages/flame_page.h"
#include "gui/widgets/histogram_widget.h"

namespace pathscope::gui {

ComparePage::ComparePage(QWidget* parent) : QWidget(parent) {
    title_ = new QLabel(tr("Select two runs in the list (Ctrl+click) to compare them."));
    title_->setWordWrap(true);
    verdicts_ = new VerdictTableModel(this);
    table_ = new QTableView;
    table_->setModel(verdicts_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Rows as tall as their text: more verdicts in view.
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    // The metric and its unit tell the rows apart; the group's column would
    // push the verdict's test off the page at the default size.
    table_->setColumnHidden(VerdictTableModel::Group, true);
    flame_ = new FlamePage;
    stage_ = new QComboBox;
    histogram_ = new HistogramWidget;
    ministat_ = new QPlainTextEdit;
    ministat_->setReadOnly(true);
    ministat_->setFont(QFont(QStringLiteral("DejaVu Sans Mono")));
    ministat_->setLineWrapMode(QPlainTextEdit::NoWrap);

    auto* hist_page = new QWidget;
    auto* hist_layout = new QVBoxLayout(hist_page);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("stage")));
    bar->addWidget(stage_);
    bar->addStretch(1);
    hist_layout->addLayout(bar);
    hist_layout->addWidget(histogram_, 1);
    auto* views = new QTabWidget;
    views->addTab(flame_, tr("Differential flame graph"));
    views->addTab(hist_page, tr("Histograms overlaid"));
    views->addTab(ministat_, tr("ministat"));
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(table_);
    split->addWidget(views);
    // The verdicts are the page's point: half the height, about ten rows at
    // the default size, the rest scrolls.
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({420, 320});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(split, 1);
    connect(stage_, &QComboBox::currentIndexChanged, this, &ComparePage::redraw_histogram);
}

void ComparePage::set_report(std::shared_ptr<const analysis::Report> report) {
    report_ = std::move(report);
    if (!report_) return;
    const analysis::Report& r = *report_;
    QString warnings;
    for (const auto& w : r.warnings) warnings += "<br><span style='color:#a04000'>" +
                                                  display_text(w).toHtmlEscaped() + "</span>";
    // Why the verdicts that could not judge did not, each reason once with
    // the metrics it holds for: in view, not only in a row's tooltip.
    std::map<std::string, std::vector<std::string>> unjudged;
    for (const auto& v : r.verdicts) {
        if (v.outcome == analysis::kUnreliable) unjudged["unreliable: " + v.unreliable].push_back(v.base.name);
        if (v.outcome == analysis::kTooFewTrials) unjudged["too few trials: " + v.warning].push_back(v.base.name);
    }
    for (const auto& [why, names] : unjudged) {
        std::string which = names.front();
        for (size_t i = 1; i < names.size() && i < 3; ++i) which += ", " + names[i];
        if (names.size() > 3) which += fmt::format(" and {} more", names.size() - 3);
        warnings += "<br><span style='color:#a04000'>" +
                    display_text(which + ": " + why).toHtmlEscaped() + "</span>";
    }
    title_->setText(tr("<b>%1</b> (run %2) against <b>%3</b> (run %4), at %5% confidence%6")
                        .arg(display_text(r.cand.label).toHtmlEscaped())
                        .arg(r.cand.id)
                        .arg(display_text(r.base.label).toHtmlEscaped())
                        .arg(r.base.id)
                        .arg(r.options.confidence)
                        .arg(warnings));
    verdicts_->set_verdicts(r.verdicts);
    flame_->set_diff(std::make_shared<analysis::FlameDiff>(r.stages), true,
                     QString::fromLatin1(analysis::cycles_per_path_packet(r.transmit)),
                     tr("Stage cycles per %1, candidate against base: red grew, blue shrank, "
                        "grey within noise (%2)")
                         .arg(display_text(r.per_packet))
                         .arg(display_text(r.stages.method)));
    const QSignalBlocker block(stage_);
    stage_->clear();
    for (const auto& h : r.histograms) stage_->addItem(display_text(h.stage));
    QString text;
    for (const auto& plot : r.ministat_plots)
        text += display_lines(plot.title + "\n" + plot.text + plot.verdict + "\n\n");
    if (text.isEmpty()) text = tr("ministat needs at least 3 trials a side.");
    ministat_->setPlainText(text);
    redraw_histogram();
}

void ComparePage::redraw_histogram() {
    std::vector<HistogramWidget::Series> series;
    QString stage = stage_->currentText();
    if (report_)
        for (const auto& h : report_->histograms)
            if (display_text(h.stage) == stage) {
                series.push_back({tr("base: %1").arg(display_text(report_->base.label)),
                                  h.base, QColor(0x30, 0x70, 0xd0)});
                series.push_back({tr("cand: %1").arg(display_text(report_->cand.label)),
                                  h.cand, QColor(0xe0, 0x60, 0x20)});
            }
    histogram_->set_series(std::move(series), QString::fromLatin1(analysis::kCyclesPerBusyCall),
                           tr("Cycles per call of %1, base and candidate").arg(stage));
}

}  // namespace pathscope::gui
