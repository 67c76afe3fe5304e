#include "gui/models/name_filter_proxy.h"

#include "gui/models/cost_cells.h"

namespace pathscope::gui {

NameFilterProxy::NameFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(SortRole);
    setRecursiveFilteringEnabled(true);
    setAutoAcceptChildRows(true);
    setSortCaseSensitivity(Qt::CaseInsensitive);
}

void NameFilterProxy::set_matches(std::vector<bool> matches) {
    matches_ = std::move(matches);
    invalidateRowsFilter();
}

bool NameFilterProxy::filterAcceptsRow(int row, const QModelIndex& parent) const {
    if (matches_.empty()) return true;
    const QVariant id = sourceModel()->index(row, 0, parent).data(NameIdRole);
    const uint k = id.toUInt();
    return id.isValid() && k < matches_.size() && matches_[k];
}

}  // namespace pathscope::gui
