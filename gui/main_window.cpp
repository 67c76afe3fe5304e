#include "gui/main_window.h"

#include <QApplication>
#include <QFileDialog>
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
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "analysis/run_summary.h"
#include "analysis/run_view.h"
#include "gui/models/run_list_model.h"
#include "gui/models/stage_table_model.h"
#include "analysis/report.h"
#include "db/queries.h"
#include "db/schema.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/flame_page.h"
#include "gui/pages/histograms_page.h"
#include "gui/pages/path_page.h"
#include "gui/pages/queues_page.h"
#include "gui/pages/time_series_page.h"
#include "gui/pages/traces_page.h"

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

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("pathscope"));
    runs_ = new RunListModel(this);
    run_proxy_ = new QSortFilterProxyModel(this);
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
    filter_ = new QLineEdit;
    filter_->setPlaceholderText(
        tr("filter runs (label, status, host, settings, experiment, cell, ...)"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, run_proxy_,
            &QSortFilterProxyModel::setFilterFixedString);
    auto* left = new QWidget;
    auto* left_layout = new QVBoxLayout(left);
    left_layout->setContentsMargins(0, 0, 0, 0);
    left_layout->addWidget(filter_);
    left_layout->addWidget(run_view_);

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
    auto* stage_page = new QWidget;
    auto* stage_layout = new QVBoxLayout(stage_page);
    stage_layout->addWidget(warning_);
    stage_layout->addWidget(stage_view_);
    drops_ = new QTableWidget(0, 3);
    drops_->setHorizontalHeaderLabels({tr("drop reason"), tr("path"), tr("packets")});
    drops_->verticalHeader()->hide();
    drops_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    drops_->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Reasons are read whole; the counts sit beside them.
    drops_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    drops_->setMaximumHeight(180);
    drops_->setToolTip(tr("click a reason to see its sampled packets"));
    connect(drops_, &QTableWidget::cellClicked, this, [this](int row, int) { drop_clicked(row); });
    auto* legend = new QLabel(
        tr("busy calls handled at least one packet; per-call and per-packet figures count busy "
           "calls only. idle: the share of a stage's cycles spent polling empty queues. cyc/rx "
           "pkt: each trial's busy cycles over its received packets (cyc/tx pkt, for a run that "
           "only sent: over the datagrams its sockets sent); the rows add up to \"all "
           "stages\". Every ratio is the mean of the trials' values, the figure compare tests. "
           "Click a stage to see it in the flame graph."));
    legend->setWordWrap(true);
    perf_ = new QLabel;
    perf_->setWordWrap(true);
    perf_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stage_layout->addWidget(perf_);
    figures_ = new QLabel;
    figures_->setWordWrap(true);
    figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stage_layout->addWidget(figures_);
    stage_layout->addWidget(legend);
    stage_layout->addWidget(drops_);

    flame_ = new FlamePage;
    stacks_ = new FlamePage;
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
    time_series_ = new TimeSeriesPage;
    pages_->addTab(time_series_, tr("Time series"));
    pages_->addTab(traces_, tr("Packet traces"));
    pages_->addTab(compare_, tr("Compare"));
    header_ = new QLabel;
    header_->setWordWrap(true);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* right = new QWidget;
    auto* right_layout = new QVBoxLayout(right);
    right_layout->setContentsMargins(0, 0, 0, 0);
    right_layout->addWidget(header_);
    right_layout->addWidget(pages_, 1);

    auto* split = new QSplitter;
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(1, 3);
    split->setSizes({380, 1020});
    setCentralWidget(split);
    progress_ = new QProgressBar;
    progress_->setRange(0, 0);  // busy
    progress_->setMaximumWidth(120);
    progress_->hide();
    statusBar()->addPermanentWidget(progress_);
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->hide();
    statusBar()->addPermanentWidget(cancel_);
    // The load runs on; its result is dropped as stale.
    connect(cancel_, &QPushButton::clicked, this, [this] {
        ++generation_;
        shown_ = generation_;
        progress_->hide();
        cancel_->hide();
        statusBar()->showMessage(tr("loading cancelled"));
    });

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open store..."), QKeySequence::Open, this, &MainWindow::choose_store);
    QMenu* recent = file->addMenu(tr("Open &recent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        for (const QString& f : QSettings().value("recent").toStringList())
            recent->addAction(f, this, [this, f] { open_store(f, true); });
    });
    file->addAction(tr("Export &report (text, md, html)..."), this, [this] {
        const QString f = QFileDialog::getSaveFileName(
            this, tr("Export a report"), QStringLiteral("report.html"),
            tr("HTML (*.html);;Markdown (*.md);;text (*.txt)"));
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

    connect(run_view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::load_selected);
    connect(&watcher_, &QFutureWatcher<LoadedRun>::finished, this, &MainWindow::loaded);
    connect(&live_timer_, &QTimer::timeout, this, &MainWindow::poll_store);
    set_live(kLivePollMs);
    resize(1400, 860);
}

void MainWindow::choose_store() {
    const QString f = QFileDialog::getOpenFileName(this, tr("Open a pathscope store"), {},
                                                   tr("pathscope stores (*.db);;all files (*)"));
    if (!f.isEmpty()) open_store(f, true);
}

QString MainWindow::open_store(const QString& path, bool interactive) {
    StoreListing listing = list_store(path.toStdString());
    if (!listing.error.isEmpty()) {
        statusBar()->showMessage(listing.error);
        if (interactive) QMessageBox::critical(this, tr("Cannot open the store"), listing.error);
        return listing.error;
    }
    path_ = path.toStdString();
    runs_->set_runs(std::move(listing.runs), std::move(listing.trials_recorded));
    try {  // the live view's own connection, on this thread
        live_ = std::make_unique<db::Database>(path_, db::Database::Mode::read_only);
        data_version_ = db::data_version(*live_);
    } catch (const std::exception&) {
        live_.reset();
    }
    setWindowTitle(QStringLiteral("pathscope - %1").arg(path));
    statusBar()->showMessage(tr("%1: %2 runs").arg(path).arg(runs_->rowCount()));
    QSettings settings;
    QStringList recent = settings.value("recent").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    settings.setValue("recent", recent.mid(0, 10));
    return {};
}

bool MainWindow::select_run(const QString& ref) {
    const int best = runs_->row_of(ref);
    if (best < 0) return false;
    const QModelIndex at = run_proxy_->mapFromSource(runs_->index(best, 0));
    run_view_->selectionModel()->select(
        at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    run_view_->scrollTo(at);
    return true;
}

void MainWindow::load_selected() {
    const QModelIndexList rows = run_view_->selectionModel()->selectedRows();
    if (rows.isEmpty() || path_.empty()) return;
    const db::RunInfo* r = runs_->run(run_proxy_->mapToSource(rows.first()).row());
    if (!r) return;
    // Two runs: the later selected row is the candidate, the other the base.
    const db::RunInfo* other =
        rows.size() == 2 ? runs_->run(run_proxy_->mapToSource(rows.last()).row()) : nullptr;
    int64_t base = 0, id = r->id;
    if (other) {
        base = std::min(r->id, other->id);
        id = std::max(r->id, other->id);
    }
    const unsigned generation = ++generation_;
    const std::string path = path_;
    progress_->show();
    cancel_->show();
    statusBar()->showMessage(other ? tr("comparing run %1 against run %2...").arg(id).arg(base)
                                   : tr("loading run %1...").arg(id));
    watcher_.setFuture(QtConcurrent::run([path, id, base, generation] {
        LoadedRun run = base ? load_pair(path, base, id) : load_run(path, id);
        run.generation = generation;
        return run;
    }));
}

void MainWindow::loaded() {
    const LoadedRun run = watcher_.result();
    if (run.generation != generation_) return;  // a newer load is on its way, or cancelled
    progress_->hide();
    cancel_->hide();
    if (!run.error.isEmpty()) {
        statusBar()->showMessage(run.error);
        return;
    }
    shown_ = run.generation;
    const db::RunInfo& info = run.summary.info;
    header_->setText(QStringLiteral("<b>run %1 \"%2\"</b> %3, %4 &nbsp; %5")
                         .arg(info.id)
                         .arg(QString::fromStdString(info.label).toHtmlEscaped())
                         .arg(QString::fromStdString(info.kind))
                         .arg(QString::fromStdString(info.status))
                         .arg(QString::fromStdString(info.started_at)));
    // The variant switches the run ran with, and its cell of an experiment.
    QString variants;
    for (const auto& [k, v] : run.summary.facts)
        if (k == db::kVariantsFact) variants = QString::fromStdString(v);
    if (!info.experiment.empty())
        variants += QStringLiteral("%1experiment %2, cell %3")
                        .arg(variants.isEmpty() ? "" : " &nbsp; ")
                        .arg(QString::fromStdString(info.experiment))
                        .arg(QString::fromStdString(info.cell).replace('\n', ' ').toHtmlEscaped());
    if (!variants.isEmpty()) header_->setText(header_->text() + "<br>" + variants);
    stages_->set_summary(run.summary);
    data_ = run.data;
    fill_drops(run.summary.drops);
    queues_->set_run(run.data);
    histograms_->set_run(run.data);
    traces_->set_run(run.data);
    time_series_->set_run(run.data);
    path_page_->set_graph(run.path, run.path_balanced);
    if (run.report) {
        compare_->set_report(run.report);
        pages_->setCurrentWidget(compare_);
    }
    const std::string warn = analysis::starved_warning("run " + std::to_string(info.id),
                                                       run.summary.worker);
    warning_->setText(QString::fromStdString(warn));
    warning_->setVisible(!warn.empty());
    QStringList perf;
    for (const auto& pl : run.summary.perf)
        perf << (pl.supported ? QStringLiteral("%1 %2 %3/pkt")
                                    .arg(QString::fromStdString(pl.event))
                                    .arg(pl.per_packet, 0, 'f', 3)
                                    .arg(QString::fromStdString(pl.unit))
                              : QStringLiteral("%1 -").arg(QString::fromStdString(pl.event)));
    const bool transmit = run.summary.basis.transmit;
    perf_->setText(perf.isEmpty() ? tr("no perf counters in this run")
                                  : (transmit ? tr("perf counters of the worker, per sent datagram: ")
                                              : tr("perf counters of the worker, per received packet: ")) +
                                        perf.join(QStringLiteral(", ")) +
                                        tr(" (- : not offered by this machine's PMU)"));
    figures_->setText(figures_text(run.summary));
    figures_->setVisible(!figures_->text().isEmpty());
    flame_->set_diff(run.stages, false, transmit ? tr("cycles/tx pkt") : tr("cycles/rx pkt"),
                     transmit ? tr("Stage tree: busy cycles per sent datagram (exact counters)")
                              : tr("Stage tree: busy cycles per received packet (exact counters)"));
    if (run.stacks)
        stacks_->set_diff(run.stacks, false, tr("share of samples"),
                          tr("Sampled call stacks: %1").arg(run.stack_event));
    else
        stacks_->set_diff(nullptr, false, {}, tr("This run has no sampled call stacks."));
    statusBar()->showMessage(tr("run %1 loaded").arg(info.id));
}

QString MainWindow::figures_text(const analysis::RunSummary& sum) {
    // The run's latencies and path events, as `show` prints them.
    QStringList parts;
    const double us = sum.info.tsc_hz ? 1e6 / static_cast<double>(sum.info.tsc_hz) : 0;
    for (const auto& l : sum.latencies)
        parts << tr("%1 latency p50/p90/p99 %2/%3/%4 cycles%5")
                     .arg(QString::fromStdString(l.subject))
                     .arg(l.p50, 0, 'f', 0)
                     .arg(l.p90, 0, 'f', 0)
                     .arg(l.p99, 0, 'f', 0)
                     .arg(us ? tr(" (%1/%2/%3 us)")
                                   .arg(l.p50 * us, 0, 'f', 2)
                                   .arg(l.p90 * us, 0, 'f', 2)
                                   .arg(l.p99 * us, 0, 'f', 2)
                             : QString());
    for (const auto& f : sum.event_figures)
        parts << QStringLiteral("%1 %2 %3")
                     .arg(QString::fromStdString(f.name))
                     .arg(f.mean, 0, 'f', 3)
                     .arg(QString::fromStdString(f.unit));
    return parts.join(QStringLiteral("; "));
}

void MainWindow::wait_until_loaded() {
    while (shown_ != generation_ && generation_ != 0) {
        watcher_.waitForFinished();
        QCoreApplication::processEvents();
        if (watcher_.isFinished() && watcher_.result().generation == generation_ &&
            !watcher_.result().error.isEmpty())
            break;
    }
}

bool MainWindow::show_page(const QString& page) {
    const QStringList names = {"stages",     "path",       "flame",      "stacks", "queues",
                               "histograms", "timeseries", "traces", "compare"};
    if (page == QLatin1String("runs")) return true;  // the run browser is always shown
    const int i = static_cast<int>(names.indexOf(page));
    if (i < 0) return false;
    pages_->setCurrentIndex(i);
    return true;
}

bool MainWindow::select_pair(const QString& base, const QString& cand) {
    if (!select_run(base)) return false;
    const int row = runs_->row_of(cand);
    if (row < 0) return false;
    run_view_->selectionModel()->select(run_proxy_->mapFromSource(runs_->index(row, 0)),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
    return true;
}

void MainWindow::fill_drops(const std::vector<analysis::DropLine>& drops) {
    drops_->setRowCount(static_cast<int>(drops.size()));
    int row = 0;
    for (const auto& d : drops) {
        drops_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(d.reason)));
        drops_->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(d.path)));
        auto* count = new QTableWidgetItem(QString::number(d.packets));
        count->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        drops_->setItem(row++, 2, count);
    }
}

void MainWindow::drop_clicked(int row) {
    const QTableWidgetItem* reason = drops_->item(row, 0);
    if (!reason) return;
    pages_->setCurrentWidget(traces_);
    traces_->filter(QStringLiteral("dropped: ") + reason->text());
}

QString MainWindow::export_report(const QString& file) {
    if (!data_) return tr("select a run first");
    std::string (*render)(const analysis::Report&) = analysis::render_report_html;
    if (file.endsWith(".md")) render = analysis::render_report_markdown;
    if (file.endsWith(".txt")) render = analysis::render_report_text;
    const analysis::Report* shown = compare_->report();
    const std::string text =
        shown && shown->cand.id == data_->info.id
            ? render(*shown)
            : render(analysis::build_report(*data_, nullptr, analysis::ReportOptions{}));
    std::ofstream out(file.toStdString(), std::ios::binary);
    out << text;
    out.close();
    return out ? QString() : tr("cannot write %1").arg(file);
}

QString MainWindow::export_view(const QString& file) {
    QWidget* page = pages_->currentWidget();
    if (file.endsWith(".svg", Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(file);
        svg.setSize(page->size());
        svg.setViewBox(QRect(QPoint(0, 0), page->size()));
        svg.setTitle(QStringLiteral("pathscope"));
        QPainter painter(&svg);
        page->render(&painter);
        return painter.end() ? QString() : tr("cannot write %1").arg(file);
    }
    return page->grab().save(file) ? QString() : tr("cannot write %1").arg(file);
}

void MainWindow::set_live(int ms) {
    if (ms > 0)
        live_timer_.start(ms);
    else
        live_timer_.stop();
}

bool MainWindow::poll_store() {
    // data_version changes when another connection commits; the query runs
    // in its own implicit transaction, so no read transaction stays open to
    // starve the capture's WAL checkpoints.
    if (!live_) return false;
    int64_t v = 0;
    try {
        v = db::data_version(*live_);
    } catch (const std::exception&) {
        return false;
    }
    if (v == data_version_) return false;
    data_version_ = v;
    std::vector<int64_t> selected;
    for (const QModelIndex& i : run_view_->selectionModel()->selectedRows())
        if (const db::RunInfo* r = runs_->run(run_proxy_->mapToSource(i).row())) selected.push_back(r->id);
    StoreListing listing = list_store(path_);
    if (!listing.error.isEmpty()) return false;
    {
        const QSignalBlocker block(run_view_->selectionModel());
        runs_->set_runs(std::move(listing.runs), std::move(listing.trials_recorded));
        for (int row = 0; row < runs_->rowCount(); ++row)
            if (std::find(selected.begin(), selected.end(), runs_->run(row)->id) != selected.end())
                run_view_->selectionModel()->select(run_proxy_->mapFromSource(runs_->index(row, 0)),
                                                    QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    load_selected();  // the selected run, with what was committed since
    return true;
}

void MainWindow::stage_clicked(const QModelIndex& index) {
    open_stage(stages_->stage(stage_proxy_->mapToSource(index).row()));
}

void MainWindow::open_stage(const QString& stage) {
    if (stage.isEmpty()) return;
    histograms_->show_stage(stage);
    const int node = flame_->graph()->find_node(stage);
    if (node < 0) return;
    pages_->setCurrentWidget(flame_);
    flame_->graph()->zoom_to(node);
}

}  // namespace pathscope::gui
