// Per port and queue: packet share bars with the skew verdict (max/mean,
// Jain's index, the flag), and the burst-size histogram of a receive queue.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "analysis/queue_skew.h"
#include "db/records.h"

class QComboBox;

namespace pathscope::gui {

class HistogramWidget;

/// The share bars, one group per port and direction.
class QueueBars : public QWidget {
    Q_OBJECT
  public:
    explicit QueueBars(QWidget* parent = nullptr);
    void set_skew(std::vector<analysis::QueueSkew> skew);
    const std::vector<analysis::QueueSkew>& skew() const { return skew_; }
    QSize sizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* e) override;

  private:
    std::vector<analysis::QueueSkew> skew_;
};

class QueuesPage : public QWidget {
    Q_OBJECT
  public:
    explicit QueuesPage(QWidget* parent = nullptr);
    void set_run(std::shared_ptr<const db::RunData> run);
    QueueBars* bars() const { return bars_; }

  private:
    void redraw_bursts();
    std::shared_ptr<const db::RunData> run_;
    QueueBars* bars_;
    QComboBox* queue_;
    HistogramWidget* bursts_;
};

}  // namespace pathscope::gui
