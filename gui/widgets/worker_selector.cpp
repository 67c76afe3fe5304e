#include "gui/widgets/worker_selector.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>

namespace pathscope::gui {

WorkerSelector::WorkerSelector(bool rows_box, QWidget* parent) : QWidget(parent) {
    combo_ = new QComboBox;
    combo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    combo_->setToolTip(tr("this run ran several worker lcores: show their sums, or one of them "
                          "alone (its stages, per-call histograms and ledger)"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("worker")));
    layout->addWidget(combo_);
    if (rows_box) {
        rows_ = new QCheckBox(tr("a row per worker"));
        rows_->setToolTip(tr("under each stage, the stage on each worker alone"));
        layout->addWidget(rows_);
        connect(rows_, &QCheckBox::toggled, this, &WorkerSelector::worker_rows_toggled);
    }
    layout->addStretch(1);
    connect(combo_, &QComboBox::currentIndexChanged, this,
            [this] { emit chosen(worker()); });
    setVisible(false);
}

void WorkerSelector::set_workers(const std::vector<std::pair<int, int>>& workers) {
    const int keep = worker();
    const QSignalBlocker block(combo_);
    combo_->clear();
    combo_->addItem(tr("all workers"), kAllWorkers);
    for (const auto& [id, lcore] : workers)
        combo_->addItem(lcore >= 0 ? tr("worker %1 (lcore %2)").arg(id).arg(lcore)
                                   : tr("worker %1").arg(id),
                        id);
    const int at = combo_->findData(keep);
    combo_->setCurrentIndex(at < 0 ? 0 : at);
    setVisible(workers.size() >= 2);
    setEnabled(workers.size() >= 2);
}

int WorkerSelector::worker() const {
    return combo_->currentIndex() < 0 ? kAllWorkers : combo_->currentData().toInt();
}

void WorkerSelector::set_worker(int worker) {
    const QSignalBlocker block(combo_);
    const int at = combo_->findData(worker);
    combo_->setCurrentIndex(at < 0 ? 0 : at);
}

bool WorkerSelector::worker_rows() const { return rows_ && rows_->isChecked(); }

}  // namespace pathscope::gui
