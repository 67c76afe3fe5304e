#include "gui/models/caller_callee_model.h"
#include "gui/display_text.h"

namespace pathscope::gui {

CallerCalleeModel::CallerCalleeModel(QObject* parent) : QAbstractTableModel(parent) {}

void CallerCalleeModel::set_functions(std::shared_ptr<const analysis::CallerCallee> functions) {
    beginResetModel();
    cc_ = std::move(functions);
    cells_.reset();
    if (cc_) cells_.emplace(cc_->columns(), true);
    endResetModel();
}

int CallerCalleeModel::row_of(uint32_t name_id) const {
    if (!cc_) return -1;
    const auto& f = cc_->functions();
    for (size_t r = 0; r < f.size(); ++r)
        if (f[r] == name_id) return static_cast<int>(r);
    return -1;
}

int CallerCalleeModel::rowCount(const QModelIndex& parent) const {
    return cc_ && !parent.isValid() ? static_cast<int>(cc_->functions().size()) : 0;
}

int CallerCalleeModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : 1 + (cells_ ? cells_->count() : 0);
}

QVariant CallerCalleeModel::data(const QModelIndex& index, int role) const {
    if (!cc_ || !checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const uint32_t id = cc_->functions()[static_cast<size_t>(index.row())];
    if (role == NameIdRole) return static_cast<uint>(id);
    const double* self = cc_->self(id);
    const double* incl = cc_->inclusive(id);
    if (index.column() == 0) {
        if (role == Qt::DisplayRole || role == SortRole) return display_text(cc_->tree().name_of(id));
        if (role == Qt::ToolTipRole) return plain_tooltip(display_text(cc_->tree().name_of(id)));
        if (role == NoiseRole || role == Qt::ForegroundRole) return cells_->data(self, incl, 0, role);
        return {};
    }
    return cells_->data(self, incl, index.column() - 1, role);
}

QVariant CallerCalleeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (section == 0) return role == Qt::DisplayRole ? tr("Function") : QVariant();
    return cells_ ? cells_->header(section - 1, role) : QVariant();
}

CallLinksModel::CallLinksModel(Direction direction, QObject* parent)
    : QAbstractTableModel(parent), direction_(direction) {}

void CallLinksModel::set_function(std::shared_ptr<const analysis::CallerCallee> functions,
                                  int64_t name_id) {
    beginResetModel();
    cc_ = std::move(functions);
    function_ = cc_ ? name_id : -1;
    links_ = {};
    cells_.reset();
    if (cc_) {
        cells_.emplace(cc_->columns(), false, tr("Inclusive"));
        if (function_ >= 0) {
            auto n = cc_->neighbours(static_cast<uint32_t>(function_));
            links_ = direction_ == Direction::callers ? std::move(n.callers) : std::move(n.callees);
        }
    }
    endResetModel();
}

int CallLinksModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(links_.names.size());
}

int CallLinksModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : 1 + (cells_ ? cells_->count() : 0);
}

QVariant CallLinksModel::data(const QModelIndex& index, int role) const {
    if (!cc_ || !checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const size_t r = static_cast<size_t>(index.row());
    const uint32_t id = links_.names[r];
    if (role == NameIdRole) return static_cast<uint>(id);
    const double* cost = links_.cost(r, cc_->columns().width());
    if (index.column() == 0) {
        if (role == Qt::DisplayRole || role == SortRole) return display_text(cc_->tree().name_of(id));
        if (role == Qt::ToolTipRole) return plain_tooltip(display_text(cc_->tree().name_of(id)));
        if (role == NoiseRole || role == Qt::ForegroundRole) return cells_->data(cost, cost, 0, role);
        return {};
    }
    return cells_->data(cost, cost, index.column() - 1, role);
}

QVariant CallLinksModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (section == 0) {
        if (role == Qt::DisplayRole)
            return direction_ == Direction::callers ? tr("Caller") : tr("Callee");
        if (role == Qt::ToolTipRole)
            return direction_ == Direction::callers
                       ? tr("who called the selected function; cost: the function's own and its "
                            "callees', reached from this caller")
                       : tr("what the selected function called; cost: flowing into the callee "
                            "from it");
        return {};
    }
    return cells_ ? cells_->header(section - 1, role) : QVariant();
}

}  // namespace pathscope::gui
