// Per-interval receive, forward and delivery rates and cycles per packet
// across trials (Qt Charts line series, trial boundaries marked). Drag over
// the chart to select a time range: the flame graph below shows the stage
// cycles of that range only ("flame scope").
#pragma once

#include <QWidget>
#include <memory>

#include "analysis/time_series.h"

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
    void set_run(std::shared_ptr<const db::RunData> run);
    /// Shows the flame graph of [t0, t1) seconds on the run's axis (as a drag
    /// does): of the stage cycles, or with `stacks` of the sampled stacks.
    void select_range(double t0, double t1);
    void show_stacks(bool stacks);
    FlamePage* flame() const { return flame_; }
    const analysis::TimeSeries& series() const { return series_; }
    QString range_text() const;

  private:
    std::shared_ptr<const db::RunData> run_;
    analysis::TimeSeries series_;
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
