// The Path page: the run's stage graph (PathGraphWidget) with a legend and
// the packet balance at every stage (analysis::path_balance).
#pragma once

#include <QWidget>
#include <memory>

#include "analysis/verdicts/path_graph.h"

class QLabel;

namespace pathscope::gui {

class PathGraphWidget;

class PathPage : public QWidget {
    Q_OBJECT
  public:
    explicit PathPage(QWidget* parent = nullptr);
    /// `balanced`: analysis::path_balance held at every node (said in the legend).
    void set_graph(std::shared_ptr<const analysis::PathGraph> g, bool balanced);
    PathGraphWidget* graph() const { return graph_; }

  signals:
    void stage_clicked(const QString& stage);

  private:
    PathGraphWidget* graph_;
    QLabel* legend_;
};

}  // namespace pathscope::gui
