#include "gui/models/cost_cells.h"
#include "gui/display_text.h"

#include <QBrush>
#include <QColor>
#include <QLocale>
#include <QObject>
#include <cmath>

namespace pathscope::gui {

namespace {

enum class Kind { samples, share, base, cand, change };
struct Column {
    bool self;  ///< the self vector, else the (inclusive) cost
    Kind kind;
};

Column column_at(bool comparison, bool both, int k) {
    static const Kind run[] = {Kind::samples, Kind::share};
    static const Kind pair[] = {Kind::base, Kind::cand, Kind::change};
    if (!comparison) return {both && k < 2, run[k % 2]};
    if (!both) return {false, pair[k]};
    // self base, self cand, inclusive base, inclusive cand, inclusive change
    return k < 2 ? Column{true, pair[k]} : Column{false, pair[k - 2]};
}

}  // namespace

CostCells::CostCells(const analysis::CostColumns& c, bool self_and_inclusive, QString label)
    : c_(&c), both_(self_and_inclusive), label_(std::move(label)) {}

int CostCells::count() const {
    if (c_->comparison()) return both_ ? 5 : 3;
    return both_ ? 4 : 2;
}

QVariant CostCells::header(int column, int role) const {
    if (column < 0 || column >= count()) return {};
    const Column col = column_at(c_->comparison(), both_, column);
    const QString what = both_ ? (col.self ? QObject::tr("Self") : QObject::tr("Inclusive")) : label_;
    const QString unit = display_text(c_->unit());
    if (role == Qt::DisplayRole && !both_ && c_->comparison()) {
        // One cost beside the symbol: short headers leave the names room.
        switch (col.kind) {
            case Kind::base: return QObject::tr("Base (%)");
            case Kind::cand: return QObject::tr("Cand. (%)");
            default: return QObject::tr("Change (pp)");
        }
    }
    if (role == Qt::DisplayRole) {
        switch (col.kind) {
            case Kind::samples: return QStringLiteral("%1 (%2)").arg(what, unit);
            case Kind::share: return QStringLiteral("%1 (%)").arg(what);
            case Kind::base: return QObject::tr("%1 base (%)").arg(what);
            case Kind::cand: return QObject::tr("%1 cand. (%)").arg(what);
            case Kind::change: return QObject::tr("%1 change (pp)").arg(what);
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (col.kind) {
            case Kind::samples: return QObject::tr("%1 over all trials").arg(unit);
            case Kind::share:
                return QObject::tr("share of all %1: the run's figure, as the flame graph shows it").arg(unit);
            case Kind::base: return QObject::tr("%1: share of the base run's %2").arg(what, unit);
            case Kind::cand: return QObject::tr("%1: share of the candidate run's %2").arg(what, unit);
            case Kind::change:
                return QObject::tr("%1: candidate minus base, in percentage points; grey: %2")
                    .arg(what, display_text(c_->noise_method()));
        }
    }
    return {};
}

QVariant CostCells::data(const double* self, const double* cost, int column, int role) const {
    if (column < 0 || column >= count()) return {};
    const Column col = column_at(c_->comparison(), both_, column);
    const double* v = col.self ? self : cost;
    double x = 0;
    switch (col.kind) {
        case Kind::samples: x = c_->samples(v, 0); break;
        case Kind::share: x = c_->share(v, 0) * 100; break;
        case Kind::base: x = c_->share(v, 0) * 100; break;
        case Kind::cand: x = c_->share(v, 1) * 100; break;
        case Kind::change: x = (c_->share(v, 1) - c_->share(v, 0)) * 100; break;
    }
    switch (role) {
        case SortRole: return x;
        case NoiseRole: return c_->within_noise(cost);
        case Qt::TextAlignmentRole: return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::DisplayRole:
            if (col.kind == Kind::samples)
                return QLocale().toString(x, 'f', x == std::floor(x) ? 0 : 1);
            if (col.kind == Kind::change) return QStringLiteral("%1%2").arg(x > 0 ? "+" : "").arg(x, 0, 'f', 2);
            return QString::number(x, 'f', 2);
        case Qt::ForegroundRole:
            if (!c_->comparison()) return {};
            if (c_->within_noise(cost)) return QBrush(QColor(0x90, 0x90, 0x90));
            if (col.kind == Kind::change) return QBrush(x > 0 ? QColor(0xc0, 0x30, 0x20) : QColor(0x20, 0x50, 0xc0));
            return {};
        case Qt::ToolTipRole:
            if (!c_->comparison()) return {};
            return c_->within_noise(cost) ? display_text(c_->noise_method())
                                          : QObject::tr("a real change (not within noise)");
        default: return {};
    }
}

}  // namespace pathscope::gui
