#include "gui/widgets/path_graph_widget.h"
#include "gui/display_text.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace pathscope::gui {

namespace {

constexpr double kMargin = 16;
constexpr double kNodeHeight = 60;
constexpr double kMaxEdgeWidth = 16;

QColor colour(analysis::FlameRgb c) { return QColor(c.r, c.g, c.b); }

/// 1234567 -> "1.23M": packets in the width of a box or between two.
QString compact(uint64_t n) {
    const double v = static_cast<double>(n);
    if (v >= 1e9) return QStringLiteral("%1G").arg(v / 1e9, 0, 'f', 2);
    if (v >= 1e6) return QStringLiteral("%1M").arg(v / 1e6, 0, 'f', 2);
    if (v >= 1e4) return QStringLiteral("%1k").arg(v / 1e3, 0, 'f', 1);
    return QString::number(n);
}

/// A drop reason's node shows the reason alone ("drop: " is where it hangs).
QString shown_name(const analysis::PathNode& n) {
    QString name = display_text(n.name);
    if (n.kind == analysis::PathNode::Kind::reason && name.startsWith(QLatin1String("drop: "))) name.remove(0, 6);
    return name;
}

}  // namespace

PathGraphWidget::PathGraphWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void PathGraphWidget::set_graph(std::shared_ptr<const analysis::PathGraph> g) {
    graph_ = std::move(g);
    rows_ = 0;
    if (graph_) {
        std::vector<int> per_layer(static_cast<size_t>(std::max(1, graph_->layers)), 0);
        for (const auto& n : graph_->nodes) rows_ = std::max(rows_, ++per_layer[static_cast<size_t>(n.layer)]);
    }
    updateGeometry();
    update();
}

QSize PathGraphWidget::sizeHint() const {
    if (!graph_) return {600, 300};
    return {static_cast<int>(graph_->layers * 170 + 2 * kMargin),
            static_cast<int>(rows_ * (kNodeHeight + 24) + 2 * kMargin)};
}

QSize PathGraphWidget::minimumSizeHint() const { return {400, 240}; }

QRectF PathGraphWidget::node_rect(int i) const {
    if (!graph_ || i < 0 || i >= static_cast<int>(graph_->nodes.size())) return {};
    const analysis::PathNode& n = graph_->nodes[static_cast<size_t>(i)];
    const double pitch_x = (width() - 2 * kMargin) / std::max(1, graph_->layers);
    const double pitch_y = (height() - 2 * kMargin) / std::max(1, rows_);
    // Room between boxes for the edges; the last layer (delivery, the wire,
    // drop reasons) has nothing to its right and takes the margin too.
    const bool last = n.layer + 1 >= graph_->layers;
    const double w = last ? pitch_x + kMargin - 8 : std::min(190.0, pitch_x * 0.86);
    const double h = std::min(kNodeHeight, pitch_y * 0.85);
    const double x = kMargin + n.layer * pitch_x + (last ? 4 : (pitch_x - w) / 2);
    const double y = kMargin + n.row * pitch_y + (pitch_y - h) / 2;
    return {x, y, w, h};
}

int PathGraphWidget::node_at(QPointF p) const {
    if (!graph_) return -1;
    for (int i = 0; i < static_cast<int>(graph_->nodes.size()); ++i)
        if (node_rect(i).contains(p)) return i;
    return -1;
}

double PathGraphWidget::edge_width(const analysis::PathEdge& e) const {
    uint64_t most = 1;
    for (const auto& o : graph_->edges) most = std::max(most, o.packets);
    return 1.0 + (kMaxEdgeWidth - 1.0) * static_cast<double>(e.packets) / static_cast<double>(most);
}

void PathGraphWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    if (!graph_ || graph_->nodes.empty()) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(rect().adjusted(20, 0, -20, 0), Qt::AlignCenter | Qt::TextWordWrap,
                   !empty_text_.isEmpty()
                       ? empty_text_
                       : tr("No edge counters in this run (captured before the Path page, or an "
                            "import): capture it again to draw its path."));
        return;
    }
    QFont small = font();
    small.setPointSizeF(std::max(6.5, font().pointSizeF() - 1.5));
    // Edges first, under the boxes: a curve from the right side of one box to
    // the left side of the next; one that goes back (the neighbour table
    // releasing held packets) loops below.
    for (const auto& e : graph_->edges) {
        const QRectF a = node_rect(e.from), b = node_rect(e.to);
        QPainterPath path;
        QPointF label_at;
        if (graph_->nodes[static_cast<size_t>(e.to)].layer > graph_->nodes[static_cast<size_t>(e.from)].layer) {
            const QPointF s(a.right(), a.center().y()), t(b.left(), b.center().y());
            const double dx = (t.x() - s.x()) / 2;
            path.moveTo(s);
            path.cubicTo(s + QPointF(dx, 0), t - QPointF(dx, 0), t);
            label_at = path.pointAtPercent(0.5);
        } else {
            const QPointF s(a.center().x(), a.bottom()), t(b.center().x(), b.bottom());
            const double drop = 30;
            path.moveTo(s);
            path.cubicTo(s + QPointF(0, drop), t + QPointF(0, drop), t);
            label_at = path.pointAtPercent(0.5);
        }
        QColor c = colour(e.colour);
        c.setAlpha(170);
        p.setPen(QPen(c, edge_width(e), Qt::SolidLine, Qt::FlatCap));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        QString label = compact(e.packets);
        if (e.compared && !e.noise && std::isfinite(e.relative))
            label += QStringLiteral(" (%1%2%)").arg(e.relative >= 0 ? "+" : "").arg(e.relative * 100, 0, 'f', 1);
        p.setFont(small);
        const QRectF box = p.fontMetrics().boundingRect(label).adjusted(-2, 0, 2, 0);
        const QRectF at(label_at.x() - box.width() / 2, label_at.y() - box.height() / 2, box.width(), box.height());
        // A label that would sit on a box is left to the tooltips.
        bool covered = false;
        for (int k = 0; k < static_cast<int>(graph_->nodes.size()) && !covered; ++k)
            covered = node_rect(k).intersects(at);
        if (covered) continue;
        p.fillRect(at, QColor(255, 255, 255, 200));
        p.setPen(QColor(0x30, 0x30, 0x30));
        p.drawText(at, Qt::AlignCenter, label);
    }
    for (int i = 0; i < static_cast<int>(graph_->nodes.size()); ++i) {
        const analysis::PathNode& n = graph_->nodes[static_cast<size_t>(i)];
        const QRectF r = node_rect(i);
        p.setPen(QPen(QColor(0x50, 0x50, 0x50), 1));
        p.setBrush(colour(n.colour));
        const double radius = n.kind == analysis::PathNode::Kind::stage ? 6 : std::min(14.0, r.height() / 2);
        p.drawRoundedRect(r, radius, radius);
        QStringList lines{shown_name(n)};
        if (n.kind == analysis::PathNode::Kind::stage) {
            // Compared: the figure the change below is of.
            if (graph_->comparison)
                lines << tr("%1 %2").arg(n.cycles_per_path_packet, 0, 'f',
                                         n.cycles_per_path_packet >= 100 ? 0 : 1)
                             .arg(QString::fromStdString(graph_->path_unit));
            else
                lines << tr("%1 cyc/pkt").arg(n.cycles_per_packet, 0, 'f', n.cycles_per_packet >= 100 ? 0 : 1);
            if (n.compared && std::isfinite(n.relative))
                lines << tr("%1%2%%3").arg(n.relative >= 0 ? "+" : "").arg(n.relative * 100, 0, 'f', 1)
                              .arg(!n.noise ? QString()
                                   : n.unjudged.empty() ? tr(" noise")
                                                        : " " + QString::fromStdString(n.unjudged));
            else
                lines << tr("%1% cycles").arg(n.share * 100, 0, 'f', 1);
        }
        lines << tr("%1 pkts").arg(compact(n.packets));
        QFont bold = small;
        bold.setBold(true);
        const double line_h = QFontMetricsF(small).height();
        double y = r.center().y() - line_h * static_cast<double>(lines.size()) / 2;
        p.setPen(QColor(0x10, 0x10, 0x10));
        for (int k = 0; k < lines.size(); ++k, y += line_h) {
            p.setFont(k == 0 ? bold : small);
            const QString text = p.fontMetrics().elidedText(lines[k], Qt::ElideRight, static_cast<int>(r.width() - 6));
            p.drawText(QRectF(r.left() + 3, y, r.width() - 6, line_h), Qt::AlignCenter, text);
        }
    }
}

QString PathGraphWidget::tooltip(int i) const {
    if (!graph_ || i < 0) return {};
    const analysis::PathNode& n = graph_->nodes[static_cast<size_t>(i)];
    QString t = QStringLiteral("<b>%1</b>: %2 packets").arg(display_html(n.name)).arg(n.packets);
    if (n.kind == analysis::PathNode::Kind::stage)
        t += tr("<br>%1 busy cycles per packet, %2% of all stages' cycles")
                 .arg(n.cycles_per_packet, 0, 'f', 1).arg(n.share * 100, 0, 'f', 1);
    for (const auto& e : graph_->edges) {
        if (e.to == i)
            t += tr("<br>from %1: %2 packets").arg(display_html(graph_->nodes[static_cast<size_t>(e.from)].name)).arg(e.packets);
        if (e.from == i)
            t += tr("<br>to %1: %2 packets").arg(display_html(graph_->nodes[static_cast<size_t>(e.to)].name)).arg(e.packets);
    }
    return t;
}

bool PathGraphWidget::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = tooltip(node_at(help->pos()));
        if (text.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

void PathGraphWidget::mouseReleaseEvent(QMouseEvent* e) {
    const int i = node_at(e->position());
    if (i < 0 || !graph_ || graph_->nodes[static_cast<size_t>(i)].kind != analysis::PathNode::Kind::stage) return;
    emit stage_clicked(display_text(graph_->nodes[static_cast<size_t>(i)].name));
}

}  // namespace pathscope::gui
