// The run browser's model: one row a stored run (id, label, cell,
// experiment, status, trials, kind, started, host, settings). Plain values
// from db::list_runs; sorting and filtering are RunFilterProxy's.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <string>
#include <vector>

#include "db/records.h"

namespace pathscope::gui {

/// One experiment of the store: its id, the scenario file's name and its
/// cells (RunInfo::cell), oldest run first.
struct ExperimentEntry {
    QString id;
    QString scenario;
    std::vector<std::string> cells;
    bool operator==(const ExperimentEntry&) const = default;
};

class RunListModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Id,
        Label,
        Cell,        ///< what tells the cell from its experiment's others: "bind=true cache=on"
        Experiment,  ///< a matrix's id: filter by it to see its cells, select two to compare
        Status,
        Trials,
        Kind,
        Started,
        Host,
        Settings,
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
    /// The store's experiments, in the order of their first runs.
    const std::vector<ExperimentEntry>& experiments() const { return experiments_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    std::vector<db::RunInfo> runs_;
    std::vector<int> recorded_;
    std::vector<std::string> cells_;  ///< each run's cell_difference ("" outside experiments)
    std::vector<ExperimentEntry> experiments_;
};

/// The run browser's filter: the text filter over every column, and one
/// experiment's cells only when an experiment is chosen.
class RunFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    /// "" shows every run.
    void set_experiment(const QString& experiment);
    const QString& experiment() const { return experiment_; }

  protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

  private:
    QString experiment_;
};

}  // namespace pathscope::gui
