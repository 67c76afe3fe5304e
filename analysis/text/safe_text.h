// Text that came from outside (run labels, scenario file names and values,
// experiment cells, function names from imported profiles) made safe for
// each place it is written. One function a sink; every renderer, export and
// printed table calls these, never its own copy.
//
// Every sink starts from printable(): the text as valid UTF-8 (a byte that
// is not part of a valid sequence becomes U+FFFD), with every control
// character shown, not obeyed: C0 (ESC, CR, BEL, ...), DEL, C1 and the
// bidirectional overrides (which reorder what a terminal or a review page
// shows) become escapes a reader can see: \n \r \t \x1b \x7f \u0085 \u202e.
// A backslash is kept as it is, so "\x1b" read back may be either; that is
// the price of showing a name as it was written.
#pragma once

#include <string>
#include <string_view>

namespace pathscope::analysis {

/// One line for a terminal or a table cell: every control shown as an escape.
std::string printable(std::string_view s);
/// A whole document for a terminal (a report, a table): as printable(), but
/// line feeds and tabs stay, as the document's own layout.
std::string printable_lines(std::string_view s);

/// XML/HTML text and attribute values: printable_lines(), then & < > " '.
std::string xml_escape(std::string_view s);
/// A Markdown line or table cell: printable() (so a cell stays on its line),
/// then what CommonMark and GitHub's tables would read as markup escaped.
std::string markdown_text(std::string_view s);
/// A fenced Markdown code block holding `text` (printable_lines()), its fence
/// longer than any run of backticks inside, so the text cannot close it.
std::string markdown_code(std::string_view text, std::string_view info = "");
/// An RFC 4180 field: printable(), quoted when it holds a comma or a quote.
std::string csv_field(std::string_view s);
/// A Graphviz quoted string, quotes included: printable(), with \ and "
/// escaped (so a name can neither end the string nor start a dot escape).
std::string dot_quoted(std::string_view s);
/// A JSON document as nlohmann dumps it (valid UTF-8, C0 controls already
/// escaped), with the controls JSON lets through raw escaped too: DEL, C1
/// and the bidi overrides become \u007f, \u0085, \u202e. The strings a
/// parser reads are the same; a terminal showing the file obeys none.
std::string json_controls_escaped(std::string_view dumped);
/// One frame of a folded stack: printable() (a frame stays on its line), and
/// ';' (which would split the frame) becomes ':', as stackcollapse-perf.pl
/// does. Spaces may stay: the weight is what follows the line's last space.
std::string folded_frame(std::string_view s);

}  // namespace pathscope::analysis
