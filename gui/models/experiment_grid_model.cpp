#include "gui/models/experiment_grid_model.h"

#include "analysis/figures/metric_names.h"
#include "gui/display_text.h"

#include <QColor>
#include <algorithm>

namespace pathscope::gui {

ExperimentGridModel::ExperimentGridModel(QObject* parent) : QAbstractTableModel(parent) {}

void ExperimentGridModel::set_comparison(std::shared_ptr<const analysis::ExperimentComparison> e) {
    beginResetModel();
    e_ = std::move(e);
    row_names_.clear();
    if (e_) {
        // A row's other settings told apart from the other rows' as the run
        // browser tells cells apart ("bind=false connect=true").
        auto as_cell = [](std::string others) {
            std::replace(others.begin(), others.end(), ' ', '\n');
            return others;
        };
        std::vector<std::string> all;
        for (const auto& row : e_->rows) all.push_back(as_cell(row.others));
        for (const auto& row : e_->rows) {
            const std::string s = analysis::cell_difference(as_cell(row.others), all);
            row_names_.push_back(display_text(s.empty() ? row.others : s));
        }
    }
    endResetModel();
}

size_t ExperimentGridModel::value_of(int column) const {
    return e_ && !e_->metrics.empty() ? 1 + static_cast<size_t>(column) / e_->metrics.size() : 0;
}

size_t ExperimentGridModel::metric_of(int column) const {
    return e_ && !e_->metrics.empty() ? static_cast<size_t>(column) % e_->metrics.size() : 0;
}

int ExperimentGridModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !e_ ? 0 : static_cast<int>(e_->rows.size());
}

int ExperimentGridModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid() || !e_ || e_->values.size() < 2) return 0;
    return static_cast<int>((e_->values.size() - 1) * e_->metrics.size());
}

const analysis::Verdict* ExperimentGridModel::verdict(const QModelIndex& index) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return nullptr;
    const auto& row = e_->rows[static_cast<size_t>(index.row())];
    return &row.verdicts[metric_of(index.column())][value_of(index.column()) - 1];
}

QVariant ExperimentGridModel::data(const QModelIndex& index, int role) const {
    const analysis::Verdict* v = verdict(index);
    if (!v) return {};
    const auto& row = e_->rows[static_cast<size_t>(index.row())];
    const size_t value = value_of(index.column());
    const std::string outcome = analysis::verdict_text(*v);
    switch (role) {
        case Qt::DisplayRole:
            return QStringLiteral("%1  %2")
                .arg(display_text(analysis::format_change(*v)),
                     display_text(outcome));
        case VerdictRole: return display_text(outcome);
        case ChangeRole: return v->percent;
        case HalfWidthRole: return v->percent_half_width;
        case BaseRunRole: return QVariant::fromValue<qlonglong>(row.run_ids[0]);
        case CandRunRole: return QVariant::fromValue<qlonglong>(row.run_ids[value]);
        case Qt::BackgroundRole:
            // The compare page's verdict colours, a shade stronger to read across a grid; grey: within noise.
            if (outcome == analysis::kBetter) return QColor(0xc8, 0xea, 0xc8);
            if (outcome == analysis::kWorse) return QColor(0xf6, 0xc8, 0xc8);
            if (outcome == analysis::kNoDifference) return QColor(0xe4, 0xe4, 0xe4);
            if (outcome == analysis::kUnreliable) return QColor(0xfb, 0xe6, 0xa8);
            return {};
        case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::AlignCenter);
        case Qt::ToolTipRole: {
            const auto& m = e_->metrics[metric_of(index.column())];
            const auto& unit = e_->units[metric_of(index.column())];
            return plain_tooltip(QStringLiteral("%1 (%2): %3=%4 mean %5 (n %6, run %7) against %3=%8 mean %9 "
                                  "(n %10, run %11)\n%12, interval at %13% confidence: %14%15\n"
                                  "click to compare the two runs")
                .arg(display_text(m), display_text(unit),
                     display_text(e_->by), display_text(e_->values[value]))
                .arg(v->cand_summary.mean, 0, 'g', 5)
                .arg(v->cand_summary.n)
                .arg(row.run_ids[value])
                .arg(display_text(e_->values[0]))
                .arg(v->base_summary.mean, 0, 'g', 5)
                .arg(v->base_summary.n)
                .arg(row.run_ids[0])
                .arg(display_text(v->test.empty() ? "no test" : v->test))
                .arg(v->confidence, 0, 'f', 2)
                .arg(display_text(outcome))
                .arg(v->unreliable.empty() ? QString() : "\n" + display_text(v->unreliable)));
        }
    }
    return {};
}

QVariant ExperimentGridModel::headerData(int section, Qt::Orientation o, int role) const {
    if (!e_ || (role != Qt::DisplayRole && role != Qt::ToolTipRole)) return {};
    if (o == Qt::Vertical) {
        if (section < 0 || section >= rowCount()) return {};
        const auto& others = e_->rows[static_cast<size_t>(section)].others;
        return role == Qt::ToolTipRole ? plain_tooltip(display_text(others))
                                       : row_names_[static_cast<size_t>(section)];
    }
    if (section < 0 || section >= columnCount()) return {};
    const size_t v = value_of(section), m = metric_of(section);
    const QString text = QStringLiteral("%1=%2 vs %3\n%4 (%5)")
                             .arg(display_text(e_->by), display_text(e_->values[v]),
                                  display_text(e_->values[0]), display_text(e_->metrics[m]),
                                  display_text(e_->units[m]));
    return role == Qt::ToolTipRole ? plain_tooltip(text) : text;
}

}  // namespace pathscope::gui
