#include "gui/pages/experiments_page.h"
#include "gui/display_text.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <set>

#include "gui/models/experiment_grid_model.h"
#include "gui/models/run_list_model.h"

namespace pathscope::gui {

ExperimentsPage::ExperimentsPage(RunListModel* runs, QWidget* parent)
    : QWidget(parent), runs_(runs) {
    grid_ = new ExperimentGridModel(this);
    experiment_ = new QComboBox;
    experiment_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    setting_ = new QComboBox;
    setting_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    view_ = new QTableView;
    view_->setModel(grid_);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->setWordWrap(false);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    status_ = new QLabel;
    status_->setTextFormat(Qt::PlainText);  // experiment and setting names, error messages
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* legend = new QLabel(
        tr("Each cell: the change of the value's mean from the baseline's, in % of the "
           "baseline, with the half-width of the interval its verdict was made from, as "
           "pathscope compare --experiment judges it (paired t on the cells' interleaved "
           "blocks, the false discovery rate controlled over the experiment, at %1% or the "
           "level an --until-decided experiment decided at), and the verdict: green better, "
           "red worse, grey no difference (the interval holds 0), amber unreliable; a cell's "
           "tooltip says its test and why when unreliable or too few trials. Rows: the other "
           "settings. Click a cell to compare its two runs.")
            .arg(kExperimentConfidence));
    legend->setWordWrap(true);
    auto* pick = new QHBoxLayout;
    pick->addWidget(new QLabel(tr("experiment")));
    pick->addWidget(experiment_);
    pick->addSpacing(12);
    pick->addWidget(new QLabel(tr("judge the setting")));
    pick->addWidget(setting_);
    pick->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(pick);
    layout->addWidget(status_);
    layout->addWidget(view_, 1);
    layout->addWidget(legend);

    // A store opened (reset), or the live view's new and finished runs.
    connect(runs_, &QAbstractItemModel::modelReset, this, &ExperimentsPage::runs_changed);
    connect(runs_, &QAbstractItemModel::rowsInserted, this, &ExperimentsPage::runs_changed);
    connect(runs_, &QAbstractItemModel::dataChanged, this, &ExperimentsPage::runs_changed);
    connect(experiment_, &QComboBox::currentIndexChanged, this, [this] {
        fill_settings();
        if (isVisible()) load();
    });
    connect(setting_, &QComboBox::currentIndexChanged, this, [this] {
        if (isVisible()) load();
    });
    connect(view_, &QTableView::clicked, this, &ExperimentsPage::clicked);
    connect(&watcher_, &QFutureWatcher<LoadedExperiment>::finished, this, &ExperimentsPage::loaded);
    runs_changed();
}

void ExperimentsPage::set_store(const std::string& path) {
    path_ = path;
    loaded_key_.clear();
    if (isVisible()) load();
}

void ExperimentsPage::runs_changed() {
    std::map<QString, std::vector<std::string>> cells;
    for (const auto& e : runs_->experiments()) cells[e.id] = e.cells;
    const QString chosen = experiment_->currentData().toString();
    const bool changed = cells != cells_;
    cells_ = std::move(cells);
    {
        const QSignalBlocker block(experiment_);
        experiment_->clear();
        for (const auto& e : runs_->experiments())
            experiment_->addItem(tr("%1: %2 cells of %3").arg(e.id).arg(e.cells.size()).arg(e.scenario),
                                 e.id);
        const int at = experiment_->findData(chosen);
        experiment_->setCurrentIndex(at >= 0 ? at : experiment_->count() - 1);
    }
    if (changed || experiment_->currentData().toString() != chosen) fill_settings();
    if (cells_.empty()) {
        grid_->set_comparison(nullptr);
        status_->setText(tr("This store has no experiments: a scenario with a [matrix] makes one "
                            "(pathscope run samples/udp6-tx-bind-connect.toml)."));
    }
    // A matrix still running adds cells: judge them as they come.
    if (changed && isVisible()) load();
}

void ExperimentsPage::fill_settings() {
    // The settings that take more than one value across the cells, as the
    // matrix names them (what --by takes).
    const QString chosen = setting_->currentText();
    std::vector<std::string> keys;
    std::map<std::string, std::set<std::string>> values;
    const auto it = cells_.find(experiment_->currentData().toString());
    if (it != cells_.end())
        for (const auto& cell : it->second)
            for (const auto& [k, v] : analysis::cell_settings(cell)) {
                if (!values.count(k)) keys.push_back(k);
                values[k].insert(v);
            }
    const QSignalBlocker block(setting_);
    setting_->clear();
    for (const auto& k : keys)
        if (values[k].size() > 1) setting_->addItem(display_text(k));
    const int at = setting_->findText(chosen);
    setting_->setCurrentIndex(at >= 0 ? at : 0);
}

bool ExperimentsPage::choose(const QString& experiment, const QString& setting) {
    int at = experiment_->findData(experiment);
    if (at < 0) return false;
    {
        const QSignalBlocker block(experiment_);
        experiment_->setCurrentIndex(at);
    }
    fill_settings();
    if (!setting.isEmpty()) {
        at = setting_->findText(setting);
        if (at < 0) return false;
        const QSignalBlocker block(setting_);
        setting_->setCurrentIndex(at);
    }
    load();
    return true;
}

void ExperimentsPage::follow(const QString& experiment) {
    const int at = experiment_->findData(experiment);
    if (at >= 0 && at != experiment_->currentIndex()) experiment_->setCurrentIndex(at);
}

void ExperimentsPage::ensure_loaded() {
    const QString experiment = experiment_->currentData().toString();
    const auto it = cells_.find(experiment);
    const QString key = QStringLiteral("%1/%2/%3")
                            .arg(experiment, setting_->currentText())
                            .arg(it == cells_.end() ? 0 : it->second.size());
    if (key != loaded_key_) load();
}

void ExperimentsPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    ensure_loaded();
}

void ExperimentsPage::load() {
    const QString experiment = experiment_->currentData().toString();
    const QString setting = setting_->currentText();
    if (path_.empty() || experiment.isEmpty()) return;
    const auto it = cells_.find(experiment);
    loaded_key_ = QStringLiteral("%1/%2/%3")
                      .arg(experiment, setting)
                      .arg(it == cells_.end() ? 0 : it->second.size());
    if (setting.isEmpty()) {
        ++generation_;
        shown_ = generation_;
        grid_->set_comparison(nullptr);
        status_->setText(tr("Every cell of experiment %1 has the same settings: nothing to judge.")
                             .arg(experiment));
        return;
    }
    const unsigned generation = ++generation_;
    status_->setText(tr("comparing the cells of experiment %1 by %2...").arg(experiment, setting));
    watcher_.setFuture(QtConcurrent::run(
        [path = path_, experiment = experiment.toStdString(), by = setting.toStdString(),
         generation] {
            LoadedExperiment e = load_experiment(path, experiment, by);
            e.generation = generation;
            return e;
        }));
}

void ExperimentsPage::loaded() {
    const LoadedExperiment e = watcher_.result();
    if (e.generation != generation_) return;  // a newer choice is on its way
    shown_ = e.generation;
    if (!e.error.isEmpty()) {
        grid_->set_comparison(nullptr);
        status_->setText(e.error);
        return;
    }
    grid_->set_comparison(e.comparison);
    const auto& c = *e.comparison;
    status_->setText(tr("Experiment %1: %2 judged in every cell, %3 against %2=%4 (the "
                        "baseline); %5 runs. The same table: pathscope compare --experiment %1 "
                        "--by %2")
                         .arg(display_text(c.experiment), display_text(c.by))
                         .arg(display_text(
                             [&] {
                                 std::string v;
                                 for (size_t i = 1; i < c.values.size(); ++i)
                                     v += (i > 1 ? ", " : "") + c.by + "=" + c.values[i];
                                 return v;
                             }()))
                         .arg(display_text(c.values[0]))
                         .arg(c.runs));
}

void ExperimentsPage::wait_until_loaded() {
    while (shown_ != generation_) {
        watcher_.waitForFinished();
        QCoreApplication::processEvents();
    }
}

void ExperimentsPage::clicked(const QModelIndex& index) {
    const qint64 base = index.data(ExperimentGridModel::BaseRunRole).toLongLong();
    const qint64 cand = index.data(ExperimentGridModel::CandRunRole).toLongLong();
    if (base > 0 && cand > 0) emit open_pair(base, cand);
}

}  // namespace pathscope::gui
