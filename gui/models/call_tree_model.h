// A top-down or bottom-up call tree (analysis::CallTree) as a Qt tree model:
// the symbol, then the cost columns (CostCells): self and inclusive for
// top-down, the sampled function's own cost for bottom-up; base, candidate
// and change in a comparison. An index's internal id is its tree node, so
// children are reached only when a view asks for them.
#pragma once

#include <QAbstractItemModel>
#include <memory>
#include <optional>

#include "analysis/trees/call_tree.h"
#include "gui/models/cost_cells.h"

namespace pathscope::gui {

class CallTreeModel : public QAbstractItemModel {
    Q_OBJECT
  public:
    explicit CallTreeModel(QObject* parent = nullptr);
    void set_tree(std::shared_ptr<const analysis::CallTree> tree);
    const analysis::CallTree* tree() const { return tree_.get(); }
    /// The tree node of an index (0, the root, for an invalid one).
    static size_t node_of(const QModelIndex& index);
    QModelIndex index_of(size_t node, int column = 0) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    std::shared_ptr<const analysis::CallTree> tree_;
    std::optional<CostCells> cells_;
};

}  // namespace pathscope::gui
