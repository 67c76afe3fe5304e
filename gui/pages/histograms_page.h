// Cycles per call of one stage on a log axis, every trial merged or one trial,
// with p50/p90/p99 markers and the MAD.
#pragma once

#include <QWidget>
#include <memory>

#include "db/records.h"

class QComboBox;

namespace pathscope::gui {

class HistogramWidget;

class HistogramsPage : public QWidget {
    Q_OBJECT
  public:
    explicit HistogramsPage(QWidget* parent = nullptr);
    void set_run(std::shared_ptr<const db::RunData> run);
    /// Shows `stage` (as the stage table's click does).
    void show_stage(const QString& stage);
    HistogramWidget* chart() const { return chart_; }
    QComboBox* trials() const { return trial_; }

  private:
    void redraw();
    /// How many calls the stage's histogram holds, said as `show` says it.
    QString calls_note(const std::string& stage, int trial) const;
    std::shared_ptr<const db::RunData> run_;
    QComboBox* stage_;
    QComboBox* trial_;
    HistogramWidget* chart_;
};

}  // namespace pathscope::gui
