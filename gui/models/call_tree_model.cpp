#include "gui/models/call_tree_model.h"
#include "gui/display_text.h"

namespace pathscope::gui {

CallTreeModel::CallTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void CallTreeModel::set_tree(std::shared_ptr<const analysis::CallTree> tree) {
    beginResetModel();
    tree_ = std::move(tree);
    cells_.reset();
    if (tree_) {
        const bool top_down = tree_->kind() == analysis::CallTree::Kind::top_down;
        cells_.emplace(tree_->columns(), top_down, tr("Self"));
    }
    endResetModel();
}

size_t CallTreeModel::node_of(const QModelIndex& index) {
    return index.isValid() ? static_cast<size_t>(index.internalId()) : 0;
}

QModelIndex CallTreeModel::index_of(size_t node, int column) const {
    if (!tree_ || node == 0 || node >= tree_->size()) return {};
    return createIndex(static_cast<int>(tree_->row(node)), column, static_cast<quintptr>(node));
}

QModelIndex CallTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!tree_ || row < 0 || column < 0 || column >= columnCount(parent)) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const size_t p = node_of(parent);
    if (static_cast<size_t>(row) >= tree_->child_count(p)) return {};
    return createIndex(row, column, static_cast<quintptr>(tree_->child(p, static_cast<size_t>(row))));
}

QModelIndex CallTreeModel::parent(const QModelIndex& child) const {
    if (!tree_ || !child.isValid()) return {};
    const int p = tree_->parent(node_of(child));
    return p > 0 ? index_of(static_cast<size_t>(p)) : QModelIndex();
}

int CallTreeModel::rowCount(const QModelIndex& parent) const {
    if (!tree_ || (parent.isValid() && parent.column() != 0)) return 0;
    return static_cast<int>(tree_->child_count(node_of(parent)));
}

int CallTreeModel::columnCount(const QModelIndex&) const {
    return cells_ ? 1 + cells_->count() : 1;
}

bool CallTreeModel::hasChildren(const QModelIndex& parent) const { return rowCount(parent) > 0; }

QVariant CallTreeModel::data(const QModelIndex& index, int role) const {
    if (!tree_ || !index.isValid()) return {};
    const size_t n = node_of(index);
    if (role == NameIdRole) return static_cast<uint>(tree_->name_id(n));
    if (index.column() == 0) {
        if (role == Qt::DisplayRole || role == SortRole) return display_text(tree_->name(n));
        if (role == Qt::ToolTipRole) return plain_tooltip(display_text(tree_->name(n)));
        if (role == NoiseRole || role == Qt::ForegroundRole)
            return cells_->data(tree_->self(n), tree_->total(n), 0, role);
        return {};
    }
    return cells_->data(tree_->self(n), tree_->total(n), index.column() - 1, role);
}

QVariant CallTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (section == 0) {
        if (role == Qt::DisplayRole) return tr("Symbol");
        if (role == Qt::ToolTipRole)
            return tree_ && tree_->kind() == analysis::CallTree::Kind::bottom_up
                       ? tr("functions sampled running; under each, the chains of its callers")
                       : tr("the call tree from the outermost frame in");
        return {};
    }
    return cells_ ? cells_->header(section - 1, role) : QVariant();
}

}  // namespace pathscope::gui
