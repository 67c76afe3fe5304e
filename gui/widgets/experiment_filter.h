// The run browser's experiment filter: "all runs", or one experiment's
// cells (its id, cell count and scenario), refilled whenever the run list is.
#pragma once

#include <QComboBox>

namespace pathscope::gui {

class RunFilterProxy;
class RunListModel;

class ExperimentFilter : public QComboBox {
    Q_OBJECT
  public:
    ExperimentFilter(RunListModel* runs, RunFilterProxy* proxy, QWidget* parent = nullptr);
    /// Shows experiment `id`'s cells only ("" for every run); false if none such.
    bool choose(const QString& id);

  private:
    void refill();
    RunListModel* runs_;
    RunFilterProxy* proxy_;
};

}  // namespace pathscope::gui
