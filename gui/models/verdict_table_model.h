// The comparison page's verdict table: one row a metric, coloured by its
// verdict, naming its test and N (the same verdicts `pathscope compare` prints).
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "analysis/verdicts/compare.h"

namespace pathscope::gui {

class VerdictTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Group, Metric, Unit, Base, Cand, Difference, Change, Verdict, Test, N, ColumnCount };
    explicit VerdictTableModel(QObject* parent = nullptr);
    void set_verdicts(std::vector<analysis::Verdict> v);
    const analysis::Verdict* verdict(int row) const;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    std::vector<analysis::Verdict> verdicts_;
};

}  // namespace pathscope::gui
