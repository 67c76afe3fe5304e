// Histograms painted by hand (a Qt Charts bar is an object per bar): the
// log-linear buckets on a log value axis, one or more series overlaid, with
// p50/p90/p99 markers and the MAD in the legend. Axes name their units.
#pragma once

#include <QColor>
#include <QWidget>
#include <vector>

#include "common/histogram.h"

namespace pathscope::gui {

class HistogramWidget : public QWidget {
    Q_OBJECT
  public:
    struct Series {
        QString name;
        analysis::Histogram histogram;
        QColor colour;
    };
    explicit HistogramWidget(QWidget* parent = nullptr);
    /// `unit` of the values ("cycles per call", "packets per burst").
    /// `counted` names what a value is ("calls", "polls").
    void set_series(std::vector<Series> series, const QString& unit, const QString& title,
                    const QString& counted = QStringLiteral("calls"));
    const std::vector<Series>& series() const { return series_; }
    const QString& title() const { return title_; }
    QSize sizeHint() const override { return {700, 320}; }

  protected:
    void paintEvent(QPaintEvent* e) override;

  private:
    std::vector<Series> series_;
    QString unit_, title_, counted_;
};

}  // namespace pathscope::gui
