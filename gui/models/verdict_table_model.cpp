#include "gui/models/verdict_table_model.h"
#include "gui/display_text.h"

#include <QColor>

namespace pathscope::gui {

VerdictTableModel::VerdictTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void VerdictTableModel::set_verdicts(std::vector<analysis::Verdict> v) {
    beginResetModel();
    verdicts_ = std::move(v);
    endResetModel();
}

const analysis::Verdict* VerdictTableModel::verdict(int row) const {
    return row >= 0 && static_cast<size_t>(row) < verdicts_.size() ? &verdicts_[static_cast<size_t>(row)]
                                                                   : nullptr;
}

int VerdictTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(verdicts_.size());
}

int VerdictTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant VerdictTableModel::data(const QModelIndex& index, int role) const {
    const analysis::Verdict* v = index.isValid() ? verdict(index.row()) : nullptr;
    if (!v) return {};
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Group: return display_text(v->base.group);
            case Metric: return display_text(v->base.name);
            case Unit: return display_text(v->base.unit);
            case Base: return QString::number(v->base_summary.mean, 'g', 5);
            case Cand: return QString::number(v->cand_summary.mean, 'g', 5);
            case Difference: return display_text(analysis::format_difference(*v));
            case Change: return display_text(analysis::format_change(*v));
            case Verdict: return display_text(v->outcome);
            case Test: return display_text(v->test);
            case N:
                return QStringLiteral("%1 vs %2").arg(v->base.values.size()).arg(v->cand.values.size());
        }
    }
    if (role == Qt::BackgroundRole) {
        if (v->outcome == "better") return QColor(0xe0, 0xf4, 0xe0);
        if (v->outcome == "worse") return QColor(0xfb, 0xe3, 0xe3);
        if (v->outcome == "no test") return QColor(0xf2, 0xf2, 0xf2);
        return {};
    }
    if (role == Qt::ToolTipRole) {
        QString tip = display_text(v->test + " at the chosen confidence; " + v->outcome);
        if (!v->warning.empty()) tip += "\n" + display_text(v->warning);
        if (!v->note.empty()) tip += "\n" + display_text(v->note);
        return plain_tooltip(tip);
    }
    if (role == Qt::TextAlignmentRole && (index.column() == Base || index.column() == Cand))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant VerdictTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"group",  "metric",     "unit",    "base (mean)",
                                  "cand (mean)", "difference", "change", "verdict",
                                  "test", "N"};
    return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

}  // namespace pathscope::gui
