#include "gui/widgets/histogram_widget.h"

#include "analysis/render/histogram_bars.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace pathscope::gui {

HistogramWidget::HistogramWidget(QWidget* parent) : QWidget(parent) {
    setMinimumSize(360, 220);
}

void HistogramWidget::set_series(std::vector<Series> series, const QString& unit,
                                 const QString& title, const QString& counted) {
    series_ = std::move(series);
    unit_ = unit;
    title_ = title;
    counted_ = counted;
    update();
}

void HistogramWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics fm(font());
    p.setPen(palette().text().color());
    p.drawText(QRect(8, 4, width() - 16, fm.height()), Qt::AlignLeft, title_);
    // The legend, a line per series, wrapped where the widget is narrow:
    // measured first, so that the plot leaves room for all of it.
    const int legend_x = 60, legend_w = std::max(100, width() - legend_x - 8);
    QStringList legends;
    int legend_h = 0;
    for (const auto& s : series_) {
        const auto& h = s.histogram;
        legends << QStringLiteral("%1: %2 %3, min %4, p50 %5, p90 %6, p99 %7, max %8, MAD %9 (%10)")
                       .arg(s.name)
                       .arg(h.count())
                       .arg(counted_)
                       .arg(h.min())
                       .arg(h.percentile(50), 0, 'f', 0)
                       .arg(h.percentile(90), 0, 'f', 0)
                       .arg(h.percentile(99), 0, 'f', 0)
                       .arg(h.max())
                       .arg(h.mad(), 0, 'f', 0)
                       .arg(unit_);
        legend_h += fm.boundingRect(QRect(0, 0, legend_w, 100 * fm.height()), Qt::TextWordWrap,
                                    legends.back())
                        .height();
    }
    const QRect plot(60, 8 + 2 * fm.height(), width() - 80,
                     height() - 24 - 4 * fm.height() - legend_h);
    // The bars as the HTML report's SVG draws them: buckets on the log value
    // axis, each as tall as its share of the series' values (not divided by
    // the bucket's width: the axis says "share of all values, per bucket").
    std::vector<const analysis::Histogram*> histograms;
    for (const auto& s : series_) histograms.push_back(&s.histogram);
    const analysis::HistogramBars bars = analysis::histogram_bars(histograms, plot.width(), plot.height());
    if (bars.empty() || plot.width() < 50 || plot.height() < 30) {
        p.drawText(rect(), Qt::AlignCenter, tr("no values recorded"));
        return;
    }
    auto xof = [&](double v) { return plot.left() + bars.x(v, plot.width()); };
    const double top = bars.top_share;
    // Axes, with units.
    p.setPen(QColor(0x80, 0x80, 0x80));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
    // Tick labels in plain digits (no "1e+06"); a label that would touch the
    // one before it is left out, its tick kept.
    double last_label_right = -1e9;
    for (const double v : bars.axis.ticks) {
        const double x = xof(v);
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
        const QString text = v >= 1 ? QString::number(v, 'f', 0) : QString::number(v, 'g', 6);
        const double w = fm.horizontalAdvance(text);
        if (x - w / 2 < last_label_right + fm.horizontalAdvance(QLatin1Char(' '))) continue;
        p.drawText(QRectF(x - w / 2 - 2, plot.bottom() + 5, w + 4, fm.height()), Qt::AlignHCenter, text);
        last_label_right = x + w / 2;
    }
    p.drawText(QRect(plot.left(), plot.bottom() + 6 + fm.height(), plot.width(), fm.height()),
               Qt::AlignHCenter, unit_ + tr(" (log scale)"));
    for (int k = 0; k <= 4; ++k) {
        const double share = top * k / 4;
        const double y = plot.bottom() - plot.height() * k / 4.0;
        p.drawText(QRectF(0, y - fm.height() / 2.0, 55, fm.height()), Qt::AlignRight,
                   QString::number(share * 100, 'f', 1) + "%");
    }
    p.save();
    p.translate(12, plot.center().y());
    p.rotate(-90);
    p.drawText(QRect(-plot.height() / 2, -fm.height(), plot.height(), fm.height()),
               Qt::AlignHCenter, tr("share of all values, per bucket"));
    p.restore();
    // Bars, translucent so overlays show through; then markers.
    int legend_y = plot.bottom() + 8 + 2 * fm.height();
    for (size_t s = 0; s < series_.size(); ++s) {
        QColor fill = series_[s].colour;
        fill.setAlpha(series_.size() > 1 ? 110 : 190);
        for (const analysis::HistogramBar& b : bars.series[s])
            p.fillRect(QRectF(plot.left() + b.x0, plot.bottom() - b.height, b.x1 - b.x0, b.height),
                       fill);
        const auto& h = series_[s].histogram;
        QColor line = series_[s].colour.darker(140);
        p.setPen(QPen(line, 1, Qt::DashLine));
        int k = 0;
        for (const auto& [pct, name] : {std::pair{50.0, "p50"}, {90.0, "p90"}, {99.0, "p99"}}) {
            const double x = xof(h.percentile(pct));
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
            // Staggered, so that close markers keep readable labels.
            p.drawText(QPointF(x + 2, plot.top() + fm.ascent() +
                                          (k++ + 3 * static_cast<int>(s)) * fm.height()),
                       name);
        }
        p.setPen(line);
        QRect drawn;
        p.drawText(QRect(legend_x, legend_y, legend_w, height() - legend_y), Qt::TextWordWrap,
                   legends[static_cast<int>(s)], &drawn);
        legend_y += drawn.height();
    }
}

}  // namespace pathscope::gui
