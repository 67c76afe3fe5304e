#include "gui/pages/queues_page.h"
#include "analysis/figures/sampled_stages.h"
#include "gui/display_text.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QVBoxLayout>
#include <set>

#include "analysis/figures/run_summary.h"
#include "gui/widgets/histogram_widget.h"

namespace pathscope::gui {

namespace {
constexpr int kRow = 20;
}

QueueBars::QueueBars(QWidget* parent) : QWidget(parent) {}

QString QueueBars::heading(const analysis::QueueSkew& s) {
    // As the text report heads it.
    return display_text(analysis::queue_heading(s));
}

QString QueueBars::figures(const analysis::QueueShare& q) {
    return tr("%1 packets  %2%  %3 bursts (%4 packets/burst)")
        .arg(q.packets)
        .arg(q.share * 100, 0, 'f', 2)
        .arg(q.bursts)
        .arg(q.bursts ? double(q.packets) / double(q.bursts) : 0.0, 0, 'f', 1);
}

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
    const int label_w = 90, bar_x = label_w + 8, text_w = 420,
              bar_w = std::max(100, width() - bar_x - text_w - 10);
    if (skew_.empty())
        p.drawText(rect().adjusted(20, 0, -20, 0), Qt::AlignCenter | Qt::TextWordWrap,
                   empty_text_.isEmpty() ? tr("no queue counters in this run") : empty_text_);
    for (const auto& s : skew_) {
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(s.skewed ? QColor(0xb0, 0x30, 0x20) : palette().text().color());
        p.drawText(QRect(4, y, width() - 8, kRow), Qt::AlignVCenter, heading(s));
        p.setFont(font());
        y += kRow;
        for (const auto& q : s.queues) {
            p.setPen(palette().text().color());
            p.drawText(QRect(4, y, label_w, kRow), Qt::AlignVCenter | Qt::AlignRight,
                       tr("queue %1").arg(q.queue));
            p.fillRect(QRect(bar_x, y + 3, bar_w, kRow - 6), QColor(0xee, 0xee, 0xee));
            p.fillRect(QRectF(bar_x, y + 3, bar_w * q.share, kRow - 6),
                       s.skewed && q.share > 0.5 ? QColor(0xd0, 0x50, 0x30) : QColor(0x40, 0x80, 0xc0));
            p.drawText(QRect(bar_x + bar_w + 8, y, text_w, kRow), Qt::AlignVCenter, figures(q));
            y += kRow;
        }
        if (s.skewed) {
            p.setPen(QColor(0xb0, 0x30, 0x20));
            p.drawText(QRect(bar_x, y, width() - bar_x, kRow), Qt::AlignVCenter,
                       display_text(s.flag));
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
    queue_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    note_ = new QLabel;
    note_->setWordWrap(true);
    // The receive queues' burst sizes; hidden, with a note saying why, when
    // the run has none (a run that only sent).
    burst_box_ = new QWidget;
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("burst sizes of receive queue")));
    bar->addWidget(queue_);
    bar->addStretch(1);
    auto* box = new QVBoxLayout(burst_box_);
    box->setContentsMargins(0, 0, 0, 0);
    box->addLayout(bar);
    box->addWidget(bursts_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    layout->addWidget(note_);
    layout->addWidget(burst_box_, 1);
    connect(queue_, &QComboBox::currentIndexChanged, this, &QueuesPage::redraw_bursts);
}

void QueuesPage::set_run(std::shared_ptr<const db::RunData> run) {
    run_ = std::move(run);
    bars_->set_skew(run_ ? analysis::queue_skew(run_->rows.queues) : std::vector<analysis::QueueSkew>{});
    // A Linux run has none to show: the kernel does not count them.
    bars_->set_empty_text(run_ && analysis::sampled_stages(*run_) ? display_text(analysis::kKernelAbsent)
                                                                  : QString());
    const QSignalBlocker block(queue_);
    queue_->clear();
    if (run_) {
        std::set<std::string> subjects;
        for (const auto& h : run_->rows.histograms)
            if (h.kind == db::kRxBurstSize) subjects.insert(h.subject);
        for (const auto& s : subjects)
            if (!s.empty()) queue_->addItem(display_text(s));
    }
    const bool any_bursts = queue_->count() > 0;
    bool receives = false, sends = false;
    for (const auto& s : bars_->skew()) (s.dir == "rx" ? receives : sends) = true;
    burst_box_->setVisible(any_bursts);
    note_->setVisible(!any_bursts && run_);
    if (!receives && sends)
        note_->setText(tr("This run only sent: above are its transmit (tx) queues, each with the "
                          "packets it sent and its bursts (transmit calls that sent packets). "
                          "Receive burst sizes are charted for receive queues only."));
    else
        note_->setText(tr("No receive burst sizes were recorded in this run."));
    redraw_bursts();
}

void QueuesPage::redraw_bursts() {
    std::vector<HistogramWidget::Series> series;
    const std::string subject = queue_->currentText().toStdString();
    if (run_ && !subject.empty()) {
        series.push_back({display_text(subject),
                          analysis::merged_histogram(*run_, db::kRxBurstSize, subject),
                          QColor(0x40, 0x80, 0xc0)});
    }
    bursts_->set_series(std::move(series), tr("packets per burst"),
                        subject.empty() ? QString()
                                        : tr("Burst sizes of receive queue %1 (polls that "
                                             "returned packets)")
                                              .arg(display_text(subject)),
                        tr("polls"));
}

QString QueuesPage::note() const { return note_->isHidden() ? QString() : note_->text(); }
QString QueuesPage::bursts_title() const { return bursts_->title(); }
bool QueuesPage::bursts_shown() const { return !burst_box_->isHidden(); }

}  // namespace pathscope::gui
