// The cost columns every stack view shows after the symbol, from a call
// tree's cost vectors (analysis::CostColumns): for a run its samples and its
// share, for a comparison the base and candidate shares and their change,
// with the noise verdict the flame graph's difference uses.
#pragma once

#include <QString>
#include <QVariant>

#include "analysis/trees/call_tree.h"

namespace pathscope::gui {

/// Roles the stack views' models answer besides Qt's.
enum StackRole {
    SortRole = Qt::UserRole + 1,  ///< a number for cost columns, the name for the symbol
    NameIdRole,                   ///< the row's function (analysis name id)
    NoiseRole,                    ///< a comparison's verdict: within noise (bool)
};

class CostCells {
  public:
    /// `self_and_inclusive`: self then inclusive cost (top-down, functions);
    /// else one cost, called `label` ("Self", "Inclusive").
    CostCells(const analysis::CostColumns& c, bool self_and_inclusive, QString label = {});
    int count() const;
    QVariant header(int column, int role) const;
    /// A row's cell: `self` is ignored in one-cost form.
    QVariant data(const double* self, const double* cost, int column, int role) const;

  private:
    const analysis::CostColumns* c_;
    bool both_;
    QString label_;
};

}  // namespace pathscope::gui
