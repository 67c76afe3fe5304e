#include "gui/pages/flame_page.h"
#include "gui/display_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace pathscope::gui {

FlamePage::FlamePage(QWidget* parent) : QWidget(parent) {
    graph_ = new FlameGraphWidget;
    title_ = new QLabel;
    title_->setWordWrap(true);  // a comparison's noise rule is a sentence
    title_->setTextFormat(Qt::PlainText);  // may name an imported profile's event
    crumbs_ = new QLabel;
    crumbs_->setTextInteractionFlags(Qt::TextBrowserInteraction);
    share_ = new QLabel;
    hover_ = new QLabel;
    hover_->setTextFormat(Qt::PlainText);  // a function's name, never markup
    hover_->setWordWrap(true);
    search_ = new QLineEdit;
    search_->setPlaceholderText(tr("search frames"));
    search_->setClearButtonEnabled(true);
    regex_ = new QCheckBox(tr("regex"));
    back_ = new QToolButton;
    back_->setText(QStringLiteral("\u2190"));
    back_->setToolTip(tr("back (zoom out to where you were)"));
    forward_ = new QToolButton;
    forward_->setText(QStringLiteral("\u2192"));
    forward_->setToolTip(tr("forward"));
    threshold_ = new QComboBox;
    threshold_->setToolTip(tr("frames narrower than this share of the view merge into \"others\""));
    for (const auto& [text, f] : {std::pair{"merge < 0.1%", 0.001}, {"merge < 0.5%", 0.005},
                                  {"merge < 1%", 0.01}, {"merge none", 0.0}})
        threshold_->addItem(tr(text), f);
    auto* colours = new QComboBox;
    colours->addItem(tr("colour by name"));
    colours->addItem(tr("colour by namespace or module"));
    colours->addItem(tr("colour by depth"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(back_);
    bar->addWidget(forward_);
    bar->addWidget(crumbs_, 1);
    bar->addWidget(search_);
    bar->addWidget(regex_);
    bar->addWidget(share_);
    bar->addWidget(threshold_);
    bar->addWidget(colours);
    auto* scroll = new QScrollArea;
    scroll->setWidget(graph_);
    scroll->setWidgetResizable(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addLayout(bar);
    layout->addWidget(scroll, 1);
    layout->addWidget(hover_);

    connect(back_, &QToolButton::clicked, graph_, &FlameGraphWidget::back);
    connect(forward_, &QToolButton::clicked, graph_, &FlameGraphWidget::forward);
    connect(graph_, &FlameGraphWidget::zoomed, this, &FlamePage::refresh);
    connect(graph_, &FlameGraphWidget::hovered, hover_, &QLabel::setText);
    connect(crumbs_, &QLabel::linkActivated, this, [this](const QString& link) {
        graph_->zoom_to(link.toInt());
    });
    // Typing waits for a pause, then matches on a worker thread; the
    // newest result is shown, an older one arriving late is dropped.
    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kSearchPauseMs);
    connect(search_, &QLineEdit::textChanged, debounce_, qOverload<>(&QTimer::start));
    connect(regex_, &QCheckBox::toggled, debounce_, qOverload<>(&QTimer::start));
    connect(debounce_, &QTimer::timeout, this, [this] {
        graph_->search_async(search_->text(), regex_->isChecked());
    });
    connect(graph_, &FlameGraphWidget::searched, this, [this](bool ok) {
        search_->setStyleSheet(ok ? QString() : QStringLiteral("color: #b03020"));
        refresh();
    });
    connect(threshold_, &QComboBox::currentIndexChanged, this, [this](int i) {
        graph_->set_min_fraction(threshold_->itemData(i).toDouble());
    });
    connect(colours, &QComboBox::currentIndexChanged, this, [this](int i) {
        graph_->set_colours(i == 0   ? FlameGraphWidget::Colours::by_name
                            : i == 1 ? FlameGraphWidget::Colours::by_namespace
                                     : FlameGraphWidget::Colours::by_depth);
    });
    refresh();
}

void FlamePage::set_diff(std::shared_ptr<const analysis::FlameDiff> diff, bool differential,
                         const QString& unit, const QString& title) {
    title_->setText(title);
    graph_->set_diff(std::move(diff), differential, unit);
    if (!search_->text().isEmpty()) search(search_->text(), regex_->isChecked());
    refresh();
}

QString FlamePage::title() const { return title_->text(); }

void FlamePage::search(const QString& pattern, bool regex) {
    {  // at once: no debounced search of the same text after it
        const QSignalBlocker a(search_), b(regex_);
        search_->setText(pattern);
        regex_->setChecked(regex);
    }
    debounce_->stop();
    try {
        graph_->set_search(pattern, regex);
        search_->setStyleSheet({});
    } catch (const std::exception&) {  // an unfinished regular expression
        graph_->set_search({}, false);
        search_->setStyleSheet(QStringLiteral("color: #b03020"));
    }
    refresh();
}

QString FlamePage::breadcrumb_text() const { return crumbs_->text(); }
QString FlamePage::share_text() const { return share_->text(); }

void FlamePage::refresh() {
    // The breadcrumb: each ancestor of the zoom root is a link back to it.
    QStringList parts;
    const analysis::FlameDiff* d = graph_->diff();
    if (d && !d->nodes.empty()) {
        std::vector<int> chain;
        for (int n = graph_->zoom_root(); n >= 0; n = d->nodes[static_cast<size_t>(n)].parent)
            chain.insert(chain.begin(), n);
        for (int n : chain) {
            const QString name = n == 0 ? QStringLiteral("all")
                                        : display_text(d->nodes[static_cast<size_t>(n)].name)
                                              .toHtmlEscaped();
            parts << (n == graph_->zoom_root() ? QStringLiteral("<b>%1</b>").arg(name)
                                               : QStringLiteral("<a href=\"%1\">%2</a>").arg(n).arg(name));
        }
    }
    crumbs_->setText(parts.join(QStringLiteral(" &gt; ")));
    share_->setText(search_->text().isEmpty()
                        ? QString()
                        : tr("%1% matched").arg(graph_->search_share() * 100, 0, 'f', 1));
}

}  // namespace pathscope::gui
