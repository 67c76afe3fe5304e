// Per port and queue: packet share bars with the skew verdict (max/mean,
// Jain's index, the flag) with each queue's packets and bursts, and the
// burst-size histogram of a receive queue (a note instead for a run that only sent).
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "analysis/figures/queue_skew.h"
#include "db/records.h"

class QComboBox;
class QLabel;

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
    /// "wire tx: 1 queue, max/mean 1.00, Jain's index 1.000" (analysis::queue_heading).
    static QString heading(const analysis::QueueSkew& s);
    /// A queue's packets, share and bursts, beside its bar.
    static QString figures(const analysis::QueueShare& q);
    /// What the bars say when the run has no queue counters ("" the usual words).
    void set_empty_text(const QString& text) {
        empty_text_ = text;
        update();
    }

  protected:
    void paintEvent(QPaintEvent* e) override;

  private:
    std::vector<analysis::QueueSkew> skew_;
    QString empty_text_;
};

class QueuesPage : public QWidget {
    Q_OBJECT
  public:
    explicit QueuesPage(QWidget* parent = nullptr);
    void set_run(std::shared_ptr<const db::RunData> run);
    QueueBars* bars() const { return bars_; }
    /// What the page says instead of the burst chart ("" when it shows one).
    QString note() const;
    /// The burst-size chart's title, and whether the chart is shown.
    QString bursts_title() const;
    bool bursts_shown() const;

  private:
    void redraw_bursts();
    std::shared_ptr<const db::RunData> run_;
    QueueBars* bars_;
    QComboBox* queue_;
    HistogramWidget* bursts_;
    QWidget* burst_box_;
    QLabel* note_;
};

}  // namespace pathscope::gui
