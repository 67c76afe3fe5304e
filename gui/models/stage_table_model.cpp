#include "gui/models/stage_table_model.h"
#include "gui/display_text.h"

#include <QFont>
#include <algorithm>
#include <cmath>

namespace pathscope::gui {

StageTableModel::StageTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void StageTableModel::set_worker_rows(bool on) {
    if (on == worker_rows_) return;
    worker_rows_ = on;
    set_summary(analysis::RunSummary(summary_));
}

void StageTableModel::set_summary(const analysis::RunSummary& summary) {
    std::vector<analysis::StageLine> rows;
    std::vector<std::string> stage_of;
    std::vector<int> worker_of;
    for (const auto& st : summary.stages) {
        rows.push_back(st);
        stage_of.push_back(st.name);
        worker_of.push_back(kStageRow);
        if (st.name == "eth_rx")
            for (const auto& q : summary.rx_queues) {  // each receive queue's share
                rows.push_back(q);
                rows.back().name = "  " + q.name;
                stage_of.push_back(st.name);
                worker_of.push_back(kQueueRow);
            }
        if (!worker_rows_) continue;
        for (const auto& w : summary.worker_stages)
            for (const auto& ws : w.stages)
                if (ws.name == st.name) {
                    rows.push_back(ws);
                    rows.back().name = "  worker " + std::to_string(w.worker);
                    stage_of.push_back(st.name);
                    worker_of.push_back(w.worker);
                }
    }
    if (!rows.empty()) {
        rows.push_back(summary.all);
        stage_of.push_back("");
        worker_of.push_back(kStageRow);
    }
    summary_ = summary;
    stage_of_ = std::move(stage_of);
    worker_of_ = std::move(worker_of);
    // The same stages with new figures (a live run's next interval): the
    // cells change in place, the view keeps its sort, selection and scroll.
    const bool same_rows =
        rows.size() == rows_.size() && !rows.empty() &&
        std::equal(rows.begin(), rows.end(), rows_.begin(),
                   [](const auto& a, const auto& b) { return a.name == b.name; });
    if (!same_rows) beginResetModel();
    rows_ = std::move(rows);
    idle_measured_ = summary.worker.measured;
    const bool same_header = basis_.unit == summary.basis.unit && sampled_ == summary.sampled;
    sampled_ = summary.sampled;
    basis_ = summary.basis;
    column_max_.assign(ColumnCount, 0.0);
    for (size_t r = 0; r + 1 < rows_.size(); ++r)
        for (int c = BusyCalls; c < ColumnCount && worker_of_[r] == kStageRow; ++c)
            column_max_[c] = std::max(column_max_[c], number(rows_[r], c));
    if (!same_rows) {
        endResetModel();
        return;
    }
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    if (!same_header) emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

QString StageTableModel::stage(int row) const {
    if (row < 0 || static_cast<size_t>(row) + 1 >= rows_.size()) return {};
    return display_text(stage_of_[static_cast<size_t>(row)]);
}

int StageTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int StageTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

double StageTableModel::number(const analysis::StageLine& s, int column) const {
    switch (column) {
        case BusyCalls: return static_cast<double>(s.busy_calls());
        case Packets: return static_cast<double>(s.packets);
        case PacketsPerCall: return s.packets_per_call;
        case CyclesPerCall: return s.cycles_per_call;
        case CyclesPerPacket: return s.cycles_per_packet;
        case CyclesPerPathPacket: return s.cycles_per_path_packet;
        case IdleShare: return 100 * s.idle_share;
        case Drops: return static_cast<double>(s.drops);
    }
    return 0;
}

QVariant StageTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const analysis::StageLine& s = rows_[static_cast<size_t>(index.row())];
    const bool total = static_cast<size_t>(index.row()) + 1 == rows_.size();
    const int c = index.column();
    if (role == Qt::DisplayRole) {
        if (c == Stage) return display_text(s.name);
        // The total row shows only what adds up.
        if (total && c != Packets && c != CyclesPerPathPacket && c != Drops && c != IdleShare)
            return QString();
        if (c == IdleShare && !idle_measured_) return QStringLiteral("-");
        // The kernel does not count a stage's packets or calls: absent, not 0.
        if (sampled_ && (c == Packets || c == PacketsPerCall || c == CyclesPerCall || c == CyclesPerPacket))
            return QStringLiteral("-");
        if (sampled_ && c == CyclesPerPathPacket && !std::isnan(s.sampling_error))
            return QString::number(s.cycles_per_path_packet, 'f', 1) + QStringLiteral(" \u00b1 ") +
                   QString::number(s.sampling_error, 'f', 1);
        // Drops by reason are the engine's, not a worker's or a queue's.
        if (c == Drops && worker_of_[static_cast<size_t>(index.row())] != kStageRow)
            return QStringLiteral("-");
        const double v = number(s, c);
        switch (c) {
            case BusyCalls:
            case Packets:
            case Drops: return QString::number(static_cast<qulonglong>(v));
            case PacketsPerCall: return QString::number(v, 'f', 2);
            case IdleShare: return QString::number(v, 'f', 1) + " %";
            default: return QString::number(v, 'f', 1);
        }
    }
    if (role == SortRole) {
        // "all stages" sorts last whichever way: the proxy keeps it there.
        // A worker row sorts by name just under its stage.
        if (c == Stage) {
            const size_t r = static_cast<size_t>(index.row());
            return display_text(worker_of_[r] == kStageRow ? s.name
                                                                     : stage_of_[r] + '\x01' + s.name);
        }
        return number(s, c);
    }
    const bool absent = sampled_ && (c == Packets || c == PacketsPerCall || c == CyclesPerCall ||
                                     c == CyclesPerPacket);
    if (role == BarRole && c != Stage && !total && !absent &&
        worker_of_[static_cast<size_t>(index.row())] == kStageRow) {
        const double m = column_max_[static_cast<size_t>(c)];
        return m > 0 ? number(s, c) / m : 0.0;
    }
    if (role == Qt::TextAlignmentRole && c != Stage)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::FontRole && total) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ToolTipRole && c == CyclesPerPathPacket)
        return QStringLiteral("busy cycles over all %1: the rows add up to \"all stages\"")
            .arg(basis_.transmit ? "datagrams sockets sent" : "received packets");
    return {};
}

QVariant StageTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    // The per-path-packet column is named by the run's basis (metric_names.h):
    // cyc/rx pkt, or cyc/tx pkt for a run that only sent.
    static const char* names[] = {"stage",      "busy calls", "packets",    "pkts/call", "cycles/call",
                                  "cycles/pkt", nullptr,      "idle",       "drops"};
    static const char* tips[] = {
        "the graph node",
        "calls that handled at least one packet",
        "packets the stage handled",
        "packets per busy call",
        "TSC cycles per busy call",
        "busy cycles over the stage's own packets",
        "busy cycles over the received packets, per trial, averaged (these add up)",
        "share of the stage's cycles spent polling empty queues",
        "packets dropped at this stage"};
    if (section < 0 || section >= ColumnCount) return {};
    if (section == CyclesPerPathPacket && basis_.transmit && role == Qt::ToolTipRole)
        return QStringLiteral("busy cycles over the datagrams sockets sent (these add up)");
    if (sampled_ && section == BusyCalls)
        return role == Qt::DisplayRole ? QStringLiteral("samples")
               : role == Qt::ToolTipRole
                   ? QStringLiteral("cpu-clock samples of the stage: a Linux run's stages are sampled "
                                    "CPU time (its cycles: samples x the period)")
                   : QVariant();
    if (sampled_ && section == CyclesPerPathPacket && role == Qt::ToolTipRole)
        return QStringLiteral("sampled CPU cycles over the path's packets, per trial, averaged, "
                              "\u00b1 one sampling standard error (these add up)");
    if (role == Qt::DisplayRole)
        return QString(section == CyclesPerPathPacket ? basis_.unit : names[section]);
    if (role == Qt::ToolTipRole) return QString(tips[section]);
    return {};
}

}  // namespace pathscope::gui

namespace pathscope::gui {

StageSortProxy::StageSortProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(StageTableModel::SortRole);
}

bool StageSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const int last = sourceModel()->rowCount() - 1;
    if (left.row() == last || right.row() == last) {
        // Qt swaps the arguments for a descending sort; the total stays last.
        const bool left_is_total = left.row() == last;
        return sortOrder() == Qt::AscendingOrder ? !left_is_total : left_is_total;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

}  // namespace pathscope::gui
