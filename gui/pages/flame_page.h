// A flame graph with what a reader needs around it: back and forward, the
// breadcrumb of the zoom, a plain or regex search with the share it covers,
// the merge threshold and the colour scheme.
#pragma once

#include <QWidget>

#include "gui/widgets/flame_graph_widget.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTimer;
class QToolButton;

namespace pathscope::gui {

class FlamePage : public QWidget {
    Q_OBJECT
  public:
    explicit FlamePage(QWidget* parent = nullptr);
    FlameGraphWidget* graph() const { return graph_; }
    /// The tree to show, and what its values are ("cycles per received packet").
    void set_diff(std::shared_ptr<const analysis::FlameDiff> diff, bool differential,
                  const QString& unit, const QString& title);
    /// Searches at once, on this thread (the box waits for a pause in the
    /// typing and searches on a worker thread).
    void search(const QString& pattern, bool regex);
    QLineEdit* search_box() const { return search_; }
    /// How long the box waits after the last keystroke.
    static constexpr int kSearchPauseMs = 200;
    QString breadcrumb_text() const;
    QString title() const;
    QString share_text() const;

  private:
    void refresh();
    FlameGraphWidget* graph_;
    QLabel* title_;
    QLabel* crumbs_;
    QLabel* share_;
    QLabel* hover_;
    QLineEdit* search_;
    QCheckBox* regex_;
    QToolButton* back_;
    QToolButton* forward_;
    QComboBox* threshold_;
    QTimer* debounce_;
};

}  // namespace pathscope::gui
