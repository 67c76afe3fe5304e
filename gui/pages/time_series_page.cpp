#include "gui/pages/time_series_page.h"
#include "gui/display_text.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QSplitter>
#include <QValueAxis>
#include <cmath>
#include <QVBoxLayout>
#include <QCoreApplication>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "analysis/figures/metric_names.h"
#include "analysis/figures/run_metrics.h"
#include "gui/pages/flame_page.h"

namespace pathscope::gui {

/// A chart view whose drag selects a range of the x axis.
class RangeChartView : public QChartView {
  public:
    explicit RangeChartView(QChart* chart, std::function<void(double, double)> selected)
        : QChartView(chart), selected_(std::move(selected)) {
        setRubberBand(QChartView::NoRubberBand);
    }

  protected:
    void mousePressEvent(QMouseEvent* e) override {
        from_ = chart()->mapToValue(e->position()).x();
        QChartView::mousePressEvent(e);
    }
    void mouseReleaseEvent(QMouseEvent* e) override {
        const double to = chart()->mapToValue(e->position()).x();
        if (std::abs(to - from_) > 1e-6) selected_(std::min(from_, to), std::max(from_, to));
        QChartView::mouseReleaseEvent(e);
    }

  private:
    std::function<void(double, double)> selected_;
    double from_ = 0;
};

TimeSeriesPage::TimeSeriesPage(QWidget* parent) : QWidget(parent) {
    chart_ = new QChart;
    chart_->setAnimationOptions(QChart::NoAnimation);
    view_ = new RangeChartView(chart_, [this](double a, double b) { select_range(a, b); });
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setMinimumHeight(260);
    flame_ = new FlamePage;
    range_ = new QLabel(tr("Drag over the chart to see the flame graph of a time range."));
    tree_ = new QComboBox;
    tree_->addItem(tr("stage cycles"));
    tree_->addItem(tr("sampled stacks"));
    connect(tree_, &QComboBox::currentIndexChanged, this, [this] { select_range(t0_, t1_); });
    connect(&range_watcher_, &QFutureWatcher<Range>::finished, this,
            [this] { show_range(range_watcher_.result()); });
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(view_);
    auto* lower = new QWidget;
    auto* lower_layout = new QVBoxLayout(lower);
    lower_layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->addWidget(range_, 1);
    bar->addWidget(tree_);
    lower_layout->addLayout(bar);
    lower_layout->addWidget(flame_, 1);
    split->addWidget(lower);
    split->setSizes({420, 380});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);
}

void TimeSeriesPage::set_run(std::shared_ptr<const db::RunData> run,
                             std::shared_ptr<const analysis::TimeSeries> series,
                             std::shared_ptr<const analysis::FlameDiff> whole, int intervals,
                             const std::string& stack_event) {
    const bool same_run = run_ && run && run_->info.id == run->info.id;
    const bool whole_range = !same_run || (t0_ <= 0 && t1_ >= (series_ && !series_->points.empty()
                                                                    ? series_->points.back().t1
                                                                    : 0));
    run_ = std::move(run);
    series_ = series ? std::move(series) : std::make_shared<analysis::TimeSeries>();
    transmit_ = run_ && analysis::packet_basis(run_->rows.trials).transmit;
    event_ = run_ ? stack_event : std::string();
    draw_series();
    const double end = series_->points.empty() ? 0 : series_->points.back().t1;
    if (!run_ || end <= 0) return;
    if (!whole_range) return;  // a range the user chose stays
    t0_ = 0;
    t1_ = end;
    if (tree_->currentIndex() == 0 && whole) {
        ++range_generation_;  // what a worker still builds is stale
        show_range({range_generation_, std::move(whole),
                    (transmit_ ? tr("Stage cycles from %1 s to %2 s (%3 intervals), per sent datagram")
                               : tr("Stage cycles from %1 s to %2 s (%3 intervals), per received packet"))
                        .arg(0.0, 0, 'f', 2)
                        .arg(end, 0, 'f', 2)
                        .arg(intervals),
                    intervals});
    } else {
        select_range(0, end);
    }
}

void TimeSeriesPage::draw_series() {
    const QString per_packet = QString::fromLatin1(analysis::cycles_per_path_packet(transmit_));
    chart_->removeAllSeries();
    for (QAbstractAxis* a : chart_->axes()) {
        chart_->removeAxis(a);  // hands the axis back to us
        delete a;
    }
    auto* x = new QValueAxis;
    x->setTitleText(tr("seconds (trials one after another)"));
    auto* rate = new QValueAxis;
    rate->setTitleText(tr("Mpps"));
    auto* cycles = new QValueAxis;
    cycles->setTitleText(per_packet);
    chart_->addAxis(x, Qt::AlignBottom);
    chart_->addAxis(rate, Qt::AlignLeft);
    chart_->addAxis(cycles, Qt::AlignRight);
    struct Line {
        QString name;
        double analysis::IntervalPoint::*field;
        double scale;
        QAbstractAxis* axis;
    };
    const Line lines[] = {{tr("received"), &analysis::IntervalPoint::rx_pps, 1e-6, rate},
                          {tr("sent by sockets"), &analysis::IntervalPoint::tx_pps, 1e-6, rate},
                          {tr("forwarded"), &analysis::IntervalPoint::forwarded_pps, 1e-6, rate},
                          {tr("delivered"), &analysis::IntervalPoint::delivered_pps, 1e-6, rate},
                          {per_packet, &analysis::IntervalPoint::cycles_per_packet, 1, cycles}};
    double top_rate = 0, top_cycles = 0, end = 0;
    for (const Line& l : lines) {
        auto* s = new QLineSeries;
        s->setName(l.name);
        QList<QPointF> pts;  // one bulk replace: no per-point signals
        for (const auto& p : series_->points) {
            const double v = p.*(l.field) * l.scale;
            pts << QPointF((p.t0 + p.t1) / 2, v);
            (l.axis == rate ? top_rate : top_cycles) = std::max(l.axis == rate ? top_rate : top_cycles, v);
            end = std::max(end, p.t1);
        }
        s->replace(pts);
        chart_->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(l.axis);
    }
    for (size_t i = 1; i < series_->trial_starts.size(); ++i) {  // trial boundaries
        auto* b = new QLineSeries;
        b->setName(i == 1 ? tr("trial boundary") : QString());
        b->setPen(QPen(Qt::gray, 1, Qt::DashLine));
        b->append(series_->trial_starts[i], 0);
        b->append(series_->trial_starts[i], top_rate * 1.1);
        chart_->addSeries(b);
        b->attachAxis(x);
        b->attachAxis(rate);
    }
    for (QLegendMarker* m : chart_->legend()->markers())
        if (m->label().isEmpty()) m->setVisible(false);
    // Time ends where the data does (applyNiceNumbers would round 2.1 s up
    // to 3.0), with ticks on round seconds from 0.
    const double span = std::max(end, 0.1);
    x->setRange(0, span);
    double step = std::pow(10.0, std::floor(std::log10(span / 6)));
    for (double k : {2.0, 5.0, 10.0})
        if (span / step > 8) step = std::pow(10.0, std::floor(std::log10(span / 6))) * k;
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(step);
    x->setLabelFormat(step >= 1     ? QStringLiteral("%.0f")
                      : step >= 0.1 ? QStringLiteral("%.1f")
                                    : QStringLiteral("%.2f"));
    rate->setRange(0, std::max(top_rate * 1.1, 0.001));
    cycles->setRange(0, std::max(top_cycles * 1.1, 1.0));
    for (QValueAxis* a : {rate, cycles}) a->applyNiceNumbers();  // ticks on round values
    chart_->setTitle(run_ ? tr("Per interval, run %1").arg(run_->info.id) : QString());
}

void TimeSeriesPage::show_stacks(bool stacks) { tree_->setCurrentIndex(stacks ? 1 : 0); }

void TimeSeriesPage::select_range(double t0, double t1) {
    if (!run_) return;
    t0_ = t0;
    t1_ = t1;
    const unsigned generation = ++range_generation_;
    const bool stacks = tree_->currentIndex() == 1;
    range_->setText(tr("range %1 - %2 s: building its flame graph...").arg(t0, 0, 'f', 2).arg(t1, 0, 'f', 2));
    // The trees are built on a worker thread from the run's rows, which
    // nothing changes (a live update brings a new RunData).
    range_watcher_.setFuture(QtConcurrent::run([run = run_, event = event_, stacks, t0, t1,
                                                transmit = transmit_, generation] {
        Range r;
        r.generation = generation;
        if (stacks) {
            const analysis::FlameTree tree = analysis::stack_tree_in_range(*run, event, t0, t1);
            (void)analysis::stage_tree_in_range(*run, t0, t1, &r.intervals);
            r.tree = std::make_shared<analysis::FlameDiff>(analysis::diff_trees(tree, tree));
            r.title = tr("Sampled stacks (%1) from %2 s to %3 s: %4 samples")
                          .arg(display_text(event))
                          .arg(t0, 0, 'f', 2)
                          .arg(t1, 0, 'f', 2)
                          .arg(tree.size() > 0 ? tree.total(0) : 0.0);
        } else {
            const analysis::FlameTree tree = analysis::stage_tree_in_range(*run, t0, t1, &r.intervals);
            r.tree = std::make_shared<analysis::FlameDiff>(analysis::diff_trees(tree, tree));
            r.title = (transmit ? tr("Stage cycles from %1 s to %2 s (%3 intervals), per sent datagram")
                                : tr("Stage cycles from %1 s to %2 s (%3 intervals), per received packet"))
                          .arg(t0, 0, 'f', 2)
                          .arg(t1, 0, 'f', 2)
                          .arg(r.intervals);
        }
        return r;
    }));
}

void TimeSeriesPage::wait_for_range() {
    range_watcher_.waitForFinished();
    QCoreApplication::processEvents();
}

void TimeSeriesPage::show_range(const Range& r) {
    if (r.generation != range_generation_) return;  // a newer range was asked for
    const bool stacks = tree_->currentIndex() == 1;
    flame_->set_diff(r.tree, false,
                     stacks ? tr("share of samples") : QString::fromLatin1(analysis::cycles_per_path_packet(transmit_)),
                     r.title);
    range_->setText(tr("range %1 - %2 s: %3 intervals").arg(t0_, 0, 'f', 2).arg(t1_, 0, 'f', 2).arg(r.intervals));
}

QString TimeSeriesPage::range_text() const { return range_->text(); }

}  // namespace pathscope::gui
