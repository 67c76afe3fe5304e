#include "gui/pages/stacks_page.h"
#include "gui/display_text.h"

#include <QCheckBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <regex>

#include "gui/models/call_tree_model.h"
#include "gui/models/caller_callee_model.h"
#include "gui/models/name_filter_proxy.h"

namespace pathscope::gui {

namespace {

// Every column wide enough for its header, the symbol taking the rest.
void fit_columns(QHeaderView* h) {
    h->setStretchLastSection(false);
    h->setMinimumSectionSize(60);
    const QFontMetrics fm(h->font());
    for (int c = 1; c < h->count(); ++c) {
        const QString text = h->model()->headerData(c, Qt::Horizontal).toString();
        h->setSectionResizeMode(c, QHeaderView::Interactive);
        h->resizeSection(c, std::max(90, fm.horizontalAdvance(text) + 28));
    }
    if (h->count() > 0) h->setSectionResizeMode(0, QHeaderView::Stretch);
}

QTreeView* tree_view(QAbstractItemModel* model) {
    auto* v = new QTreeView;
    v->setModel(model);
    v->setSortingEnabled(true);
    v->setUniformRowHeights(true);  // a million rows scroll without measuring each
    v->setAlternatingRowColors(true);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setEditTriggers(QAbstractItemView::NoEditTriggers);
    return v;
}

QTableView* table_view(QAbstractItemModel* model) {
    auto* v = new QTableView;
    v->setModel(model);
    v->setSortingEnabled(true);
    v->setAlternatingRowColors(true);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setSelectionMode(QAbstractItemView::SingleSelection);
    v->setEditTriggers(QAbstractItemView::NoEditTriggers);
    v->verticalHeader()->hide();
    v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 6);
    return v;
}

NameFilterProxy* proxy_of(QAbstractItemModel* source, QObject* parent) {
    auto* p = new NameFilterProxy(parent);
    p->setSourceModel(source);
    return p;
}

// The column a view opens sorted by (descending): the inclusive cost (the
// candidate's in a comparison) where there are self and inclusive, else the cost.
int default_sort_column(bool comparison, bool self_and_inclusive) {
    if (self_and_inclusive) return comparison ? 4 : 3;
    return comparison ? 2 : 1;
}

}  // namespace

StacksPage::StacksPage(QWidget* parent) : QWidget(parent) {
    flame_ = new FlamePage;
    top_down_ = new CallTreeModel(this);
    bottom_up_ = new CallTreeModel(this);
    functions_ = new CallerCalleeModel(this);
    callers_ = new CallLinksModel(CallLinksModel::Direction::callers, this);
    callees_ = new CallLinksModel(CallLinksModel::Direction::callees, this);
    top_down_proxy_ = proxy_of(top_down_, this);
    bottom_up_proxy_ = proxy_of(bottom_up_, this);
    functions_proxy_ = proxy_of(functions_, this);
    callers_proxy_ = proxy_of(callers_, this);
    callees_proxy_ = proxy_of(callees_, this);

    top_down_view_ = tree_view(top_down_proxy_);
    top_down_view_->setToolTip(tr("double-click a function for its callers and callees"));
    bottom_up_view_ = tree_view(bottom_up_proxy_);
    bottom_up_view_->setToolTip(top_down_view_->toolTip());
    functions_view_ = table_view(functions_proxy_);
    callers_view_ = table_view(callers_proxy_);
    callers_view_->setToolTip(tr("double-click a caller to follow it"));
    callees_view_ = table_view(callees_proxy_);
    callees_view_->setToolTip(tr("double-click a callee to follow it"));

    links_title_ = new QLabel;
    auto* links = new QSplitter(Qt::Vertical);
    links->addWidget(callers_view_);
    links->addWidget(callees_view_);
    auto* lower = new QWidget;
    auto* lower_layout = new QVBoxLayout(lower);
    lower_layout->setContentsMargins(0, 0, 0, 0);
    lower_layout->addWidget(links_title_);
    lower_layout->addWidget(links, 1);
    auto* caller_callee = new QSplitter(Qt::Vertical);
    caller_callee->addWidget(functions_view_);
    caller_callee->addWidget(lower);

    tabs_ = new QTabWidget;
    tabs_->addTab(flame_, tr("Flame graph"));
    tabs_->addTab(top_down_view_, tr("Top-down"));
    tabs_->addTab(bottom_up_view_, tr("Bottom-up"));
    tabs_->addTab(caller_callee, tr("Caller/callee"));

    search_ = new QLineEdit;
    search_->setPlaceholderText(tr("search functions (all views)"));
    search_->setClearButtonEnabled(true);
    search_->setMinimumWidth(search_->fontMetrics().horizontalAdvance(search_->placeholderText()) + 48);
    regex_ = new QCheckBox(tr("regex"));
    note_ = new QLabel;
    note_->setWordWrap(true);
    auto* bar = new QHBoxLayout;
    bar->addWidget(search_);
    bar->addWidget(regex_);
    bar->addWidget(note_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(tabs_, 1);

    auto research = [this] { search(search_->text(), regex_->isChecked()); };
    connect(search_, &QLineEdit::textChanged, this, research);
    connect(regex_, &QCheckBox::toggled, this, research);
    connect(tabs_, &QTabWidget::currentChanged, this, &StacksPage::view_changed);
    connect(top_down_view_, &QTreeView::doubleClicked, this, &StacksPage::open_from);
    connect(bottom_up_view_, &QTreeView::doubleClicked, this, &StacksPage::open_from);
    connect(callers_view_, &QTableView::doubleClicked, this, &StacksPage::open_from);
    connect(callees_view_, &QTableView::doubleClicked, this, &StacksPage::open_from);
    connect(functions_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) select_function(current.data(NameIdRole).toUInt());
            });
    set_views({});
}

void StacksPage::set_diff(std::shared_ptr<const analysis::FlameDiff> diff, bool differential,
                          const QString& unit, const QString& title) {
    flame_->set_diff(std::move(diff), differential, unit, title);
}

void StacksPage::set_views(analysis::CallViews views) {
    views_ = std::move(views);
    top_down_->set_tree(views_.top_down);
    bottom_up_->set_tree(views_.bottom_up);
    functions_->set_functions(views_.callers);
    callers_->set_function(views_.callers, -1);
    callees_->set_function(views_.callers, -1);
    links_title_->setText(tr("Select a function above for its callers (upper table) and callees (lower), each with the whole width for their names."));
    for (QHeaderView* h : {top_down_view_->header(), bottom_up_view_->header(),
                           functions_view_->horizontalHeader(), callers_view_->horizontalHeader(),
                           callees_view_->horizontalHeader()})
        fit_columns(h);
    if (!views_.top_down) {
        note_->setText(tr("This run has no sampled call stacks."));
    } else {
        const analysis::CostColumns& c = views_.top_down->columns();
        note_->setText(c.comparison()
                           ? tr("Candidate against base: shares of each run's %1, change in "
                                "percentage points; grey: %2.")
                                 .arg(display_text(c.unit()),
                                      display_text(c.noise_method()))
                           : tr("%L1 %2; a share is of all of them, as the flame graph's.")
                                 .arg(c.samples(views_.top_down->total(0), 0), 0, 'f', 0)
                                 .arg(display_text(c.unit())));
    }
    sort_default();
    if (!search_->text().isEmpty()) search(search_->text(), regex_->isChecked());
    top_down_view_->expandToDepth(0);
    bottom_up_view_->expand(bottom_up_proxy_->index(0, 0));  // the hottest function's callers
    // Caller/callee opens on the function with the most samples of its own
    // (the candidate's, in a comparison).
    if (views_.callers) {
        const analysis::CostColumns& c = views_.callers->columns();
        int64_t hottest = -1;
        double most = 0;
        for (uint32_t id : views_.callers->functions())
            if (const double v = c.value(views_.callers->self(id), c.sides() - 1); v > most) {
                most = v;
                hottest = id;
            }
        select_function(hottest);
    }
}

void StacksPage::views_to_come() {
    set_views({});
    note_->setText(tr("The top-down, bottom-up and caller/callee views are made when one of "
                      "their tabs is shown."));
}

void StacksPage::sort_default() {
    const bool comparison = views_.top_down && views_.top_down->columns().comparison();
    top_down_view_->sortByColumn(default_sort_column(comparison, true), Qt::DescendingOrder);
    bottom_up_view_->sortByColumn(default_sort_column(comparison, false), Qt::DescendingOrder);
    functions_view_->sortByColumn(default_sort_column(comparison, true), Qt::DescendingOrder);
    callers_view_->sortByColumn(default_sort_column(comparison, false), Qt::DescendingOrder);
    callees_view_->sortByColumn(default_sort_column(comparison, false), Qt::DescendingOrder);
}

void StacksPage::show_view(View v) { tabs_->setCurrentIndex(static_cast<int>(v)); }

StacksPage::View StacksPage::view() const { return static_cast<View>(tabs_->currentIndex()); }

void StacksPage::search(const QString& pattern, bool regex) {
    if (search_->text() != pattern) search_->setText(pattern);  // re-enters once, harmlessly
    if (regex_->isChecked() != regex) regex_->setChecked(regex);
    std::vector<bool> matches;
    try {
        if (views_.top_down) matches = views_.top_down->match_names(pattern.toStdString(), regex);
        search_->setStyleSheet({});
    } catch (const std::regex_error&) {  // an unfinished regular expression
        search_->setStyleSheet(QStringLiteral("color: #b03020"));
    }
    if (pattern.isEmpty()) matches.clear();
    for (NameFilterProxy* p : {top_down_proxy_, bottom_up_proxy_, functions_proxy_, callers_proxy_,
                               callees_proxy_})
        p->set_matches(matches);
    flame_->search(pattern, regex);
    // Open the trees down to the matches near the top.
    if (!pattern.isEmpty()) {
        top_down_view_->expandToDepth(2);
        bottom_up_view_->expandToDepth(0);
    }
}

bool StacksPage::show_function(const QString& name) {
    if (!views_.callers) return false;
    const int64_t id = views_.callers->find(name.toStdString());
    if (id < 0) return false;
    select_function(id);
    show_view(View::callers);
    return true;
}

QString StacksPage::shown_function() const {
    const int64_t id = callers_->function();
    return id >= 0 && views_.callers ? display_text(views_.callers->tree().name_of(static_cast<uint32_t>(id)))
                                     : QString();
}

void StacksPage::open_from(const QModelIndex& index) {
    const QVariant id = index.data(NameIdRole);
    if (!id.isValid()) return;
    select_function(id.toUInt());
    show_view(View::callers);
}

void StacksPage::select_function(int64_t name_id) {
    if (!views_.callers || name_id < 0) return;
    if (callers_->function() != name_id) {
        callers_->set_function(views_.callers, name_id);
        callees_->set_function(views_.callers, name_id);
        fit_columns(callers_view_->horizontalHeader());
        fit_columns(callees_view_->horizontalHeader());
    }
    links_title_->setText(tr("Callers (upper table) and callees (lower) of <b>%1</b>")
                              .arg(display_text(
                                       views_.callers->tree().name_of(static_cast<uint32_t>(name_id)))
                                       .toHtmlEscaped()));
    const int row = functions_->row_of(static_cast<uint32_t>(name_id));
    const QModelIndex at = functions_proxy_->mapFromSource(functions_->index(row, 0));
    if (at.isValid() && functions_view_->currentIndex().row() != at.row()) {
        functions_view_->setCurrentIndex(at);
        functions_view_->scrollTo(at);
    }
}

}  // namespace pathscope::gui
