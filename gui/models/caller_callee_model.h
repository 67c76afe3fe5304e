// The caller/callee view's tables (analysis::CallerCallee): every function
// with its self and inclusive cost (a recursive function counted once a
// sample), and for the selected function its callers (the cost of the
// function reached from each) or its callees (the cost flowing into each).
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <optional>

#include "analysis/trees/call_tree.h"
#include "gui/models/cost_cells.h"

namespace pathscope::gui {

class CallerCalleeModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    explicit CallerCalleeModel(QObject* parent = nullptr);
    void set_functions(std::shared_ptr<const analysis::CallerCallee> functions);
    const analysis::CallerCallee* functions() const { return cc_.get(); }
    /// The row of function `name_id`, or -1.
    int row_of(uint32_t name_id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    std::shared_ptr<const analysis::CallerCallee> cc_;
    std::optional<CostCells> cells_;
};

/// The callers or the callees of one function.
class CallLinksModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum class Direction { callers, callees };
    CallLinksModel(Direction direction, QObject* parent = nullptr);
    /// Shows the links of `name_id` (computed here), or none for -1.
    void set_function(std::shared_ptr<const analysis::CallerCallee> functions, int64_t name_id);
    int64_t function() const { return function_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    Direction direction_;
    std::shared_ptr<const analysis::CallerCallee> cc_;
    int64_t function_ = -1;
    analysis::CallerCallee::Links links_;
    std::optional<CostCells> cells_;
};

}  // namespace pathscope::gui
