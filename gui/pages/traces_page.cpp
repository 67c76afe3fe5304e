#include "gui/pages/traces_page.h"
#include "gui/display_text.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "analysis/trees/flame_layout.h"
#include "analysis/figures/packet_decode.h"
#include "gui/widgets/flame_graph_widget.h"

namespace pathscope::gui {

TraceTableModel::TraceTableModel(QObject* parent) : QAbstractTableModel(parent) {}

bool TraceTableModel::set_rows(std::shared_ptr<const TraceRows> rows) {
    if (rows && rows_ && rows->extends(*rows_)) {
        const int from = static_cast<int>(rows_->size()), to = static_cast<int>(rows->size());
        if (to > from) beginInsertRows({}, from, to - 1);
        rows_ = std::move(rows);
        if (to > from) endInsertRows();
        return true;
    }
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
    return false;
}

const db::PacketTraceRow* TraceTableModel::trace(int row) const {
    if (!rows_ || row < 0 || static_cast<size_t>(row) >= rows_->size()) return nullptr;
    return &rows_->trace(static_cast<size_t>(row));
}

int TraceTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !rows_ ? 0 : static_cast<int>(rows_->size());
}

int TraceTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TraceTableModel::data(const QModelIndex& index, int role) const {
    const db::PacketTraceRow* t = index.isValid() ? trace(index.row()) : nullptr;
    if (!t) return {};
    if (role == Qt::DisplayRole || role == SortRole) {
        const double cycles = rows_->cycles[static_cast<size_t>(index.row())];
        switch (index.column()) {
            case Time: return role == SortRole ? QVariant(t->t) : QString::number(t->t, 'f', 4);
            case Trial: return t->trial;
            case Port: return display_text(t->port);
            case Length: return t->wire_len;
            case Cycles: return role == SortRole ? QVariant(cycles) : QString::number(cycles, 'f', 1);
            case Outcome: return display_text(t->outcome);
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != Port && index.column() != Outcome)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant TraceTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"time (s)", "trial", "port", "length (bytes)", "cycles",
                                  "outcome"};
    return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

Waterfall::Waterfall(QWidget* parent) : QWidget(parent) { setMinimumHeight(120); }

void Waterfall::set_trace(const db::PacketTraceRow* t) {
    stages_ = t ? t->stage_cycles : decltype(stages_){};
    outcome_ = t ? display_text(t->outcome) : QString();
    setMinimumHeight(sizeHint().height());
    update();
}

QSize Waterfall::sizeHint() const { return {600, 30 + 20 * static_cast<int>(stages_.size() + 1)}; }

void Waterfall::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (stages_.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("select a packet"));
        return;
    }
    double total = 0;
    for (const auto& s : stages_) total += s.second;
    const int label_w = 110, x0 = label_w + 6, w = std::max(100, width() - x0 - 110);
    double at = 0;
    int y = 6;
    for (const auto& [stage, c] : stages_) {
        p.setPen(palette().text().color());
        p.drawText(QRect(2, y, label_w, 18), Qt::AlignRight | Qt::AlignVCenter,
                   display_text(stage));
        const QRectF bar(x0 + at / total * w, y + 2, std::max(1.0, c / total * w), 14);
        p.fillRect(bar, qcolour(analysis::name_colour(stage)));  // as in the flame graphs
        p.drawText(QRectF(bar.right() + 4, y, 100, 18), Qt::AlignVCenter,
                   QStringLiteral("%1 cycles").arg(c, 0, 'f', 1));
        at += c;
        y += 20;
    }
    p.drawText(QRect(2, y + 4, width() - 4, 18), Qt::AlignVCenter,
               tr("%1 cycles in all (each stage: the packet's share of its call); %2")
                   .arg(total, 0, 'f', 1)
                   .arg(outcome_));
}

TracesPage::TracesPage(QWidget* parent) : QWidget(parent) {
    model_ = new TraceTableModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(TraceTableModel::SortRole);
    proxy_->setFilterKeyColumn(TraceTableModel::Outcome);
    view_ = new QTableView;
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->verticalHeader()->hide();
    view_->horizontalHeader()->setStretchLastSection(true);
    outcome_ = new QComboBox;
    waterfall_ = new Waterfall;
    headers_ = new QPlainTextEdit;
    headers_->setReadOnly(true);
    headers_->setFont(QFont(QStringLiteral("DejaVu Sans Mono")));
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("outcome")));
    bar->addWidget(outcome_);
    bar->addStretch(1);
    auto* detail = new QWidget;
    auto* detail_layout = new QVBoxLayout(detail);
    detail_layout->setContentsMargins(0, 0, 0, 0);
    detail_layout->addWidget(waterfall_);
    detail_layout->addWidget(headers_);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(view_);
    split->addWidget(detail);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(split, 1);
    connect(outcome_, &QComboBox::currentIndexChanged, this, [this](int i) {
        proxy_->setFilterFixedString(i <= 0 ? QString() : outcome_->itemText(i));
    });
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &TracesPage::selected);
}

void TracesPage::set_run(std::shared_ptr<const TraceRows> rows) {
    const TraceRows* before = model_->rows();
    const bool same_run = before && before->run && rows && rows->run &&
                          before->run->info.id == rows->run->info.id;
    const std::vector<std::string> offered = before ? before->outcomes : std::vector<std::string>{};
    // Another run is shown in time order: unsorted first, so that the model's
    // reset does not sort its rows by the old column only to sort them again.
    if (!same_run) proxy_->sort(-1);
    const bool extended = model_->set_rows(rows);
    const std::vector<std::string> outcomes =
        rows ? rows->outcomes : std::vector<std::string>{};
    if (extended) {  // a live update: the filter, sort, selection and scroll stay
        if (outcomes != offered) offer(outcomes);
        return;
    }
    if (same_run) {  // the run's traces changed under the rows shown: keep the choice
        if (!offer(outcomes)) proxy_->setFilterFixedString({});
    } else {
        const QSignalBlocker block(outcome_);
        offer(outcomes);
        outcome_->setCurrentIndex(0);
        proxy_->setFilterFixedString({});
        view_->sortByColumn(TraceTableModel::Time, Qt::AscendingOrder);
    }
    waterfall_->set_trace(nullptr);
    headers_->clear();
    if (proxy_->rowCount()) view_->selectRow(0);
}

// Fills the outcome box with "all" and `outcomes`, keeping the one chosen
// when it is still offered (returns false when it is not).
bool TracesPage::offer(const std::vector<std::string>& outcomes) {
    const QString chosen = outcome_->currentIndex() > 0 ? outcome_->currentText() : QString();
    const QSignalBlocker block(outcome_);
    outcome_->clear();
    outcome_->addItem(tr("all"));
    for (const auto& o : outcomes) outcome_->addItem(display_text(o));
    const int i = chosen.isEmpty() ? 0 : outcome_->findText(chosen, Qt::MatchExactly);
    outcome_->setCurrentIndex(std::max(0, i));
    return i >= 0;
}

void TracesPage::filter(const QString& text) {
    const int i = outcome_->findText(text, Qt::MatchContains);
    if (text.isEmpty() || i < 0) {
        outcome_->setCurrentIndex(0);
        proxy_->setFilterFixedString(text);  // still filter on what was asked
    } else {
        outcome_->setCurrentIndex(i);
    }
    if (proxy_->rowCount()) view_->selectRow(0);
}

void TracesPage::selected() {
    const QModelIndexList rows = view_->selectionModel()->selectedRows();
    const db::PacketTraceRow* t =
        rows.isEmpty() ? nullptr : model_->trace(proxy_->mapToSource(rows.first()).row());
    waterfall_->set_trace(t);
    headers_->clear();
    if (!t) return;
    QStringList lines;
    for (const auto& l : analysis::decode_frame(t->data, t->wire_len))
        lines << display_text(l);
    headers_->setPlainText(lines.join('\n'));
}

}  // namespace pathscope::gui
