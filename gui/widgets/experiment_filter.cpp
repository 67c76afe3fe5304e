#include "gui/widgets/experiment_filter.h"

#include "gui/models/run_list_model.h"

namespace pathscope::gui {

ExperimentFilter::ExperimentFilter(RunListModel* runs, RunFilterProxy* proxy, QWidget* parent)
    : QComboBox(parent), runs_(runs), proxy_(proxy) {
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(24);
    setToolTip(tr("show one experiment's cells only"));
    connect(runs_, &QAbstractItemModel::modelReset, this, &ExperimentFilter::refill);
    connect(this, &QComboBox::currentIndexChanged, this,
            [this] { proxy_->set_experiment(currentData().toString()); });
    refill();
}

bool ExperimentFilter::choose(const QString& id) {
    const int at = findData(id);
    if (at < 0) return false;
    setCurrentIndex(at);
    return true;
}

void ExperimentFilter::refill() {
    const QString chosen = currentData().toString();
    {
        const QSignalBlocker block(this);
        clear();
        addItem(tr("all runs (%1)").arg(runs_->rowCount()), QString());
        for (const auto& e : runs_->experiments())
            addItem(tr("experiment %1: %2 cells of %3").arg(e.id).arg(e.cells.size()).arg(e.scenario),
                    e.id);
        const int at = findData(chosen);
        setCurrentIndex(at >= 0 ? at : 0);
    }
    proxy_->set_experiment(currentData().toString());
}

}  // namespace pathscope::gui
