#include "gui/widgets/histogram_widget.h"

#include "analysis/chart_svg.h"

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
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& s : series_)
        if (s.histogram.count()) {
            lo = std::min(lo, s.histogram.min());
            hi = std::max(hi, s.histogram.max());
        }
    const QRect plot(60, 8 + 2 * fm.height(), width() - 80, height() - 24 - 5 * fm.height());
    if (hi == 0 || plot.width() < 50 || plot.height() < 30) {
        p.drawText(rect(), Qt::AlignCenter, tr("no values recorded"));
        return;
    }
    const analysis::LogAxis axis = analysis::log_axis(lo, hi);  // shared with the HTML report
    auto xof = [&](double v) { return plot.left() + axis.fraction(v) * plot.width(); };
    // Densities per bucket: counts over the bucket's width on the log axis,
    // so wide buckets do not look taller than they are.
    double top = 0;
    std::vector<std::vector<std::pair<unsigned, double>>> bars(series_.size());
    for (size_t s = 0; s < series_.size(); ++s) {
        const auto& h = series_[s].histogram;
        const double total = std::max<double>(1, h.count());
        for (unsigned i = 0; i < h.counts().size(); ++i) {
            if (!h.counts()[i]) continue;
            const double share = h.counts()[i] / total;
            bars[s].emplace_back(i, share);
            top = std::max(top, share);
        }
    }
    // Axes, with units.
    p.setPen(QColor(0x80, 0x80, 0x80));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
    for (const double v : axis.ticks) {
            const double x = xof(v);
            p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
            p.drawText(QRectF(x - 40, plot.bottom() + 5, 80, fm.height()), Qt::AlignHCenter,
                       QString::number(v, 'g', 6));
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
        for (const auto& [i, share] : bars[s]) {
            const double x0 = xof(double(analysis::bucket_lower(i)));
            const double x1 = std::max(x0 + 1.5, xof(double(analysis::bucket_upper(i)) + 1));
            const double h = share / top * plot.height();
            p.fillRect(QRectF(x0, plot.bottom() - h, x1 - x0, h).intersected(QRectF(plot)), fill);
        }
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
        p.drawText(QPoint(plot.left(), legend_y + fm.ascent()),
                   QStringLiteral("%1: %2 %3, min %4, p50 %5, p90 %6, p99 %7, max %8, MAD %9 %10")
                       .arg(series_[s].name)
                       .arg(h.count())
                       .arg(counted_)
                       .arg(h.min())
                       .arg(h.percentile(50), 0, 'f', 0)
                       .arg(h.percentile(90), 0, 'f', 0)
                       .arg(h.percentile(99), 0, 'f', 0)
                       .arg(h.max())
                       .arg(h.mad(), 0, 'f', 0)
                       .arg(unit_));
        legend_y += fm.height();
    }
}

}  // namespace pathscope::gui
