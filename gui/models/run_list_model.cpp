#include "gui/models/run_list_model.h"

#include <QColor>
#include <algorithm>

namespace pathscope::gui {

RunListModel::RunListModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunListModel::set_runs(std::vector<db::RunInfo> runs, std::vector<int> trials_recorded) {
    beginResetModel();
    runs_ = std::move(runs);
    recorded_ = std::move(trials_recorded);
    recorded_.resize(runs_.size(), 0);
    endResetModel();
}

void RunListModel::update_runs(std::vector<db::RunInfo> runs, std::vector<int> trials_recorded) {
    trials_recorded.resize(runs.size(), 0);
    std::vector<size_t> fresh;
    for (size_t i = 0; i < runs.size(); ++i) {
        // Runs are listed by id, oldest first: a known one is found by search.
        const auto at = std::lower_bound(
            runs_.begin(), runs_.end(), runs[i].id,
            [](const db::RunInfo& r, int64_t id) { return r.id < id; });
        if (at == runs_.end() || at->id != runs[i].id) {
            fresh.push_back(i);
            continue;
        }
        const int row = static_cast<int>(at - runs_.begin());
        *at = std::move(runs[i]);
        recorded_[static_cast<size_t>(row)] = trials_recorded[i];
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
    if (fresh.empty()) return;
    const int first = rowCount();
    beginInsertRows({}, first, first + static_cast<int>(fresh.size()) - 1);
    for (size_t i : fresh) {
        runs_.push_back(std::move(runs[i]));
        recorded_.push_back(trials_recorded[i]);
    }
    endInsertRows();
}

const db::RunInfo* RunListModel::run(int row) const {
    return row >= 0 && static_cast<size_t>(row) < runs_.size() ? &runs_[static_cast<size_t>(row)]
                                                                : nullptr;
}

int RunListModel::row_of(const QString& ref) const {
    QString label = ref;
    int nth = 0;
    if (const int at = static_cast<int>(ref.lastIndexOf('@')); at > 0) {
        bool ok = false;
        nth = ref.mid(at + 1).toInt(&ok);
        if (ok && nth > 0) label = ref.left(at);
        else nth = 0;
    }
    int latest = -1, seen = 0;
    for (int row = 0; row < rowCount(); ++row) {  // oldest first
        const db::RunInfo& r = runs_[static_cast<size_t>(row)];
        if (nth == 0 && QString::number(r.id) == ref) return row;
        if (QString::fromStdString(r.label) != label) continue;
        if (++seen == nth) return row;
        latest = row;
    }
    return nth ? -1 : latest;
}

int RunListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const db::RunInfo& r = runs_[static_cast<size_t>(index.row())];
    const int recorded = recorded_[static_cast<size_t>(index.row())];
    const auto text = [&]() -> QVariant {
        switch (index.column()) {
            case Id: return QVariant::fromValue<qlonglong>(r.id);
            case Label: return QString::fromStdString(r.label);
            case Status: return QString::fromStdString(r.status);
            case Kind: return QString::fromStdString(r.kind);
            case Trials: return QStringLiteral("%1/%2").arg(recorded).arg(r.trials);
            case Started: return QString::fromStdString(r.started_at);
            case Host: return QString::fromStdString(r.host);
            case Settings: return QString::fromStdString(r.settings).replace('\n', ' ');
            case Experiment: return QString::fromStdString(r.experiment);
            case Cell: return QString::fromStdString(r.cell).replace('\n', ' ');
        }
        return {};
    };
    switch (role) {
        case Qt::DisplayRole:
            return text();
        case SortRole:
            if (index.column() == Id) return QVariant::fromValue<qlonglong>(r.id);
            if (index.column() == Trials) return recorded;
            return text();
        case Qt::ToolTipRole:
            return QString::fromStdString(r.note.empty() ? r.scenario_path : r.note);
        case Qt::ForegroundRole:
            if (index.column() == Status && r.status == "aborted") return QColor(0xb0, 0x30, 0x20);
            if (index.column() == Status && r.status == "running") return QColor(0x20, 0x70, 0xb0);
            return {};
        case Qt::TextAlignmentRole:
            if (index.column() == Id || index.column() == Trials)
                return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
            return {};
    }
    return {};
}

QVariant RunListModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"id", "label", "status", "kind", "trials", "started (UTC)",
                                  "host", "settings", "experiment", "cell"};
    return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

}  // namespace pathscope::gui
