// pathscope-gui's window: a run browser on the left (filter, sort by any
// column) and the pages of the selected run on the right: the stage table
// and the flame graphs of the stage tree and of the sampled stacks. Clicking
// a stage opens the flame graph zoomed into it. Loading runs off the GUI
// thread; a stale result never overwrites a newer one.
#pragma once

#include <QMainWindow>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include "db/connection.h"
#include "gui/pages/stacks_page.h"  // stacks_page() is used as its FlamePage was (graph())
#include "gui/run_loader.h"

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTableWidget;

namespace pathscope::gui {

class ComparePage;
class ExperimentFilter;
class ExperimentsPage;
class FlamePage;
class PathPage;
class HistogramsPage;
class QueuesPage;
class RunListModel;
class RunSession;
class TimeSeriesPage;
class TracesPage;
class WorkerSelector;
class StageSortProxy;
class StageTableModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    /// The live view's poll period: a commit shows within this and a reload.
    static constexpr int kLivePollMs = 250;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a store; returns "" or the store's own error (also shown in the
    /// status bar and, with `interactive`, in a message box).
    QString open_store(const QString& path, bool interactive = false);
    /// Selects the run named by `ref` (id or label, the latest with that label).
    bool select_run(const QString& ref);
    /// Selects two runs: the comparison page compares `cand` against `base`.
    bool select_pair(const QString& base, const QString& cand);
    /// Blocks until the selected run's pages are filled, and any update a
    /// poll brought is shown (for screenshots and tests).
    void wait_until_loaded();
    /// Shows the page named `page`: runs, stages, path, flame, stacks, queues,
    /// histograms, timeseries, traces, compare, experiments, or a view of
    /// the sampled stacks: topdown, bottomup, callers. False for another name.
    bool show_page(const QString& page);
    /// Writes the selected run (or comparison) as a report: text, md or html
    /// by the file's ending, through the renderers the CLI uses.
    QString export_report(const QString& file);
    /// Writes the current page as PNG, or SVG for a .svg file.
    QString export_view(const QString& file);
    /// Live view: the store is polled for commits of other processes
    /// (PRAGMA data_version) every `ms`, off the GUI thread; 0 stops.
    void set_live(int ms);
    /// One poll now (blocks until the reader has done it): whether the
    /// store had changed. What it brought is shown by the next events.
    bool poll_store();
    /// Times the pages were filled: a load's result, or a live update.
    int updates() const { return updates_; }

    RunListModel* runs() const { return runs_; }
    QSortFilterProxyModel* run_proxy() const { return run_proxy_; }
    QTableView* run_view() const { return run_view_; }
    QLineEdit* run_filter() const { return filter_; }
    StageTableModel* stages() const { return stages_; }
    StageSortProxy* stage_proxy() const { return stage_proxy_; }
    QTableView* stage_view() const { return stage_view_; }
    FlamePage* flame_page() const { return flame_; }
    PathPage* path_page() const { return path_page_; }
    StacksPage* stacks_page() const { return stacks_; }
    QTabWidget* pages() const { return pages_; }
    QLabel* warning() const { return warning_; }
    QLabel* header() const { return header_; }
    QLabel* perf() const { return perf_; }
    /// Latency percentiles and path-event figures of the shown run.
    QLabel* figures() const { return figures_; }
    QTableWidget* drops() const { return drops_; }
    QueuesPage* queues_page() const { return queues_; }
    HistogramsPage* histograms_page() const { return histograms_; }
    TracesPage* traces_page() const { return traces_; }
    TimeSeriesPage* time_series_page() const { return time_series_; }
    ComparePage* compare_page() const { return compare_; }
    ExperimentsPage* experiments_page() const { return experiments_; }
    /// The run browser's experiment filter (all runs, or one experiment's cells).
    ExperimentFilter* experiment_filter() const { return experiment_filter_; }
    /// The selected run's rows (null before one is loaded).
    std::shared_ptr<const db::RunData> run_data() const { return data_; }
    /// The worker selectors of the Stages, Flame graph and Histograms pages
    /// (in that order; shown for a run of several workers), and the worker
    /// they show (WorkerSelector::kAllWorkers: the sums).
    const std::vector<WorkerSelector*>& worker_selectors() const { return worker_selectors_; }
    int shown_worker() const { return worker_; }
    /// Times those pages were filled with one worker's view.
    int worker_views() const { return worker_views_; }

  private:
    // main_window_layout.cpp: the widgets, built once by the constructor.
    QWidget* build_run_list();
    QWidget* build_stage_page();
    void build_pages(QWidget* stage_page);
    QWidget* build_right();
    void build_status_bar();
    void build_menus();
    void start_session();
    void load_selected();
    void loaded(const LoadedRun& run);
    void runs_changed(const StoreListing& changes);
    void stage_clicked(const QModelIndex& index);
    void open_stage(const QString& stage);
    void choose_store();
    void drop_clicked(int row);
    void fill_drops(const std::vector<analysis::DropLine>& drops);
    static QString figures_text(const analysis::RunSummary& sum);
    /// Fills the pages that show a chosen worker (Stages' table, Flame
    /// graph, Histograms) from `run`: the run's own, or one worker's view.
    void fill_worker_pages(const LoadedRun& run);
    /// Drops `old` (a run no page shows any more) on a pool thread.
    static void release_elsewhere(LoadedRun old);
    /// Shows `worker` (or all) on those pages; one worker's view is made
    /// off the GUI thread (compute_pages on analysis::worker_view).
    void choose_worker(int worker);
    /// Tells the session whether a call view is on screen, and asks for
    /// the shown run's call views when its load or a live update left them out.
    void want_call_views();

    RunSession* session_ = nullptr;  ///< every read of the store
    RunListModel* runs_;
    QSortFilterProxyModel* run_proxy_;
    QTableView* run_view_;
    QLineEdit* filter_;
    StageTableModel* stages_;
    StageSortProxy* stage_proxy_;
    QTableView* stage_view_;
    FlamePage* flame_;
    PathPage* path_page_;
    StacksPage* stacks_;
    QueuesPage* queues_;
    HistogramsPage* histograms_;
    TracesPage* traces_;
    TimeSeriesPage* time_series_;
    ComparePage* compare_;
    ExperimentsPage* experiments_;
    ExperimentFilter* experiment_filter_;
    QTableWidget* drops_;
    QSplitter* stage_split_;  ///< the stage table | the drops
    std::shared_ptr<const db::RunData> data_;
    QTabWidget* pages_;
    QLabel* header_;
    QLabel* warning_;
    QLabel* perf_;
    QLabel* figures_;
    QProgressBar* progress_;
    QPushButton* cancel_;
    int updates_ = 0;
    std::vector<WorkerSelector*> worker_selectors_;
    LoadedRun shown_;                 ///< the run's own pages, as last loaded
    int worker_ = -1;                 ///< the worker those pages show; -1: all
    /// Of the newest worker view asked for; shared with the views' tasks,
    /// which stop once it moves on (and may outlive the window).
    std::shared_ptr<std::atomic<unsigned>> worker_generation_ = std::make_shared<std::atomic<unsigned>>(0);
    int worker_views_ = 0;
};

}  // namespace pathscope::gui
