// Which worker a page shows of a run of several workers (engine.workers):
// "all workers" (their sums) or one of them. Hidden for a run of one
// worker. The Stages page's also offers a row per worker in its table.
#pragma once

#include <QWidget>
#include <utility>
#include <vector>

class QCheckBox;
class QComboBox;

namespace pathscope::gui {

class WorkerSelector : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kAllWorkers = -1;

    /// `rows_box`: with the "a row per worker" check box (the Stages page).
    explicit WorkerSelector(bool rows_box = false, QWidget* parent = nullptr);

    /// The run's workers, (id, lcore; -1: not recorded), ascending. Two or
    /// more show the selector, keeping the worker chosen if the run has it
    /// (else all workers); fewer hide it. Emits nothing.
    void set_workers(const std::vector<std::pair<int, int>>& workers);
    /// The worker chosen, or kAllWorkers.
    int worker() const;
    /// Chooses `worker` (kAllWorkers, or one the run has) without emitting.
    void set_worker(int worker);
    bool worker_rows() const;

    QComboBox* combo() const { return combo_; }
    QCheckBox* rows_box() const { return rows_; }

  signals:
    void chosen(int worker);
    void worker_rows_toggled(bool on);

  private:
    QComboBox* combo_;
    QCheckBox* rows_ = nullptr;
};

}  // namespace pathscope::gui
