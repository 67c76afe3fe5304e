#include "gui/pages/queues_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QVBoxLayout>
#include <set>

#include "analysis/run_summary.h"
#include "gui/widgets/histogram_widget.h"

namespace pathscope::gui {

namespace {
constexpr int kRow = 20;
}

QueueBars::QueueBars(QWidget* parent) : QWidget(parent) {}

void QueueBars::set_skew(std::vector<analysis::QueueSkew> skew) {
    skew_ = std::move(skew);
    updateGeometry();
    setMinimumHeight(sizeHint().height());
    update();
}

QSize QueueBars::sizeHint() const {
    int rows = 0;
    for (const auto& s : skew_) rows += 2 + static_cast<int>(s.queues.size()) + (s.skewed ? 1 : 0);
    return {700, std::max(1, rows) * kRow + 8};
}

void QueueBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QFontMetrics fm(font());
    int y = 4;
    const int label_w = 90, bar_x = label_w + 8, bar_w = std::max(100, width() - bar_x - 220);
    if (skew_.empty()) p.drawText(rect(), Qt::AlignCenter, tr("no queue counters in this run"));
    for (const auto& s : skew_) {
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(s.skewed ? QColor(0xb0, 0x30, 0x20) : palette().text().color());
        p.drawText(QRect(4, y, width() - 8, kRow), Qt::AlignVCenter,
                   tr("%1 %2: %3 queues, max/mean %4, Jain's index %5%6")
                       .arg(QString::fromStdString(s.port), QString::fromStdString(s.dir))
                       .arg(s.queues.size())
                       .arg(s.max_over_mean, 0, 'f', 2)
                       .arg(s.jain, 0, 'f', 3)
                       .arg(s.skewed ? tr("  SKEWED") : QString()));
        p.setFont(font());
        y += kRow;
        for (const auto& q : s.queues) {
            p.setPen(palette().text().color());
            p.drawText(QRect(4, y, label_w, kRow), Qt::AlignVCenter | Qt::AlignRight,
                       tr("queue %1").arg(q.queue));
            p.fillRect(QRect(bar_x, y + 3, bar_w, kRow - 6), QColor(0xee, 0xee, 0xee));
            p.fillRect(QRectF(bar_x, y + 3, bar_w * q.share, kRow - 6),
                       s.skewed && q.share > 0.5 ? QColor(0xd0, 0x50, 0x30) : QColor(0x40, 0x80, 0xc0));
            p.drawText(QRect(bar_x + bar_w + 8, y, 210, kRow), Qt::AlignVCenter,
                       tr("%1 packets  %2%").arg(q.packets).arg(q.share * 100, 0, 'f', 2));
            y += kRow;
        }
        if (s.skewed) {
            p.setPen(QColor(0xb0, 0x30, 0x20));
            p.drawText(QRect(bar_x, y, width() - bar_x, kRow), Qt::AlignVCenter,
                       QString::fromStdString(s.flag));
            y += kRow;
        }
        y += kRow;
    }
}

QueuesPage::QueuesPage(QWidget* parent) : QWidget(parent) {
    bars_ = new QueueBars;
    queue_ = new QComboBox;
    bursts_ = new HistogramWidget;
    auto* scroll = new QScrollArea;
    scroll->setWidget(bars_);
    scroll->setWidgetResizable(true);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("burst sizes of receive queue")));
    bar->addWidget(queue_);
    bar->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    layout->addLayout(bar);
    layout->addWidget(bursts_, 1);
    connect(queue_, &QComboBox::currentIndexChanged, this, &QueuesPage::redraw_bursts);
}

void QueuesPage::set_run(std::shared_ptr<const db::RunData> run) {
    run_ = std::move(run);
    bars_->set_skew(run_ ? analysis::queue_skew(run_->rows.queues) : std::vector<analysis::QueueSkew>{});
    const QSignalBlocker block(queue_);
    queue_->clear();
    if (run_) {
        std::set<std::string> subjects;
        for (const auto& h : run_->rows.histograms)
            if (h.kind == db::kRxBurstSize) subjects.insert(h.subject);
        for (const auto& s : subjects) queue_->addItem(QString::fromStdString(s));
    }
    redraw_bursts();
}

void QueuesPage::redraw_bursts() {
    std::vector<HistogramWidget::Series> series;
    const std::string subject = queue_->currentText().toStdString();
    if (run_ && !subject.empty()) {
        series.push_back({QString::fromStdString(subject),
                          analysis::merged_histogram(*run_, db::kRxBurstSize, subject),
                          QColor(0x40, 0x80, 0xc0)});
    }
    bursts_->set_series(std::move(series), tr("packets per burst"),
                        tr("Burst sizes of %1 (polls that returned packets)")
                            .arg(QString::fromStdString(subject)),
                        tr("polls"));
}

}  // namespace pathscope::gui
