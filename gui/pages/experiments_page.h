// An experiment's matrix judged one setting at a time, as `pathscope
// compare --experiment ID --by SETTING` judges it: pick the experiment and
// the setting; the grid shows every other-settings combination against
// each value's change from the baseline, coloured by verdict. Clicking a
// cell asks for that pair of runs on the Compare page (open_pair). The
// runs are read and compared off the GUI thread; a stale result is dropped.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <map>
#include <string>
#include <vector>

#include "gui/experiment_loader.h"

class QComboBox;
class QLabel;
class QTableView;

namespace pathscope::gui {

class ExperimentGridModel;
class RunListModel;

class ExperimentsPage : public QWidget {
    Q_OBJECT
  public:
    /// The experiments and their cells come from `runs` (the run browser's
    /// model), refreshed whenever it is.
    explicit ExperimentsPage(RunListModel* runs, QWidget* parent = nullptr);
    /// The store the comparisons read, each through its own connection.
    void set_store(const std::string& path);
    /// Chooses an experiment (its id) and the setting to judge ("" for the
    /// first that varies) and loads the grid; false if there is no such.
    bool choose(const QString& experiment, const QString& setting = {});
    /// Turns to `experiment` (a selected run's), loading it when the page is
    /// shown; nothing when it is not in the list.
    void follow(const QString& experiment);
    /// Loads the chosen grid if it is not loaded yet (the newest
    /// experiment's first setting when none is chosen).
    void ensure_loaded();
    /// Blocks until the newest load's grid is shown (tests, screenshots).
    void wait_until_loaded();

    ExperimentGridModel* grid() const { return grid_; }
    QTableView* view() const { return view_; }
    QComboBox* experiment_box() const { return experiment_; }
    QComboBox* setting_box() const { return setting_; }
    QLabel* status() const { return status_; }

  signals:
    /// A cell was clicked: compare run `cand` against run `base`.
    void open_pair(qint64 base, qint64 cand);

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    void runs_changed();
    void fill_settings();
    void load();
    void loaded();
    void clicked(const QModelIndex& index);

    RunListModel* runs_;
    std::string path_;
    std::map<QString, std::vector<std::string>> cells_;  ///< each experiment's cells, oldest first
    ExperimentGridModel* grid_;
    QComboBox* experiment_;
    QComboBox* setting_;
    QTableView* view_;
    QLabel* status_;
    QFutureWatcher<LoadedExperiment> watcher_;
    unsigned generation_ = 0;  ///< of the newest load asked for
    unsigned shown_ = 0;       ///< of the load whose result is in the grid
    QString loaded_key_;       ///< "experiment/setting/cell count" of the newest load
};

}  // namespace pathscope::gui
