// The Stages page's model: the rows of analysis::RunSummary (the same numbers
// `pathscope show` prints), in graph order, with "all stages" last.
#pragma once

#include <QAbstractTableModel>

#include "analysis/figures/run_summary.h"

namespace pathscope::gui {

class StageTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Stage,
        BusyCalls,
        Packets,
        PacketsPerCall,
        CyclesPerCall,
        CyclesPerPacket,
        CyclesPerPathPacket,  ///< "cyc/rx pkt", or "cyc/tx pkt" for a run that only sent
        IdleShare,
        Drops,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;
    /// 0..1 of the column's largest value, for the in-cell bars.
    static constexpr int BarRole = Qt::UserRole + 2;

    explicit StageTableModel(QObject* parent = nullptr);
    void set_summary(const analysis::RunSummary& summary);
    /// A run of several workers: under each stage, a row per worker (the
    /// summary's worker_stages), named "  worker N". (Under eth_rx, a row per
    /// receive queue is always there when there are several: rx_queues.)
    void set_worker_rows(bool on);
    bool worker_rows() const { return worker_rows_; }
    /// The stage on `row` ("" for the "all stages" row); a worker row's stage.
    QString stage(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    double number(const analysis::StageLine& s, int column) const;
    std::vector<analysis::StageLine> rows_;  ///< stages, then "all stages"
    std::vector<std::string> stage_of_;      ///< each row's stage (a worker row's too)
    std::vector<int> worker_of_;             ///< each row's worker, or kStageRow / kQueueRow
    static constexpr int kStageRow = -1;     ///< a stage (or "all stages")
    static constexpr int kQueueRow = -2;     ///< a receive queue's share of eth_rx
    analysis::RunSummary summary_;           ///< what the rows come from
    bool worker_rows_ = false;
    std::vector<double> column_max_;
    bool idle_measured_ = false;
    /// A Linux run: calls are samples; packets and per-call figures absent.
    bool sampled_ = false;
    analysis::PacketBasis basis_;  ///< what the per-path-packet column counts
};

}  // namespace pathscope::gui

#include <QSortFilterProxyModel>

namespace pathscope::gui {

/// Sorts the stage table by any column, numbers as numbers, and keeps the
/// "all stages" row last in either order.
class StageSortProxy : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit StageSortProxy(QObject* parent = nullptr);

  protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

}  // namespace pathscope::gui
