// A flame graph (icicle) painted with QPainter from analysis::layout_flame:
// it paints only the frames that intersect the exposed area, draws a label
// only where it fits (the end of the name, the function rather than its
// namespace), merges frames under a threshold into "others", zooms on click
// with back and forward, and highlights search matches with their share.
// The hover hit test finds the row by y and the frame by a binary search on
// x; a typed search runs on a worker thread (search_async), newest wins.
// In a difference, widths follow the candidate; red grew, blue shrank, grey
// is within noise, and the hover text gives the node's test result.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "analysis/trees/flame_layout.h"

namespace pathscope::gui {

/// An analysis colour as Qt's.
QColor qcolour(analysis::FlameRgb c);

class FlameGraphWidget : public QWidget {
    Q_OBJECT
  public:
    /// by_name: a hue per function; by_namespace: one per leading namespace or
    /// module ("pathscope", "std", "[librte_fib.so.23.0]"); by_depth: per row.
    enum class Colours { by_name, by_namespace, by_depth };

    explicit FlameGraphWidget(QWidget* parent = nullptr);

    /// The tree to draw; `unit` names a node's value in the hover text.
    void set_diff(std::shared_ptr<const analysis::FlameDiff> diff, bool differential,
                  const QString& unit);
    const analysis::FlameDiff* diff() const { return diff_.get(); }

    /// Zooms so that `node` spans the width (0: the whole tree); recorded in
    /// the back/forward history.
    void zoom_to(int node);
    bool back();
    bool forward();
    int zoom_root() const { return root_; }
    /// The names from the root down to the zoom root: the breadcrumb.
    QStringList breadcrumb() const;

    /// Highlights the frames whose name holds `pattern` (a regular
    /// expression when `regex`); returns the share of the zoom root they cover.
    /// At once, on this thread; throws std::regex_error for a bad expression.
    double set_search(const QString& pattern, bool regex);
    /// The same on a worker thread: the result is applied when it arrives
    /// (then searched() is emitted), unless a newer search, a zoom or a new
    /// tree came first (it is dropped as stale).
    void search_async(const QString& pattern, bool regex);
    /// The pattern whose matches are shown ("" when none, or it was refused).
    const QString& pattern() const { return pattern_; }
    const std::vector<bool>& matches() const { return search_.matched; }
    double search_share() const { return search_.share; }

    void set_colours(Colours c);
    /// Frames narrower than this fraction of the zoom root merge into "others".
    void set_min_fraction(double f);

    /// The node under `pos` (-1: none, or merged "others").
    int nodeAt(const QPoint& pos) const;
    /// Where `node` is drawn at the current zoom (empty when it is not).
    QRect rect_of(int node) const;
    /// The first node named `name` (-1: none).
    int find_node(const QString& name) const;
    /// The zoom root's value, in the tree's unit.
    double total() const { return layout_.total; }

    QSize sizeHint() const override;

  signals:
    void zoomed(int node);
    void hovered(const QString& details);
    /// A search_async result was applied; `ok` false: the regular
    /// expression was refused, nothing is highlighted.
    void searched(bool ok);

  protected:
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    bool event(QEvent* e) override;

  private:
    void relayout();
    QRectF geometry(const analysis::FlameRect& r) const;
    QColor colour(const analysis::FlameRect& r) const;
    QString details(int node) const;

    std::shared_ptr<const analysis::FlameDiff> diff_;
    bool differential_ = false;
    QString unit_;
    int root_ = 0;
    std::vector<int> back_, forward_;
    analysis::FlameLayout layout_;
    analysis::FlameSearch search_;
    QString pattern_;
    bool regex_ = false;
    /// Rects by row (depth), each row in x order: the hit test's index.
    std::vector<std::vector<int>> rows_;
    uint64_t search_generation_ = 0;  ///< bumped by every search, zoom and tree
    bool search_pending_ = false;
    QString pending_pattern_;
    bool pending_regex_ = false;
    Colours colours_ = Colours::by_name;
    double min_fraction_ = 0.001;
    static constexpr int kRow = 18;
};

}  // namespace pathscope::gui
