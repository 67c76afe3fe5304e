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
#include <QThreadPool>
#include <utility>
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

// The run browser's columns as wide as their contents, the long texts
// (labels, cells, settings) capped: they elide in the middle and show whole
// in their tooltips. A matrix's labels differ at their ends only; its cell
// column says what differs, so the label gives way first.
void fit_run_columns(QTableView* view) {
    view->resizeColumnsToContents();
    for (const auto& [column, cap] : {std::pair{RunListModel::Label, 96},
                                      {RunListModel::Cell, 210},
                                      {RunListModel::Settings, 220},
                                      {RunListModel::Host, 120}})
        if (view->columnWidth(column) > cap) view->setColumnWidth(column, cap);
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("pathscope"));
    QWidget* left = build_run_list();
    build_pages(build_stage_page());
    QWidget* right = build_right();
    auto* split = new QSplitter;
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(1, 3);
    // The run table's id, label, cell and experiment in view at the default
    // size, and the stage table and the drops whole beside it.
    split->setSizes({450, 950});
    setCentralWidget(split);
    build_status_bar();
    build_menus();
    start_session();
    connect(run_view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::load_selected);
    set_live(kLivePollMs);
    resize(1400, 860);
}

// The session first: its reader stops before the pages it feeds go.
MainWindow::~MainWindow() { delete session_; }

void MainWindow::choose_store() {
    const QString f = QFileDialog::getOpenFileName(this, tr("Open a pathscope store"), {},
                                                   tr("pathscope stores (*.db);;all files (*)"));
    if (!f.isEmpty()) open_store(f, true);
}

QString MainWindow::open_store(const QString& path, bool interactive) {
    // A load of the store being left stops; the reader lists the new one
    // on its thread while the window waits for it, drawn but taking no input.
    progress_->hide();
    cancel_->hide();
    StoreListing listing = session_->open(path);
    if (!listing.error.isEmpty()) {
        statusBar()->showMessage(listing.error);
        if (interactive) QMessageBox::critical(this, tr("Cannot open the store"), listing.error);
        return listing.error;
    }
    const std::string& store = session_->path();
    runs_->set_runs(std::move(listing.runs), std::move(listing.trials_recorded));
    fit_run_columns(run_view_);
    experiments_->set_store(store);
    // A server URL's password is shown nowhere and kept nowhere.
    const QString shown = QString::fromStdString(db::redacted(store));
    setWindowTitle(QStringLiteral("pathscope - %1").arg(shown));
    statusBar()->showMessage(tr("%1: %2 runs").arg(shown).arg(runs_->rowCount()));
    const QString kept = QString::fromStdString(db::without_password(store));
    QSettings settings;
    QStringList recent = settings.value("recent").toStringList();
    recent.removeAll(kept);
    recent.prepend(kept);
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
    if (rows.isEmpty() || session_->path().empty()) return;
    const db::RunInfo* r = runs_->run(run_proxy_->mapToSource(rows.first()).row());
    if (!r) return;
    // The Experiments page follows the selected run's experiment.
    if (!r->experiment.empty()) experiments_->follow(QString::fromStdString(r->experiment));
    // Two runs: the later selected row is the candidate, the other the base.
    const db::RunInfo* other =
        rows.size() == 2 ? runs_->run(run_proxy_->mapToSource(rows.last()).row()) : nullptr;
    int64_t base = 0, id = r->id;
    if (other) {
        base = std::min(r->id, other->id);
        id = std::max(r->id, other->id);
    }
    progress_->show();
    cancel_->show();
    statusBar()->showMessage(other ? tr("comparing run %1 against run %2...").arg(id).arg(base)
                                   : tr("loading run %1...").arg(id));
    session_->load(base, id);
}

void MainWindow::runs_changed(const StoreListing& changes) {
    runs_->update_runs(changes.runs, changes.trials_recorded);
}

void MainWindow::loaded(const LoadedRun& run) {
    progress_->hide();
    cancel_->hide();
    if (!run.error.isEmpty()) {
        statusBar()->showMessage(run.error);
        return;
    }
    ++updates_;
    const db::RunInfo& info = run.summary.info;
    header_->setText(QStringLiteral("<b>run %1 \"%2\"</b> %3, %4 &nbsp; %5")
                         .arg(info.id)
                         .arg(display_html(info.label))
                         .arg(display_html(info.kind))
                         .arg(display_html(info.status))
                         .arg(display_html(info.started_at)));
    // The variant switches the run ran with, and its cell of an experiment.
    QString variants;
    for (const auto& [k, v] : run.summary.facts)
        if (k == db::kVariantsFact) variants = display_html(v);
    if (!info.experiment.empty())
        variants += QStringLiteral("%1experiment %2, cell %3")
                        .arg(variants.isEmpty() ? "" : " &nbsp; ")
                        .arg(display_html(info.experiment))
                        .arg(display_html(one_line(info.cell)));
    if (!variants.isEmpty()) header_->setText(header_->text() + "<br>" + variants);
    // A Linux run says once, on every page, what it cannot show.
    if (run.summary.sampled)
        header_->setText(header_->text() + "<br>" +
                         display_html(std::string("the Linux kernel: stages are sampled CPU time; ") +
                                      analysis::kKernelAbsent));
    path_page_->graph()->set_empty_text(
        run.summary.sampled ? tr("A Linux run has no edge counters: the kernel does not count the "
                                 "packets that go from one stage to the next. Its stages are sampled "
                                 "CPU time: see the Stages page and the flame graphs.")
                            : QString());
    LoadedRun previous = std::exchange(shown_, run);
    data_ = run.data;
    fill_drops(run.summary.drops);
    queues_->set_run(run.data);
    traces_->set_run(run.traces);
    time_series_->set_run(run.data, run.series, run.series_range, run.series_intervals,
                          run.summary.stack_event);
    path_page_->set_graph(run.path, run.path_balanced);
    if (run.report) {
        compare_->set_report(run.report);
        pages_->setCurrentWidget(compare_);
    }
    std::string warn = analysis::starved_warning("run " + std::to_string(info.id),
                                                 run.summary.worker);
    // Disturbed trials, as `show` warns of them: a verdict resting on one is unreliable.
    for (const auto& c : run.summary.conditions)
        if (c.disturbed && !c.replaced)
            warn += (warn.empty() ? "" : "\n") + std::string("trial ") + std::to_string(c.trial) +
                    " was disturbed: " + c.why() + ". " + c.consequence() + ".";
    warning_->setText(display_lines(warn));
    warning_->setVisible(!warn.empty());
    QStringList perf;
    for (const auto& pl : run.summary.perf)
        perf << (pl.supported ? QStringLiteral("%1 %2 %3/pkt")
                                    .arg(display_text(pl.event))
                                    .arg(pl.per_packet, 0, 'f', 3)
                                    .arg(display_text(pl.unit))
                              : QStringLiteral("%1 -").arg(display_text(pl.event)));
    const bool transmit = run.summary.basis.transmit;
    const QString who = run.summary.worker_stages.size() > 1 ? tr("worker 0") : tr("the worker");
    perf_->setText(perf.isEmpty() ? tr("no perf counters in this run")
                                  : (transmit ? tr("perf counters of %1, per datagram it sent: ").arg(who)
                                              : tr("perf counters of %1, per packet it received: ").arg(who)) +
                                        perf.join(QStringLiteral(", ")) +
                                        tr(" (- : not offered by this machine's PMU)"));
    figures_->setText(figures_text(run.summary));
    figures_->setVisible(!figures_->text().isEmpty());
    std::vector<std::pair<int, int>> workers;
    for (const auto& w : run.summary.worker_stages) workers.emplace_back(w.worker, w.lcore);
    const bool has_worker = std::any_of(workers.begin(), workers.end(),
                                        [&](const auto& w) { return w.first == worker_; });
    for (WorkerSelector* w : worker_selectors_) w->set_workers(workers);
    if (worker_ != WorkerSelector::kAllWorkers && has_worker && run.data)
        choose_worker(worker_);  // a live update: the worker's view again
    else {
        worker_ = WorkerSelector::kAllWorkers;
        fill_worker_pages(run);
    }
    if (run.stacks)
        stacks_->set_diff(run.stacks, false, tr("share of samples"),
                          tr("Sampled call stacks: %1").arg(run.stack_event));
    else
        stacks_->set_diff(nullptr, false, {}, tr("This run has no sampled call stacks."));
    if (run.call_views_left_out) {
        stacks_->views_to_come();
        want_call_views();
    } else {
        stacks_->set_views(run.stack_views);
    }
    statusBar()->showMessage(run.live ? tr("run %1: %2 intervals so far")
                                            .arg(info.id)
                                            .arg(run.data->rows.intervals.size())
                                      : tr("run %1 loaded").arg(info.id));
    release_elsewhere(std::move(previous));
}

void MainWindow::release_elsewhere(LoadedRun old) {
    // The pages now hold the new run: `old` holds the last references to
    // the one before, whose rows and trees (a million samples: millions of
    // allocations) take tens of milliseconds to free. Freed on a pool
    // thread, not the GUI's, which a live view would stall at every update.
    QThreadPool::globalInstance()->start([old = std::move(old)]() mutable { old = LoadedRun{}; });
}

void MainWindow::fill_worker_pages(const LoadedRun& run) {
    stages_->set_summary(run.summary);
    histograms_->set_run(run.data);
    const bool transmit = run.summary.basis.transmit;
    flame_->set_diff(run.stages, false, QString::fromLatin1(analysis::cycles_per_path_packet(transmit)),
                     (transmit ? tr("Stage tree: busy cycles per sent datagram (%1)")
                               : tr("Stage tree: busy cycles per received packet (%1)"))
                         .arg(run.summary.sampled ? tr("sampled kernel CPU time") : tr("exact counters")));
}

void MainWindow::choose_worker(int worker) {
    worker_ = worker;
    for (WorkerSelector* w : worker_selectors_) w->set_worker(worker);
    const unsigned generation = ++*worker_generation_;
    if (worker == WorkerSelector::kAllWorkers || !shown_.data) {
        fill_worker_pages(shown_);
        return;
    }
    // The worker's view and its pages, off the GUI thread like a load.
    auto* watcher = new QFutureWatcher<LoadedRun>(this);
    connect(watcher, &QFutureWatcher<LoadedRun>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != worker_generation_->load()) return;  // another choice since
        const LoadedRun view = watcher->result();
        if (!view.error.isEmpty()) {
            statusBar()->showMessage(view.error);
            return;
        }
        ++worker_views_;
        fill_worker_pages(view);
    });
    // A newer choice, or a live update's, makes this view stale: it stops
    // between its steps instead of piling up behind the newer ones.
    const auto current = [latest = worker_generation_, generation] { return generation == latest->load(); };
    watcher->setFuture(QtConcurrent::run([data = shown_.data, worker, current] {
        try {
            if (!current()) return LoadedRun{};
            return compute_pages(
                std::make_shared<db::RunData>(analysis::worker_view(*data, worker, false)), current);
        } catch (const LoadCancelled&) {
            return LoadedRun{};  // dropped above: another choice since
        } catch (const std::exception& e) {
            LoadedRun failed;
            failed.error = display_lines(e.what());
            return failed;
        }
    }));
}

void MainWindow::want_call_views() {
    const bool shown = pages_->currentWidget() == stacks_ && stacks_->view() != StacksPage::View::flame;
    session_->show_call_views(shown);
    if (shown && shown_.call_views_left_out) session_->add_call_views();
}

QString MainWindow::figures_text(const analysis::RunSummary& sum) {
    // The run's latencies and path events, as `show` prints them.
    QStringList parts;
    const double us = sum.info.tsc_hz ? 1e6 / static_cast<double>(sum.info.tsc_hz) : 0;
    for (const auto& l : sum.latencies)
        parts << tr("%1 latency p50/p90/p99 %2/%3/%4 cycles%5")
                     .arg(display_text(l.subject))
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
                     .arg(display_text(f.name))
                     .arg(f.mean, 0, 'f', 3)
                     .arg(display_text(f.unit));
    // What the machine gave the workers, and what the timing itself costs:
    // the lines `show` prints.
    QStringList lines;
    if (!parts.isEmpty()) lines << parts.join(QStringLiteral("; "));
    if (sum.info.kind == db::kCaptureKind) lines << display_text(analysis::disturbance_line(sum.disturbance));
    if (const std::string t = analysis::timing_cost_line(sum.timing, sum.basis.unit,
                                                         sum.all.cycles_per_path_packet);
        !t.empty())
        lines << display_text(t);
    return lines.join(QStringLiteral("\n"));
}

void MainWindow::wait_until_loaded() {
    session_->wait_until_answered();
    if (pages_->currentWidget() == experiments_) experiments_->wait_until_loaded();
}

bool MainWindow::show_page(const QString& page) {
    const QStringList names = {"stages",     "path",       "flame",  "stacks", "queues",
                               "histograms", "timeseries", "traces", "compare", "experiments"};
    if (page == QLatin1String("runs")) return true;  // the run browser is always shown
    const QStringList stack_views = {"topdown", "bottomup", "callers"};
    if (const int v = static_cast<int>(stack_views.indexOf(page)); v >= 0) {
        pages_->setCurrentWidget(stacks_);
        stacks_->show_view(static_cast<StacksPage::View>(v + 1));
        return true;
    }
    if (page == QLatin1String("stacks")) stacks_->show_view(StacksPage::View::flame);
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
    bool sent = false;  // a drop on the send path: the path column says which
    for (const auto& d : drops) {
        drops_->setItem(row, 0, new QTableWidgetItem(display_text(d.reason)));
        drops_->setItem(row, 1, new QTableWidgetItem(display_text(d.path)));
        auto* count = new QTableWidgetItem(QString::number(d.packets));
        count->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        drops_->setItem(row++, 2, count);
        sent = sent || d.path != "receive";
    }
    drops_->setColumnHidden(1, !sent);
    drops_->setVisible(!drops.empty());  // no drops: the stage table takes the width
    if (drops.empty()) return;
    // The drops as wide as their text, the stage table the rest.
    drops_->resizeColumnsToContents();
    int want = 2 * drops_->frameWidth();
    for (int c = 0; c < drops_->columnCount(); ++c)
        if (!drops_->isColumnHidden(c)) want += drops_->horizontalHeader()->sectionSize(c);
    // Room for a scroll bar only when the reasons will not all show.
    const int rows_height = drops_->horizontalHeader()->height() +
                            drops_->rowCount() * drops_->verticalHeader()->defaultSectionSize();
    if (rows_height > drops_->height()) want += drops_->verticalScrollBar()->sizeHint().width();
    const QList<int> sizes = stage_split_->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    if (total > want) stage_split_->setSizes({total - want, want});
}

void MainWindow::drop_clicked(int row) {
    const QTableWidgetItem* reason = drops_->item(row, 0);
    if (!reason) return;
    pages_->setCurrentWidget(traces_);
    traces_->filter(QStringLiteral("dropped: ") + reason->text());
}

QString MainWindow::export_report(const QString& file) {
    if (!data_) return tr("select a run first");
    // The file's ending names the format, as the CLI's --format does; HTML otherwise.
    const analysis::ReportFormat format =
        analysis::report_format_from_file(file.toStdString()).value_or(analysis::ReportFormat::html);
    const analysis::Report* shown = compare_->report();
    const std::string text =
        shown && shown->cand.id == data_->info.id
            ? analysis::render_report(*shown, format)
            : analysis::render_report(analysis::build_report(*data_, nullptr, analysis::ReportOptions{}),
                                      format);
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

void MainWindow::set_live(int ms) { session_->set_live(ms); }

bool MainWindow::poll_store() { return session_->poll(); }

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
