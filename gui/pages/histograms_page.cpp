#include "gui/pages/histograms_page.h"
#include "gui/display_text.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <set>

#include "analysis/figures/metric_names.h"
#include "analysis/figures/run_summary.h"
#include "gui/widgets/histogram_widget.h"

namespace pathscope::gui {

namespace {
/// How a latency histogram is named in the stage list ("latency: rr").
constexpr const char* kLatencyPrefix = "latency: ";
}  // namespace

HistogramsPage::HistogramsPage(QWidget* parent) : QWidget(parent) {
    stage_ = new QComboBox;
    trial_ = new QComboBox;
    chart_ = new HistogramWidget;
    // Sized to their longest item ("all, merged", "latency: rr"), filled after the first show.
    stage_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    trial_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
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
            if (with.count(s.stage))
                stage_->addItem(display_text(s.stage), QString::fromLatin1(db::kStageCallCycles));
        // Then the latencies: a packet's time through the engine per outcome,
        // request/response round trips, a micro-benchmark's timed calls.
        std::set<std::string> latencies;
        for (const auto& h : run_->rows.histograms)
            if (h.kind == db::kLatency) latencies.insert(h.subject);
        for (const auto& l : latencies)
            stage_->addItem(display_text(kLatencyPrefix + l), QString::fromLatin1(db::kLatency));
        trial_->addItem(tr("all, merged"), -1);
        for (const auto& t : run_->rows.trials) trial_->addItem(tr("trial %1").arg(t.trial), t.trial);
    }
    redraw();
}

void HistogramsPage::show_stage(const QString& stage) {
    const int i = stage_->findText(stage);
    if (i >= 0) stage_->setCurrentIndex(i);
}

QString HistogramsPage::calls_note(const std::string& stage, int trial) const {
    if (!run_) return {};
    uint64_t busy = 0;
    for (const auto& row : analysis::trial_stage_totals(*run_))
        if (row.stage == stage && (trial < 0 || row.trial == trial)) busy += analysis::busy_calls(row);
    const uint64_t in_histogram = analysis::merged_histogram(*run_, db::kStageCallCycles, stage, trial).count();
    return QString::fromStdString(analysis::histogram_calls_note(in_histogram, busy));
}

void HistogramsPage::redraw() {
    std::vector<HistogramWidget::Series> series;
    std::string stage = stage_->currentText().toStdString();
    const std::string kind = stage_->currentData().toString().toStdString();
    const bool latency = kind == db::kLatency;
    if (latency) stage = stage.substr(std::string(kLatencyPrefix).size());
    const int trial = trial_->currentData().isValid() ? trial_->currentData().toInt() : -1;
    if (run_ && !stage.empty()) {
        series.push_back({display_text(run_->info.label),
                          analysis::merged_histogram(*run_, kind, stage, trial),
                          QColor(0xe0, 0x80, 0x20)});
    }
    if (latency)
        chart_->set_series(std::move(series), tr("cycles"),
                           stage == "rr" ? tr("Request/response round trips (cycles)")
                                         : tr("Latency of %1 (cycles)").arg(display_text(stage)));
    else
        chart_->set_series(std::move(series), QString::fromLatin1(analysis::kCyclesPerBusyCall),
                           tr("Cycles per call of %1 (%2)")
                               .arg(display_text(stage), calls_note(stage, trial)));
}

}  // namespace pathscope::gui
