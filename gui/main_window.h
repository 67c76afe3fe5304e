// pathscope-gui's window: a run browser on the left (filter, sort by any
// column) and the pages of the selected run on the right: the stage table
// and the flame graphs of the stage tree and of the sampled stacks. Clicking
// a stage opens the flame graph zoomed into it. Loading runs off the GUI
// thread; a stale result never overwrites a newer one.
#pragma once

#include <QFutureWatcher>
#include <QMainWindow>
#include <optional>

#include "gui/run_loader.h"

class QLabel;
class QLineEdit;
class QProgressBar;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace pathscope::gui {

class FlamePage;
class RunListModel;
class StageSortProxy;
class StageTableModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);

    /// Opens a store; returns "" or the store's own error (also shown in the
    /// status bar and, with `interactive`, in a message box).
    QString open_store(const QString& path, bool interactive = false);
    /// Selects the run named by `ref` (id or label, the latest with that label).
    bool select_run(const QString& ref);
    /// Blocks until the selected run's pages are filled (for screenshots and tests).
    void wait_until_loaded();
    /// Shows the page named `page`: stages, flame, stacks. False for another name.
    bool show_page(const QString& page);

    RunListModel* runs() const { return runs_; }
    QSortFilterProxyModel* run_proxy() const { return run_proxy_; }
    QTableView* run_view() const { return run_view_; }
    QLineEdit* run_filter() const { return filter_; }
    StageTableModel* stages() const { return stages_; }
    StageSortProxy* stage_proxy() const { return stage_proxy_; }
    QTableView* stage_view() const { return stage_view_; }
    FlamePage* flame_page() const { return flame_; }
    FlamePage* stacks_page() const { return stacks_; }
    QTabWidget* pages() const { return pages_; }
    QLabel* warning() const { return warning_; }

  private:
    void load_selected();
    void loaded();
    void stage_clicked(const QModelIndex& index);
    void choose_store();

    std::string path_;
    RunListModel* runs_;
    QSortFilterProxyModel* run_proxy_;
    QTableView* run_view_;
    QLineEdit* filter_;
    StageTableModel* stages_;
    StageSortProxy* stage_proxy_;
    QTableView* stage_view_;
    FlamePage* flame_;
    FlamePage* stacks_;
    QTabWidget* pages_;
    QLabel* header_;
    QLabel* warning_;
    QProgressBar* progress_;
    QFutureWatcher<LoadedRun> watcher_;
    unsigned generation_ = 0;  ///< of the newest load asked for
    unsigned shown_ = 0;       ///< of the load whose result is on the pages
};

}  // namespace pathscope::gui
