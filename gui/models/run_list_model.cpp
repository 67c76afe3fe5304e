#include "gui/models/run_list_model.h"
#include "gui/display_text.h"

#include <QColor>
#include <algorithm>

#include <filesystem>
#include <map>

#include "analysis/verdicts/experiment.h"
#include "db/queries.h"

namespace pathscope::gui {

RunListModel::RunListModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunListModel::set_runs(std::vector<db::RunInfo> runs, std::vector<int> trials_recorded) {
    beginResetModel();
    runs_ = std::move(runs);
    recorded_ = std::move(trials_recorded);
    recorded_.resize(runs_.size(), 0);
    experiments_.clear();
    std::map<std::string, size_t> at;  // experiment id to its entry
    for (const auto& r : runs_) {
        if (r.experiment.empty()) continue;
        if (!at.count(r.experiment)) {
            at[r.experiment] = experiments_.size();
            experiments_.push_back(
                {display_text(r.experiment),
                 display_text(std::filesystem::path(r.scenario_path).filename().string()),
                 {}});
        }
        experiments_[at[r.experiment]].cells.push_back(r.cell);
    }
    cells_.clear();
    for (const auto& r : runs_)
        cells_.push_back(r.experiment.empty()
                             ? std::string()
                             : analysis::cell_difference(r.cell, experiments_[at[r.experiment]].cells));
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
    try {
        return static_cast<int>(db::pick_run(runs_, db::parse_run_ref(ref.toStdString())));
    } catch (const std::exception&) {  // label@0
        return -1;
    }
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
            case Label: return display_text(r.label);
            case Status: return display_text(r.status);
            case Kind: return display_text(r.kind);
            case Trials:  // an import ran no trials: "-", as pathscope list shows it
                if (!db::runs_trials(r.kind)) return QStringLiteral("-");
                return QStringLiteral("%1/%2").arg(recorded).arg(r.trials);
            case Started: return display_text(r.started_at);
            case Host: return display_text(r.host);
            case Settings: return display_text(one_line(r.settings));
            case Experiment: return display_text(r.experiment);
            case Cell: return display_text(cells_[static_cast<size_t>(index.row())]);
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
            // The whole of what the column shortens.
            if (index.column() == Cell && !r.cell.empty())
                return plain_tooltip(display_text(one_line(r.cell)));
            if (index.column() == Label) return plain_tooltip(display_text(r.label));
            return plain_tooltip(display_text(r.note.empty() ? r.scenario_path : r.note));
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
    static const char* names[] = {"id",     "label", "cell",          "experiment", "status",
                                  "trials", "kind",  "started (UTC)", "host",       "settings"};
    return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

void RunFilterProxy::set_experiment(const QString& experiment) {
    experiment_ = experiment;
    invalidateFilter();
}

bool RunFilterProxy::filterAcceptsRow(int row, const QModelIndex& parent) const {
    if (!experiment_.isEmpty() &&
        sourceModel()->index(row, RunListModel::Experiment, parent).data().toString() != experiment_)
        return false;
    return QSortFilterProxyModel::filterAcceptsRow(row, parent);
}

}  // namespace pathscope::gui
