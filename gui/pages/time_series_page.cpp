#include "gui/pages/time_series_page.h"

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
#include <QVBoxLayout>
#include <algorithm>

#include "analysis/metric_names.h"
#include "analysis/run_metrics.h"
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
    tree_->addItem(tr("stage cycles (exact counters)"));
    tree_->addItem(tr("sampled stacks"));
    connect(tree_, &QComboBox::currentIndexChanged, this, [this] { select_range(t0_, t1_); });
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

void TimeSeriesPage::set_run(std::shared_ptr<const db::RunData> run) {
    run_ = std::move(run);
    series_ = run_ ? analysis::time_series(*run_) : analysis::TimeSeries{};
    transmit_ = run_ && analysis::packet_basis(run_->rows.trials).transmit;
    const QString per_packet = QString::fromLatin1(analysis::cycles_per_path_packet(transmit_));
    event_ = run_ ? analysis::main_stack_event(*run_) : std::string();
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
        for (const auto& p : series_.points) {
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
    for (size_t i = 1; i < series_.trial_starts.size(); ++i) {  // trial boundaries
        auto* b = new QLineSeries;
        b->setName(i == 1 ? tr("trial boundary") : QString());
        b->setPen(QPen(Qt::gray, 1, Qt::DashLine));
        b->append(series_.trial_starts[i], 0);
        b->append(series_.trial_starts[i], top_rate * 1.1);
        chart_->addSeries(b);
        b->attachAxis(x);
        b->attachAxis(rate);
    }
    for (QLegendMarker* m : chart_->legend()->markers())
        if (m->label().isEmpty()) m->setVisible(false);
    x->setRange(0, std::max(end, 0.1));
    rate->setRange(0, std::max(top_rate * 1.1, 0.001));
    cycles->setRange(0, std::max(top_cycles * 1.1, 1.0));
    chart_->setTitle(run_ ? tr("Per interval, run %1").arg(run_->info.id) : QString());
    if (run_ && end > 0) select_range(0, end);
}

void TimeSeriesPage::show_stacks(bool stacks) { tree_->setCurrentIndex(stacks ? 1 : 0); }

void TimeSeriesPage::select_range(double t0, double t1) {
    if (!run_) return;
    t0_ = t0;
    t1_ = t1;
    int n = 0;
    const analysis::FlameTree stages = analysis::stage_tree_in_range(*run_, t0, t1, &n);
    if (tree_->currentIndex() == 1) {
        const analysis::FlameTree stacks = analysis::stack_tree_in_range(*run_, event_, t0, t1);
        flame_->set_diff(std::make_shared<analysis::FlameDiff>(analysis::diff_trees(stacks, stacks)),
                         false, tr("share of samples"),
                         tr("Sampled stacks (%1) from %2 s to %3 s: %4 samples")
                             .arg(QString::fromStdString(event_))
                             .arg(t0, 0, 'f', 2)
                             .arg(t1, 0, 'f', 2)
                             .arg(stacks.size() > 0 ? stacks.total(0) : 0.0));
    } else {
        flame_->set_diff(std::make_shared<analysis::FlameDiff>(analysis::diff_trees(stages, stages)),
                         false, QString::fromLatin1(analysis::cycles_per_path_packet(transmit_)),
                         (transmit_ ? tr("Stage cycles from %1 s to %2 s (%3 intervals), per sent datagram")
                                    : tr("Stage cycles from %1 s to %2 s (%3 intervals), per received packet"))
                             .arg(t0, 0, 'f', 2)
                             .arg(t1, 0, 'f', 2)
                             .arg(n));
    }
    range_->setText(tr("range %1 - %2 s: %3 intervals").arg(t0, 0, 'f', 2).arg(t1, 0, 'f', 2).arg(n));
}

QString TimeSeriesPage::range_text() const { return range_->text(); }

}  // namespace pathscope::gui
