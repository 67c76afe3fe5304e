#include "gui/pages/histograms_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <set>

#include "analysis/run_summary.h"
#include "gui/widgets/histogram_widget.h"

namespace pathscope::gui {

HistogramsPage::HistogramsPage(QWidget* parent) : QWidget(parent) {
    stage_ = new QComboBox;
    trial_ = new QComboBox;
    chart_ = new HistogramWidget;
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("stage")));
    bar->addWidget(stage_);
    bar->addWidget(new QLabel(tr("trials")));
    bar->addWidget(trial_);
    bar->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(chart_, 1);
    connect(stage_, &QComboBox::currentIndexChanged, this, &HistogramsPage::redraw);
    connect(trial_, &QComboBox::currentIndexChanged, this, &HistogramsPage::redraw);
}

void HistogramsPage::set_run(std::shared_ptr<const db::RunData> run) {
    run_ = std::move(run);
    const QSignalBlocker a(stage_), b(trial_);
    stage_->clear();
    trial_->clear();
    if (run_) {
        // Stages in graph order, those with a histogram.
        std::set<std::string> with;
        for (const auto& h : run_->rows.histograms)
            if (h.kind == db::kStageCallCycles) with.insert(h.subject);
        for (const auto& s : analysis::trial_stage_totals(*run_, 1))
            if (with.count(s.stage)) stage_->addItem(QString::fromStdString(s.stage));
        trial_->addItem(tr("all, merged"), -1);
        for (const auto& t : run_->rows.trials) trial_->addItem(tr("trial %1").arg(t.trial), t.trial);
    }
    redraw();
}

void HistogramsPage::show_stage(const QString& stage) {
    const int i = stage_->findText(stage);
    if (i >= 0) stage_->setCurrentIndex(i);
}

void HistogramsPage::redraw() {
    std::vector<HistogramWidget::Series> series;
    const std::string stage = stage_->currentText().toStdString();
    const int trial = trial_->currentData().isValid() ? trial_->currentData().toInt() : -1;
    if (run_ && !stage.empty()) {
        series.push_back({QString::fromStdString(run_->info.label),
                          analysis::merged_histogram(*run_, db::kStageCallCycles, stage, trial),
                          QColor(0xe0, 0x80, 0x20)});
    }
    chart_->set_series(std::move(series), tr("cycles per busy call"),
                       tr("Cycles per call of %1 (busy calls; idle polls are left out)")
                           .arg(QString::fromStdString(stage)));
}

}  // namespace pathscope::gui
