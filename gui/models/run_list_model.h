// The run browser's model: one row a stored run (id, label, status, kind,
// trials, started, host, settings, experiment and cell). Plain values from db::list_runs; sorting
// and filtering are a QSortFilterProxyModel's.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "db/records.h"

namespace pathscope::gui {

class RunListModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Id,
        Label,
        Status,
        Kind,
        Trials,
        Started,
        Host,
        Settings,
        Experiment,  ///< a matrix's id: filter by it to see its cells, select two to compare
        Cell,        ///< the cell's settings
        ColumnCount
    };
    /// Sort key for every column (numbers sort as numbers).
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit RunListModel(QObject* parent = nullptr);
    void set_runs(std::vector<db::RunInfo> runs, std::vector<int> trials_recorded);
    /// A live view's news: runs already listed change in place (their
    /// status, trials), new ones are appended; never a reset.
    void update_runs(std::vector<db::RunInfo> runs, std::vector<int> trials_recorded);
    const db::RunInfo* run(int row) const;
    /// The row of the run `ref` names as the CLI does: an id, a label (its
    /// latest run) or label@N (the N-th, oldest first); -1 for none.
    int row_of(const QString& ref) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    std::vector<db::RunInfo> runs_;
    std::vector<int> recorded_;
};

}  // namespace pathscope::gui
