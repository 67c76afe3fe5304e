// The Experiments page's grid: one row per combination of the other
// settings, one column per non-baseline value of the judged setting and
// metric; each cell the change against the baseline with its confidence
// interval and verdict, coloured by the verdict. The values are
// analysis::compare_experiment's, as `compare --experiment` prints them.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "analysis/verdicts/experiment.h"

namespace pathscope::gui {

class ExperimentGridModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    /// The verdict as compare --experiment names it ("better", "too few trials", "unreliable", ...).
    static constexpr int VerdictRole = Qt::UserRole + 1;
    /// The change in % of the baseline's mean, and its interval's half-width in %.
    static constexpr int ChangeRole = Qt::UserRole + 2;
    static constexpr int HalfWidthRole = Qt::UserRole + 3;
    /// The runs compared in a cell (0: that value has no run in this row).
    static constexpr int BaseRunRole = Qt::UserRole + 4;
    static constexpr int CandRunRole = Qt::UserRole + 5;

    explicit ExperimentGridModel(QObject* parent = nullptr);
    void set_comparison(std::shared_ptr<const analysis::ExperimentComparison> e);
    const analysis::ExperimentComparison* comparison() const { return e_.get(); }
    /// Column `column`'s value (index into values, 1 and up) and metric.
    size_t value_of(int column) const;
    size_t metric_of(int column) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    const analysis::Verdict* verdict(const QModelIndex& index) const;
    std::shared_ptr<const analysis::ExperimentComparison> e_;
    std::vector<QString> row_names_;  ///< each row's other settings, shortened
};

}  // namespace pathscope::gui
