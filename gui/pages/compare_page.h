// Two runs side by side: the verdict table coloured by verdict, the
// differential flame graph (widths follow the candidate; red grew, blue
// shrank, grey within noise), the two histograms of a stage overlaid, and
// ministat's plot of the receive rate and of cycles per packet.
#pragma once

#include <QWidget>
#include <memory>

#include "analysis/render/report.h"

class QComboBox;
class QPlainTextEdit;
class QTableView;
class QLabel;

namespace pathscope::gui {

class FlamePage;
class HistogramWidget;
class VerdictTableModel;

class ComparePage : public QWidget {
    Q_OBJECT
  public:
    explicit ComparePage(QWidget* parent = nullptr);
    void set_report(std::shared_ptr<const analysis::Report> report);
    const analysis::Report* report() const { return report_.get(); }
    VerdictTableModel* verdicts() const { return verdicts_; }
    FlamePage* flame() const { return flame_; }
    HistogramWidget* histogram() const { return histogram_; }

    QTableView* table() const { return table_; }

  private:
    void redraw_histogram();
    std::shared_ptr<const analysis::Report> report_;
    QLabel* title_;
    VerdictTableModel* verdicts_;
    QTableView* table_;
    FlamePage* flame_;
    QComboBox* stage_;
    HistogramWidget* histogram_;
    QPlainTextEdit* ministat_;
};

}  // namespace pathscope::gui
