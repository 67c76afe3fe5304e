// MainWindow's widgets: the run list, the pages, the status bar and the
// menus, built once by the constructor (main_window.cpp), which wires them
// to the store reader.
#include "gui/main_window.h"
#include "gui/run_session.h"
#include "gui/widgets/path_graph_widget.h"
#include "analysis/figures/sampled_stages.h"
#include "gui/display_text.h"

#include <QApplication>
#include <QEventLoop>
#include <QFileDialog>
#include <QInputDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QScrollBar>
#include <QSplitter>
#include <QStatusBar>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QSvgGenerator>
#include <algorithm>
#include <fstream>
#include <map>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "analysis/figures/metric_names.h"
#include "analysis/figures/run_summary.h"
#include "analysis/render/run_view.h"
#include "gui/models/run_list_model.h"
#include "gui/models/stage_table_model.h"
#include "analysis/render/report.h"
#include "db/queries.h"
#include "db/schema.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/experiments_page.h"
#include "gui/widgets/experiment_filter.h"
#include "gui/pages/flame_page.h"
#include "gui/pages/histograms_page.h"
#include "gui/pages/path_page.h"
#include "gui/pages/queues_page.h"
#include "gui/pages/stacks_page.h"
#include "gui/pages/time_series_page.h"
#include "gui/pages/traces_page.h"
#include "gui/widgets/worker_selector.h"
#include "analysis/figures/workers.h"

namespace pathscope::gui {

namespace {

// Numbers with a bar behind them in proportion to their column's largest.
class BarDelegate : public QStyledItemDelegate {
  public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* p, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override {
        const QVariant bar = index.data(StageTableModel::BarRole);
        if (bar.isValid()) {
            QRectF r = option.rect.adjusted(2, 3, -2, -3);
            r.setWidth(r.width() * std::clamp(bar.toDouble(), 0.0, 1.0));
            p->fillRect(r, QColor(0xf0, 0xb0, 0x60, 110));
        }
        QStyledItemDelegate::paint(p, option, index);
    }
};

}  // namespace

/// The left side: the run list, its filter box and experiment filter.
QWidget* MainWindow::build_run_list() {
    runs_ = new RunListModel(this);
    auto* run_filter = new RunFilterProxy(this);
    run_proxy_ = run_filter;
    run_proxy_->setSourceModel(runs_);
    run_proxy_->setSortRole(RunListModel::SortRole);
    run_proxy_->setFilterKeyColumn(-1);  // the filter box searches every column
    run_proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    run_view_ = new QTableView;
    run_view_->setModel(run_proxy_);
    run_view_->setSortingEnabled(true);
    run_view_->sortByColumn(RunListModel::Id, Qt::AscendingOrder);
    run_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    run_view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    run_view_->verticalHeader()->hide();
    run_view_->horizontalHeader()->setStretchLastSection(true);
    run_view_->setTextElideMode(Qt::ElideMiddle);  // "udp6-tx-…-connect]" keeps both ends
    run_view_->setWordWrap(false);
    filter_ = new QLineEdit;
    // Short enough for the field at its narrowest; the tooltip says what it searches.
    filter_->setPlaceholderText(tr("filter runs"));
    filter_->setToolTip(tr("Shows the runs whose label, status, host, settings, experiment or "
                           "cell contain this text"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, run_proxy_,
            &QSortFilterProxyModel::setFilterFixedString);
    auto* left = new QWidget;
    auto* left_layout = new QVBoxLayout(left);
    left_layout->setContentsMargins(0, 0, 0, 0);
    experiment_filter_ = new ExperimentFilter(runs_, run_filter);
    auto* filters = new QHBoxLayout;
    filters->addWidget(filter_, 1);
    filters->addWidget(experiment_filter_);
    left_layout->addLayout(filters);
    left_layout->addWidget(run_view_);
    return left;
}

/// The Stages page: the stage table and the drops beside it, the perf and
/// figure notes and a one-line legend below.
QWidget* MainWindow::build_stage_page() {
    stages_ = new StageTableModel(this);
    stage_proxy_ = new StageSortProxy(this);
    stage_proxy_->setSourceModel(stages_);
    stage_view_ = new QTableView;
    stage_view_->setModel(stage_proxy_);
    stage_view_->setSortingEnabled(true);
    // Graph order until a header is clicked.
    stage_view_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    stage_proxy_->sort(-1);
    stage_view_->setItemDelegate(new BarDelegate(stage_view_));
    stage_view_->verticalHeader()->hide();
    stage_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(stage_view_, &QTableView::clicked, this, &MainWindow::stage_clicked);
    warning_ = new QLabel;
    warning_->setWordWrap(true);
    warning_->setStyleSheet(QStringLiteral("background: #fff0c0; color: #703000; padding: 6px"));
    warning_->hide();
    warning_->setTextFormat(Qt::PlainText);
    // The Stages page: the stage table takes the height, in compact rows,
    // and scrolls when they do not fit; the drops sit beside it (a splitter),
    // the perf and figure notes and a one-line legend (in full as its
    // tooltip, each column's in its header's) below.
    stage_view_->verticalHeader()->setDefaultSectionSize(stage_view_->fontMetrics().height() + 8);
    stage_view_->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    drops_ = new QTableWidget(0, 3);
    drops_->setHorizontalHeaderLabels({tr("drop reason"), tr("path"), tr("packets")});
    drops_->verticalHeader()->hide();
    drops_->verticalHeader()->setDefaultSectionSize(drops_->fontMetrics().height() + 8);
    drops_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    drops_->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Reasons are read whole; the counts sit beside them.
    drops_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    drops_->setToolTip(tr("click a reason to see its sampled packets"));
    connect(drops_, &QTableWidget::cellClicked, this, [this](int row, int) { drop_clicked(row); });
    auto* tables = new QSplitter(Qt::Horizontal);
    tables->addWidget(stage_view_);
    tables->addWidget(drops_);
    tables->setChildrenCollapsible(false);
    tables->setStretchFactor(0, 1);
    tables->setStretchFactor(1, 0);
    tables->setSizes({1000, 110});  // fill_drops gives the drops their width
    stage_split_ = tables;
    auto* legend = new QLabel(
        tr("%1: busy cycles over received packets (%2: over sent datagrams, for a run that only "
           "sent); the rows add up to \"%3\". Hover a column header for what it counts; click "
           "a stage to see it in the flame graph.")
            .arg(QString::fromLatin1(analysis::kCyclesPerRxPacket),
                 QString::fromLatin1(analysis::kCyclesPerTxPacket),
                 QString::fromLatin1(analysis::kAllStages)));
    legend->setToolTip(
        tr("busy calls handled at least one packet; per-call and per-packet figures count busy "
           "calls only. idle: the share of a stage's cycles spent polling empty queues. %1: "
           "each trial's busy cycles over its received packets (%2, for a run that only sent: "
           "over the datagrams its sockets sent); the rows add up to \"%3\". Every ratio is "
           "the mean of the trials' values, the figure compare tests. Click a stage to see it in "
           "the flame graph.")
            .arg(QString::fromLatin1(analysis::kCyclesPerRxPacket),
                 QString::fromLatin1(analysis::kCyclesPerTxPacket),
                 QString::fromLatin1(analysis::kAllStages)));
    legend->setWordWrap(true);
    perf_ = new QLabel;
    perf_->setTextFormat(Qt::PlainText);  // event names come from imported profiles
    perf_->setWordWrap(true);
    perf_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    figures_ = new QLabel;
    figures_->setTextFormat(Qt::PlainText);
    figures_->setWordWrap(true);
    figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* stage_page = new QWidget;
    auto* stage_layout = new QVBoxLayout(stage_page);
    worker_selectors_.push_back(new WorkerSelector(true));
    stage_layout->addWidget(worker_selectors_.back());
    stage_layout->addWidget(warning_);
    stage_layout->addWidget(tables, 1);
    stage_layout->addWidget(perf_);
    stage_layout->addWidget(figures_);
    stage_layout->addWidget(legend);
    return stage_page;
}

/// Every page in its tab, and the worker selectors of a run of several workers.
void MainWindow::build_pages(QWidget* stage_page) {
    flame_ = new FlamePage;
    stacks_ = new StacksPage;
    pages_ = new QTabWidget;
    pages_->addTab(stage_page, tr("Stages"));
    path_page_ = new PathPage;
    pages_->addTab(path_page_, tr("Path"));
    connect(path_page_, &PathPage::stage_clicked, this, &MainWindow::open_stage);
    pages_->addTab(flame_, tr("Flame graph"));
    pages_->addTab(stacks_, tr("Sampled stacks"));
    queues_ = new QueuesPage;
    histograms_ = new HistogramsPage;
    traces_ = new TracesPage;
    compare_ = new ComparePage;
    pages_->addTab(queues_, tr("Queues"));
    pages_->addTab(histograms_, tr("Histograms"));
    // A run of several workers: the Stages, Flame graph and Histograms pages
    // show their sums or one worker, the same one on all three.
    for (QWidget* page : {static_cast<QWidget*>(flame_), static_cast<QWidget*>(histograms_)}) {
        worker_selectors_.push_back(new WorkerSelector);
        if (auto* box = qobject_cast<QBoxLayout*>(page->layout()))
            box->insertWidget(0, worker_selectors_.back());
    }
    for (WorkerSelector* w : worker_selectors_)
        connect(w, &WorkerSelector::chosen, this, &MainWindow::choose_worker);
    connect(worker_selectors_.front(), &WorkerSelector::worker_rows_toggled, stages_,
            &StageTableModel::set_worker_rows);
    time_series_ = new TimeSeriesPage;
    pages_->addTab(time_series_, tr("Time series"));
    pages_->addTab(traces_, tr("Packet traces"));
    pages_->addTab(compare_, tr("Compare"));
    experiments_ = new ExperimentsPage(runs_);
    pages_->addTab(experiments_, tr("Experiments"));
    // A grid cell opens its two runs on the Compare page; its experiment's
    // cells are listed so that both rows can be selected.
    connect(experiments_, &ExperimentsPage::open_pair, this, [this](qint64 base, qint64 cand) {
        filter_->clear();
        if (const db::RunInfo* r = runs_->run(runs_->row_of(QString::number(cand))))
            experiment_filter_->choose(display_text(r->experiment));
        if (select_pair(QString::number(base), QString::number(cand)))
            pages_->setCurrentWidget(compare_);
    });
}

/// The right side: the run's header above the pages.
QWidget* MainWindow::build_right() {
    // Until a run is chosen, the header says how to choose one.
    header_ = new QLabel(tr("<b>Select a run</b> in the list to see its stages, path, flame "
                            "graphs and histograms; Ctrl+click a second run to compare the two."));
    header_->setWordWrap(true);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* right = new QWidget;
    auto* right_layout = new QVBoxLayout(right);
    right_layout->setContentsMargins(0, 0, 0, 0);
    right_layout->addWidget(header_);
    right_layout->addWidget(pages_, 1);
    return right;
}

/// The status bar's progress and Cancel.
void MainWindow::build_status_bar() {
    progress_ = new QProgressBar;
    progress_->setRange(0, 0);  // busy
    progress_->setMaximumWidth(120);
    progress_->hide();
    statusBar()->addPermanentWidget(progress_);
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->hide();
    statusBar()->addPermanentWidget(cancel_);
    // The reader stops the load between or inside its queries.
    connect(cancel_, &QPushButton::clicked, this, [this] {
        session_->cancel();
        progress_->hide();
        cancel_->hide();
        statusBar()->showMessage(tr("loading cancelled"));
    });
}

/// The File menu: open (a file, a server, a recent store), export, live view, quit.
void MainWindow::build_menus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open store..."), QKeySequence::Open, this, &MainWindow::choose_store);
    file->addAction(tr("Open &server store..."), this, [this] {
        bool ok = false;
        const QString url = QInputDialog::getText(
            this, tr("Open a server store"),
            tr("A team's PostgreSQL store, e.g. postgresql://reader@lab-db/pathscope\n"
               "(a password is best kept in ~/.pgpass; it is never shown or remembered)"),
            QLineEdit::Normal, QStringLiteral("postgresql://"), &ok);
        if (ok && !url.trimmed().isEmpty()) open_store(url.trimmed(), true);
    });
    QMenu* recent = file->addMenu(tr("Open &recent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        for (const QString& f : QSettings().value("recent").toStringList())
            recent->addAction(f, this, [this, f] { open_store(f, true); });
    });
    file->addAction(tr("Export &report (text, md, html, json)..."), this, [this] {
        const QString f = QFileDialog::getSaveFileName(
            this, tr("Export a report"), QStringLiteral("report.html"),
            tr("HTML (*.html);;Markdown (*.md);;text (*.txt);;JSON (*.json)"));
        if (f.isEmpty()) return;
        const QString err = export_report(f);
        if (!err.isEmpty()) QMessageBox::warning(this, tr("Export"), err);
    });
    file->addAction(tr("Export &view (PNG, SVG)..."), this, [this] {
        const QString f = QFileDialog::getSaveFileName(this, tr("Export this view"),
                                                       QStringLiteral("view.png"),
                                                       tr("PNG (*.png);;SVG (*.svg)"));
        if (f.isEmpty()) return;
        const QString err = export_view(f);
        if (!err.isEmpty()) QMessageBox::warning(this, tr("Export"), err);
    });
    QAction* live = file->addAction(tr("&Live view (follow a running capture)"));
    live->setCheckable(true);
    live->setChecked(true);
    connect(live, &QAction::toggled, this, [this](bool on) { set_live(on ? kLivePollMs : 0); });
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
}

/// The store session (its reader on its own thread), and what it answers.
void MainWindow::start_session() {
    session_ = new RunSession(this);
    connect(session_, &RunSession::loaded, this, &MainWindow::loaded);
    connect(session_, &RunSession::runs_changed, this, &MainWindow::runs_changed);
    connect(session_, &RunSession::call_views_added, this, [this](const analysis::CallViews& views) {
        shown_.stack_views = views;
        shown_.call_views_left_out = false;
        stacks_->set_views(views);
    });
    connect(stacks_, &StacksPage::view_changed, this, &MainWindow::want_call_views);
    connect(pages_, &QTabWidget::currentChanged, this, &MainWindow::want_call_views);
    connect(session_, &RunSession::poll_failed, this, [this](const QString& error) {
        if (error.isEmpty())
            statusBar()->showMessage(tr("live view: reading the store again"), 5000);
        else
            statusBar()->showMessage(tr("live view stopped: %1 (it tries again every poll)").arg(error));
    });
}

}  // namespace pathscope::gui
