#include "gui/models/verdict_table_model.h"
#include "gui/display_text.h"

#include <QColor>

#include "analysis/figures/metric_names.h"

namespace pathscope::gui {

namespace {

/// How the verdict was made: its test, its interval's level, its family.
std::string fmt_tip(const analysis::Verdict& v) {
    std::string tip = v.test + ", interval at " + QString::number(v.confidence, 'f', 2).toStdString() +
                      "% confidence";
    if (v.family > 1)
        tip += " (Benjamini-Hochberg over " + std::to_string(v.family) + " verdicts, adjusted p " +
               QString::number(v.q, 'g', 3).toStdString() + ")";
    return tip + ": " + analysis::verdict_word(v);
}

}  // namespace

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
            case Verdict: return display_text(analysis::verdict_word(*v));
            // Wilcoxon's name whole is in the tooltip: the short one keeps N in view.
            case Test: return display_text(v->test == analysis::kSignedRank ? "signed-rank" : v->test);
            case N:
                // Paired: the blocks both runs have; else each side's trials with a value.
                return v->pairs ? QStringLiteral("%1 blocks").arg(v->pairs)
                                : QStringLiteral("%1 vs %2")
                                      .arg(v->base_summary.n)
                                      .arg(v->cand_summary.n);
        }
    }
    if (role == Qt::BackgroundRole) {
        if (v->outcome == analysis::kBetter) return QColor(0xe0, 0xf4, 0xe0);
        if (v->outcome == analysis::kWorse) return QColor(0xfb, 0xe3, 0xe3);
        if (v->outcome == analysis::kUnreliable) return QColor(0xfd, 0xf0, 0xc8);
        if (v->outcome == analysis::kTooFewTrials) return QColor(0xf2, 0xf2, 0xf2);
        return {};
    }
    if (role == Qt::ToolTipRole) {
        QString tip = display_text(fmt_tip(*v));
        if (!v->unreliable.empty()) tip += "\nunreliable: " + display_text(v->unreliable);
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
