// Text from the store (labels, scenario names, settings, experiment cells,
// function names of imported profiles) as the GUI shows it: one way for
// every page, over analysis/text/safe_text.h.
#pragma once

#include <QString>
#include <QTextDocument>
#include <string>

#include "analysis/text/safe_text.h"

namespace pathscope::gui {

/// One line: every control character shown as an escape (\x1b, \n),
/// invalid UTF-8 as U+FFFD; never markup, whatever the widget makes of it.
inline QString display_text(const std::string& s) {
    return QString::fromStdString(analysis::printable(s));
}
/// Several lines (a message, a text block): as display_text(), but line
/// feeds and tabs stay.
inline QString display_lines(const std::string& s) {
    return QString::fromStdString(analysis::printable_lines(s));
}
/// A cell of an experiment ("a=1\nb=2") or the --set lines on one line.
inline std::string one_line(std::string s) {
    for (char& c : s)
        if (c == '\n') c = ' ';
    return s;
}
/// For a label or a tooltip that Qt reads as HTML: display_text(), escaped.
inline QString display_html(const std::string& s) { return display_text(s).toHtmlEscaped(); }

/// A tooltip of plain text. Qt takes a tooltip that looks like HTML for
/// HTML (a function named "<b>x</b>" would show bold, "<img src=...>" would
/// load a file); such text is escaped and its lines kept as <br>.
inline QString plain_tooltip(const QString& text) {
    if (!Qt::mightBeRichText(text)) return text;
    return QStringLiteral("<qt>") + text.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")) +
           QStringLiteral("</qt>");
}

}  // namespace pathscope::gui
