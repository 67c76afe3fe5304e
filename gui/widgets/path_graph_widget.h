// The packet path drawn: analysis::PathGraph's layers left to right, each
// node a box coloured by its cycles per packet (or its change, compared),
// each edge as wide as the packets it carried. Painted with QPainter; a
// click on a stage emits its name.
#pragma once

#include <QRectF>
#include <QWidget>
#include <memory>
#include <vector>

#include "analysis/verdicts/path_graph.h"

namespace pathscope::gui {

class PathGraphWidget : public QWidget {
    Q_OBJECT
  public:
    explicit PathGraphWidget(QWidget* parent = nullptr);
    void set_graph(std::shared_ptr<const analysis::PathGraph> g);
    /// What the widget says when the run has no graph (why it has none).
    void set_empty_text(const QString& text) {
        empty_text_ = text;
        update();
    }
    const analysis::PathGraph* graph() const { return graph_.get(); }
    /// Where node `i` is drawn at the widget's current size.
    QRectF node_rect(int i) const;
    /// The node under `p`, or -1.
    int node_at(QPointF p) const;
    /// An edge's drawn width in pixels (proportional to its packets).
    double edge_width(const analysis::PathEdge& e) const;
    /// Node `i`'s packets, figures and every edge in and out with its packets.
    QString tooltip(int i) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  signals:
    void stage_clicked(const QString& stage);

  protected:
    bool event(QEvent* e) override;
    void paintEvent(QPaintEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;

  private:
    std::shared_ptr<const analysis::PathGraph> graph_;
    QString empty_text_;
    int rows_ = 0;  ///< the tallest layer's nodes
};

}  // namespace pathscope::gui
