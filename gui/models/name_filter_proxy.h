// Sorting and search for the stack views: sorts by SortRole (numbers for
// costs, names for symbols) and keeps the rows whose function matches
// (analysis::CallTree::match_names, the flame graph's search), with their
// ancestors, so that a match deep in a tree shows where it is called from,
// and their subtrees.
#pragma once

#include <QSortFilterProxyModel>
#include <vector>

namespace pathscope::gui {

class NameFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit NameFilterProxy(QObject* parent = nullptr);
    /// By name id; empty: every row.
    void set_matches(std::vector<bool> matches);

  protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

  private:
    std::vector<bool> matches_;
};

}  // namespace pathscope::gui
