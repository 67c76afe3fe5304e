#include "gui/widgets/flame_graph_widget.h"
#include "gui/display_text.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QFutureWatcher>
#include <QToolTip>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <functional>

namespace pathscope::gui {

FlameGraphWidget::FlameGraphWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(kRow * 4);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void FlameGraphWidget::set_diff(std::shared_ptr<const analysis::FlameDiff> diff,
                                bool differential, const QString& unit) {
    // The frame zoomed into stays zoomed when the new tree has it (a live
    // run's next update), found by its call path.
    std::vector<std::string> zoomed;
    for (int n = root_; diff_ && n > 0; n = diff_->nodes[static_cast<size_t>(n)].parent)
        zoomed.insert(zoomed.begin(), diff_->nodes[static_cast<size_t>(n)].name);
    diff_ = std::move(diff);
    differential_ = differential;
    unit_ = unit;
    root_ = 0;
    for (const std::string& name : zoomed) {
        if (!diff_) break;
        int next = -1;
        for (int k : diff_->nodes[static_cast<size_t>(root_)].children)
            if (diff_->nodes[static_cast<size_t>(k)].name == name) next = k;
        if (next < 0) {
            root_ = 0;
            break;
        }
        root_ = next;
    }
    back_.clear();
    forward_.clear();
    relayout();
}

void FlameGraphWidget::relayout() {
    layout_ = {};
    search_ = {};
    if (diff_) {
        analysis::FlameLayoutOptions opt;
        opt.root = root_;
        opt.differential = differential_;
        opt.min_fraction = min_fraction_;
        layout_ = analysis::layout_flame(*diff_, opt);
        if (!pattern_.isEmpty())
            search_ = analysis::search_flame(*diff_, pattern_.toStdString(), regex_, opt);
    }
    rows_.assign(static_cast<size_t>(std::max(0, layout_.depth)) + 1, {});
    for (size_t i = 0; i < layout_.rects.size(); ++i) {
        const auto d = static_cast<size_t>(layout_.rects[i].depth);
        if (d >= rows_.size()) rows_.resize(d + 1);
        rows_[d].push_back(static_cast<int>(i));
    }
    for (auto& row : rows_)
        std::stable_sort(row.begin(), row.end(), [this](int a, int b) {
            return layout_.rects[static_cast<size_t>(a)].x < layout_.rects[static_cast<size_t>(b)].x;
        });
    // A search still on its way was for the old zoom or tree: run it again.
    ++search_generation_;
    if (search_pending_) search_async(pending_pattern_, pending_regex_);
    setMinimumHeight(std::max(4, layout_.depth + 1) * kRow);
    updateGeometry();
    update();
}

void FlameGraphWidget::zoom_to(int node) {
    if (!diff_ || node < 0 || static_cast<size_t>(node) >= diff_->nodes.size() || node == root_)
        return;
    back_.push_back(root_);
    forward_.clear();
    root_ = node;
    relayout();
    emit zoomed(root_);
}

bool FlameGraphWidget::back() {
    if (back_.empty()) return false;
    forward_.push_back(root_);
    root_ = back_.back();
    back_.pop_back();
    relayout();
    emit zoomed(root_);
    return true;
}

bool FlameGraphWidget::forward() {
    if (forward_.empty()) return false;
    back_.push_back(root_);
    root_ = forward_.back();
    forward_.pop_back();
    relayout();
    emit zoomed(root_);
    return true;
}

QStringList FlameGraphWidget::breadcrumb() const {
    QStringList path;
    if (!diff_) return path;
    for (int n = root_; n >= 0; n = diff_->nodes[static_cast<size_t>(n)].parent)
        path.prepend(n == 0 ? QStringLiteral("all")
                            : display_text(diff_->nodes[static_cast<size_t>(n)].name));
    return path;
}

double FlameGraphWidget::set_search(const QString& pattern, bool regex) {
    search_pending_ = false;
    pattern_ = pattern;
    regex_ = regex;
    relayout();
    return search_.share;
}

namespace {
struct SearchResult {
    analysis::FlameSearch search;
    bool ok = false;  ///< false: the regular expression was refused
};
}  // namespace

void FlameGraphWidget::search_async(const QString& pattern, bool regex) {
    const uint64_t generation = ++search_generation_;
    search_pending_ = true;
    pending_pattern_ = pattern;
    pending_regex_ = regex;
    analysis::FlameLayoutOptions opt;
    opt.root = root_;
    opt.differential = differential_;
    opt.min_fraction = min_fraction_;
    auto* watcher = new QFutureWatcher<SearchResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, pattern, regex] {
        watcher->deleteLater();
        if (generation != search_generation_) return;  // stale: something newer came first
        const SearchResult r = watcher->result();
        search_pending_ = false;
        pattern_ = r.ok ? pattern : QString();
        regex_ = regex;
        search_ = r.search;
        update();
        emit searched(r.ok);
    });
    // The worker holds its own reference to the tree: a new one may replace it meanwhile.
    watcher->setFuture(QtConcurrent::run([diff = diff_, p = pattern.toStdString(), regex, opt] {
        SearchResult r;
        if (!diff || p.empty()) {
            r.ok = true;
            return r;
        }
        try {
            r.search = analysis::search_flame(*diff, p, regex, opt);
            r.ok = true;
        } catch (const std::exception&) {  // an unfinished regular expression
        }
        return r;
    }));
}

void FlameGraphWidget::set_colours(Colours c) {
    colours_ = c;
    update();
}

void FlameGraphWidget::set_min_fraction(double f) {
    min_fraction_ = f;
    relayout();
}

QRectF FlameGraphWidget::geometry(const analysis::FlameRect& r) const {
    const double w = width();
    return QRectF(r.x * w, r.depth * kRow, std::max(0.5, r.width * w - 1), kRow - 1);
}

int FlameGraphWidget::nodeAt(const QPoint& pos) const {
    // The row from y, then the last frame starting at or left of x.
    if (pos.y() < 0 || width() <= 0) return -1;
    const auto depth = static_cast<size_t>(pos.y() / kRow);
    if (depth >= rows_.size()) return -1;
    const std::vector<int>& row = rows_[depth];
    const double x = double(pos.x()) / width();
    const auto after = std::upper_bound(row.begin(), row.end(), x, [this](double v, int i) {
        return v < layout_.rects[static_cast<size_t>(i)].x;
    });
    if (after == row.begin()) return -1;
    const analysis::FlameRect& r = layout_.rects[static_cast<size_t>(*std::prev(after))];
    return r.node >= 0 && geometry(r).contains(pos) ? r.node : -1;
}

QRect FlameGraphWidget::rect_of(int node) const {
    for (const auto& r : layout_.rects)
        if (r.node == node) return geometry(r).toAlignedRect();
    return {};
}

int FlameGraphWidget::find_node(const QString& name) const {
    if (!diff_ || diff_->nodes.empty()) return -1;
    const std::string n = name.toStdString();
    // Depth first from the root, as the graph reads: the same node however
    // the diff numbers its nodes (a live view's grows in the tree's order).
    std::vector<int> unvisited{0};  // a stack: the next node on top, its siblings below
    while (!unvisited.empty()) {
        const int node = unvisited.back();
        unvisited.pop_back();
        if (node > 0 && diff_->nodes[static_cast<size_t>(node)].name == n) return node;
        const std::vector<int>& kids = diff_->nodes[static_cast<size_t>(node)].children;
        unvisited.insert(unvisited.end(), kids.rbegin(), kids.rend());  // the first child next
    }
    return -1;
}

QColor qcolour(analysis::FlameRgb c) { return QColor(c.r, c.g, c.b); }

QColor FlameGraphWidget::colour(const analysis::FlameRect& r) const {
    if (r.node < 0) return qcolour(analysis::kOthersColour);
    const analysis::DiffNode& n = diff_->nodes[static_cast<size_t>(r.node)];
    if (!search_.matched.empty() && search_.matched[static_cast<size_t>(r.node)])
        return QColor(0xe0, 0x40, 0xe0);
    if (differential_) return qcolour(analysis::diff_colour(n));
    if (colours_ == Colours::by_depth)
        return QColor::fromHsv((30 + r.depth * 23) % 60 + 10, 150, 240);
    std::string key = n.name;
    if (colours_ == Colours::by_namespace && !key.empty() && key[0] != '[')
        key = key.substr(0, key.find("::"));
    return qcolour(analysis::name_colour(key));
}

QString FlameGraphWidget::details(int node) const {
    if (!diff_ || node < 0) return {};
    const analysis::DiffNode& n = diff_->nodes[static_cast<size_t>(node)];
    const double value = differential_ ? n.cand : n.base;
    const double share = layout_.total > 0 ? value / layout_.total : 0;
    QString name = node == 0 ? QStringLiteral("all") : display_text(n.name);
    QString s = QStringLiteral("%1\n%2 %3, %4% of the view")
                    .arg(name)
                    .arg(value, 0, 'g', 5)
                    .arg(unit_)
                    .arg(share * 100, 0, 'f', 2);
    if (differential_) {
        const QString rel = std::isfinite(n.relative)
                                ? QStringLiteral("%1%").arg(n.relative * 100, 0, 'f', 1)
                                : QStringLiteral("new");
        s += QStringLiteral("\nbase %1, candidate %2 (%3)\n%4")
                 .arg(n.base, 0, 'g', 5)
                 .arg(n.cand, 0, 'g', 5)
                 .arg(rel)
                 .arg(!n.unjudged.empty()
                          ? QString::fromStdString(n.unjudged) +
                                QStringLiteral(": the stage's verdict could not judge this change")
                      : n.noise ? QStringLiteral("within noise: ") + display_text(diff_->method)
                                : QStringLiteral("changed beyond noise"));
    }
    return s;
}

void FlameGraphWidget::paintEvent(QPaintEvent* e) {
    QPainter p(this);
    p.fillRect(e->rect(), palette().base());
    if (!diff_) return;
    const QFontMetricsF fm(font());
    const double char_w = std::max(1.0, fm.averageCharWidth());
    for (const auto& r : layout_.rects) {
        const QRectF g = geometry(r);
        if (!g.intersects(e->rect())) continue;
        p.fillRect(g, colour(r));
        const double room = g.width() - 6;
        if (room < 4 * char_w) continue;
        const std::string name =
            r.node < 0 ? "others (" + std::to_string(r.merged) + ")"
                       : (r.node == 0 ? std::string("all")
                                      : diff_->nodes[static_cast<size_t>(r.node)].name);
        // Labels give the share of all, at any zoom (as the HTML report does).
        const double whole = differential_ ? diff_->nodes[0].cand : diff_->nodes[0].base;
        const double share = whole > 0 ? r.value / whole : 0;
        // Characters from the average width; when the proportional font's
        // text is wider, scale the count by the measured overflow once, and
        // elide what still sticks out.
        auto label_of = [&](size_t chars) {
            return chars < 4 ? QString()
                             : display_text(analysis::flame_label(name, share, chars));
        };
        auto chars = static_cast<size_t>(room / char_w);
        QString label = label_of(chars);
        double advance = label.isEmpty() ? 0 : fm.horizontalAdvance(label);
        if (advance > room) {
            chars = static_cast<size_t>(double(chars) * room / advance);
            label = label_of(chars);
            if (!label.isEmpty() && fm.horizontalAdvance(label) > room) {
                // Cut where flame_label does (the front of a C++ name,
                // "~walk"; the end of any other, "ip6_in~"); "~" is no wider
                // than the ellipsis it replaces.
                const bool front = analysis::flame_cuts_front(label.toStdString());
                label = fm.elidedText(label, front ? Qt::ElideLeft : Qt::ElideRight, room);
                if (label.startsWith(QChar(0x2026))) label[0] = QLatin1Char('~');
                if (label.endsWith(QChar(0x2026))) label[label.size() - 1] = QLatin1Char('~');
            }
        }
        if (label.isEmpty()) continue;
        p.setPen(Qt::black);
        p.drawText(g.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
    }
}

void FlameGraphWidget::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::BackButton) {
        back();
        return;
    }
    if (e->button() == Qt::ForwardButton) {
        forward();
        return;
    }
    const int node = nodeAt(e->pos());
    if (node >= 0) zoom_to(node);
}

void FlameGraphWidget::mouseMoveEvent(QMouseEvent* e) {
    emit hovered(details(nodeAt(e->pos())));
}

bool FlameGraphWidget::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = details(nodeAt(help->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), plain_tooltip(text), this);
        return true;
    }
    return QWidget::event(e);
}

QSize FlameGraphWidget::sizeHint() const {
    return QSize(900, std::max(4, layout_.depth + 1) * kRow);
}

}  // namespace pathscope::gui
