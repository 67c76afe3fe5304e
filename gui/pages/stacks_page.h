// The Sampled stacks page: the flame graph beside the tables a profiler
// offers for the same samples (hotspot's views): top-down and bottom-up
// call trees and caller/callee of one function, all from one call tree
// (analysis::CallViews) built off the GUI thread. One search box filters
// the trees and the tables and searches the flame graph; double-clicking a
// function in a tree opens its callers and callees. A comparison shows base,
// candidate and change columns.
#pragma once

#include <QWidget>
#include <memory>

#include "analysis/trees/call_tree.h"
#include "gui/pages/flame_page.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTableView;
class QTreeView;

namespace pathscope::gui {

class CallLinksModel;
class CallTreeModel;
class CallerCalleeModel;
class NameFilterProxy;

class StacksPage : public QWidget {
    Q_OBJECT
  public:
    enum class View { flame, top_down, bottom_up, callers };

    explicit StacksPage(QWidget* parent = nullptr);
    FlamePage* flame() const { return flame_; }
    FlameGraphWidget* graph() const { return flame_->graph(); }
    /// The flame graph's tree (FlamePage::set_diff).
    void set_diff(std::shared_ptr<const analysis::FlameDiff> diff, bool differential,
                  const QString& unit, const QString& title);
    /// The tables' trees; empty views: none (no sampled stacks).
    void set_views(analysis::CallViews views);
    const analysis::CallViews& views() const { return views_; }
    /// No views until set_views: they are made when one of their tabs is
    /// shown (MainWindow asks for them then).
    void views_to_come();

    void show_view(View v);
    View view() const;
    /// Filters the trees and tables and searches the flame graph, as the box does.
    void search(const QString& pattern, bool regex);
    /// Opens the caller/callee view of the function `name`; false if there is none.
    bool show_function(const QString& name);
    /// The function the caller/callee view shows, or "".
    QString shown_function() const;

    QTreeView* top_down_view() const { return top_down_view_; }
    QTreeView* bottom_up_view() const { return bottom_up_view_; }
    QTableView* functions_view() const { return functions_view_; }
    QTableView* callers_view() const { return callers_view_; }
    QTableView* callees_view() const { return callees_view_; }
    CallTreeModel* top_down_model() const { return top_down_; }
    CallTreeModel* bottom_up_model() const { return bottom_up_; }
    CallerCalleeModel* functions_model() const { return functions_; }
    CallLinksModel* callers_model() const { return callers_; }
    CallLinksModel* callees_model() const { return callees_; }
    NameFilterProxy* top_down_proxy() const { return top_down_proxy_; }
    NameFilterProxy* bottom_up_proxy() const { return bottom_up_proxy_; }
    NameFilterProxy* functions_proxy() const { return functions_proxy_; }

  signals:
    /// Another tab (flame graph, a call view) is shown.
    void view_changed();

  private:
    void select_function(int64_t name_id);
    void open_from(const QModelIndex& proxy_index);
    void sort_default();

    FlamePage* flame_;
    QTabWidget* tabs_;
    QLabel* note_;
    QLineEdit* search_;
    QCheckBox* regex_;
    QLabel* links_title_;
    QTreeView* top_down_view_;
    QTreeView* bottom_up_view_;
    QTableView* functions_view_;
    QTableView* callers_view_;
    QTableView* callees_view_;
    CallTreeModel* top_down_;
    CallTreeModel* bottom_up_;
    CallerCalleeModel* functions_;
    CallLinksModel* callers_;
    CallLinksModel* callees_;
    NameFilterProxy* top_down_proxy_;
    NameFilterProxy* bottom_up_proxy_;
    NameFilterProxy* functions_proxy_;
    NameFilterProxy* callers_proxy_;
    NameFilterProxy* callees_proxy_;
    analysis::CallViews views_;
};

}  // namespace pathscope::gui
