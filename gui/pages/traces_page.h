// The sampled packet traces: a table (time, trial, port, length, outcome),
// filterable by outcome or drop reason, and for the selected packet a
// waterfall of its cycles at each stage and its decoded headers.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QWidget>
#include <memory>

#include "db/records.h"
#include "gui/models/trace_rows.h"

class QComboBox;
class QPlainTextEdit;
class QTableView;

namespace pathscope::gui {

class TraceTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Time, Trial, Port, Length, Cycles, Outcome, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    explicit TraceTableModel(QObject* parent = nullptr);
    /// Shows `rows`. When they extend the rows shown (the same run, more
    /// traces after them) the new ones are inserted and true is returned;
    /// otherwise the model resets and returns false.
    bool set_rows(std::shared_ptr<const TraceRows> rows);
    const TraceRows* rows() const { return rows_.get(); }
    const db::PacketTraceRow* trace(int row) const;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    std::shared_ptr<const TraceRows> rows_;
};

/// A packet's cycles at each stage as consecutive bars.
class Waterfall : public QWidget {
    Q_OBJECT
  public:
    explicit Waterfall(QWidget* parent = nullptr);
    void set_trace(const db::PacketTraceRow* t);
    QSize sizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* e) override;

  private:
    std::vector<std::pair<std::string, double>> stages_;
    QString outcome_;
};

class TracesPage : public QWidget {
    Q_OBJECT
  public:
    explicit TracesPage(QWidget* parent = nullptr);
    /// Shows the traces of a run (LoadedRun::traces). A live update of the
    /// run shown adds its new traces below the others: the outcome chosen,
    /// the sort, the selection and the scroll stay.
    void set_run(std::shared_ptr<const TraceRows> rows);
    /// Shows only the packets whose outcome holds `text` ("" shows all).
    void filter(const QString& text);
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* view() const { return view_; }
    QPlainTextEdit* headers() const { return headers_; }
    QComboBox* outcome() const { return outcome_; }
    TraceTableModel* model() const { return model_; }

  private:
    void selected();
    bool offer(const std::vector<std::string>& outcomes);
    TraceTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* view_;
    QComboBox* outcome_;
    Waterfall* waterfall_;
    QPlainTextEdit* headers_;
};

}  // namespace pathscope::gui
