// Per-interval receive, forward and delivery rates and cycles per packet
// across trials (Qt Charts line series, trial boundaries marked). Drag over
// the chart to select a time range: the flame graph below shows the stage
// cycles of that range only ("flame scope").
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <memory>

#include "analysis/trees/flame_diff.h"
#include "analysis/figures/time_series.h"

class QChart;
class QChartView;
class QComboBox;
class QLabel;

namespace pathscope::gui {

class FlamePage;
class RangeChartView;

class TimeSeriesPage : public QWidget {
    Q_OBJECT
  public:
    explicit TimeSeriesPage(QWidget* parent = nullptr);
    /// The run, its series, the whole run's range tree and its main stack
    /// event (analysis::main_stack_event), all computed off the GUI thread
    /// (gui/run_loader).
    void set_run(std::shared_ptr<const db::RunData> run,
                 std::shared_ptr<const analysis::TimeSeries> series,
                 std::shared_ptr<const analysis::FlameDiff> whole, int intervals,
                 const std::string& stack_event);
    /// Shows the flame graph of [t0, t1) seconds on the run's axis (as a drag
    /// does): of the stage cycles, or with `stacks` of the sampled stacks.
    /// The tree is built on a worker thread; a newer range drops an older one's.
    void select_range(double t0, double t1);
    /// Waits for the range asked for last to be shown (tests, screenshots).
    void wait_for_range();
    void show_stacks(bool stacks);
    FlamePage* flame() const { return flame_; }
    const analysis::TimeSeries& series() const { return *series_; }
    QString range_text() const;

  private:
    struct Range {
        unsigned generation = 0;
        std::shared_ptr<const analysis::FlameDiff> tree;
        QString title;
        int intervals = 0;
    };
    void show_range(const Range& r);
    void draw_series();

    std::shared_ptr<const db::RunData> run_;
    std::shared_ptr<const analysis::TimeSeries> series_;
    QFutureWatcher<Range> range_watcher_;
    unsigned range_generation_ = 0;
    bool transmit_ = false;  ///< the run only sent: cycles are per sent datagram
    QChart* chart_;
    RangeChartView* view_;
    FlamePage* flame_;
    QLabel* range_;
    QComboBox* tree_;
    double t0_ = 0, t1_ = 0;
    std::string event_;
};

}  // namespace pathscope::gui
