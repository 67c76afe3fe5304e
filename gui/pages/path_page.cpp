#include "gui/pages/path_page.h"
#include "gui/display_text.h"

#include <QLabel>
#include <QVBoxLayout>

#include "gui/widgets/path_graph_widget.h"

namespace pathscope::gui {

PathPage::PathPage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    graph_ = new PathGraphWidget;
    legend_ = new QLabel;
    legend_->setWordWrap(true);
    layout->addWidget(graph_, 1);
    layout->addWidget(legend_);
    connect(graph_, &PathGraphWidget::stage_clicked, this, &PathPage::stage_clicked);
}

void PathPage::set_graph(std::shared_ptr<const analysis::PathGraph> g, bool balanced) {
    const bool comparison = g && g->comparison;
    const bool empty = !g || g->nodes.empty();
    graph_->set_graph(std::move(g));
    if (empty) {  // the widget says why there is no graph
        legend_->clear();
        return;
    }
    QString text =
        comparison
            ? tr("The candidate's packet path. Stages coloured by the change of their busy cycles per "
                 "path packet, edges by the change of the share of path packets they carried: red "
                 "grew, blue shrank, grey within noise (%1).")
                  .arg(display_text(graph_->graph()->method))
            : tr("The run's packet path, left to right from the receive stages to transmit, "
                 "delivery and drop reasons. Each edge is as wide as the packets it carried "
                 "(summed over trials); each stage is coloured by its busy cycles per packet "
                 "(pale: few, red: the most) and shows its share of all stages' cycles.");
    text += balanced ? tr(" Packets balance at every stage (in = out + drops).")
                     : tr(" <b>Packets do not balance at every stage</b>: see pathscope export --format dot.");
    text += tr(" Click a stage to open it in the flame graph and histograms.");
    legend_->setText(text);
}

}  // namespace pathscope::gui
