// Each sink's escaping of outside text (analysis/text/safe_text.h), and the
// renderers that write names through it.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/render/csv_export.h"
#include "analysis/trees/flame_tree.h"
#include "analysis/text/safe_text.h"

using namespace pathscope::analysis;

namespace {

const std::string kEvil =
    "<script>alert(1)</script>|\"q\",`t`;x\r\n\x1b[2J\x1b]0;title\x07\x01\x7f\xc2\x85\xe2\x80\xae\xff";

bool has_raw_control(const std::string& s, bool lines_allowed) {
    for (unsigned char c : s)
        if ((c < 0x20 && !(lines_allowed && (c == '\n' || c == '\t'))) || c == 0x7f) return true;
    return s.find("\xc2\x85") != std::string::npos || s.find("\xe2\x80\xae") != std::string::npos;
}

}  // namespace

TEST(SafeText, PrintableShowsEveryControlAndReplacesInvalidUtf8) {
    const std::string p = printable(kEvil);
    EXPECT_FALSE(has_raw_control(p, false));
    EXPECT_NE(p.find("\\r\\n\\x1b[2J\\x1b]0;title\\x07\\x01\\x7f\\u0085\\u202e"), std::string::npos) << p;
    EXPECT_NE(p.find("\xEF\xBF\xBD"), std::string::npos);  // U+FFFD for the lone 0xff
    EXPECT_EQ(printable("eth_rx \xc3\xa9t\xc3\xa9 \xe2\x86\x92 ok"), "eth_rx \xc3\xa9t\xc3\xa9 \xe2\x86\x92 ok");
    // Overlong forms, surrogates and truncated sequences are not UTF-8.
    EXPECT_EQ(printable("\xc0\xaf"), "\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_EQ(printable("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_EQ(printable("a\xe2\x82"), "a\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_EQ(printable_lines("a\n\tb\rc"), "a\n\tb\\rc");
}

TEST(SafeText, HtmlHasNoMarkupAndNoControls) {
    const std::string h = xml_escape(kEvil);
    EXPECT_EQ(h.find('<'), std::string::npos);
    EXPECT_EQ(h.find('"'), std::string::npos);
    EXPECT_NE(h.find("&lt;script&gt;"), std::string::npos);
    EXPECT_FALSE(has_raw_control(h, true));
}

TEST(SafeText, MarkdownCellStaysOneCell) {
    const std::string m = markdown_text(kEvil);
    EXPECT_EQ(m.find('\n'), std::string::npos);
    for (size_t i = 0; i < m.size(); ++i) {
        if (m[i] == '|' || m[i] == '<' || m[i] == '`') {
            EXPECT_EQ(m[i - 1], '\\') << m;
        }
    }
    EXPECT_EQ(markdown_text("eth_rx"), "eth_rx");  // an underscore inside a word stays
    // A code block's fence is longer than any backtick run inside.
    const std::string code = markdown_code("a ``` b\n````\n");
    EXPECT_EQ(code.substr(0, 6), "`````\n");
    EXPECT_EQ(code.substr(code.size() - 6), "`````\n");
}

TEST(SafeText, CsvFieldIsOneField) {
    EXPECT_EQ(csv_field("plain"), "plain");
    EXPECT_EQ(csv_field("a,\"b\"\r\n"), "\"a,\"\"b\"\"\\r\\n\"");
    EXPECT_FALSE(has_raw_control(csv_field(kEvil), false));
}

TEST(SafeText, DotStringCannotEndEarly) {
    EXPECT_EQ(dot_quoted("a\"b\\"), "\"a\\\"b\\\\\"");
    const std::string d = dot_quoted(kEvil);
    EXPECT_FALSE(has_raw_control(d, false));
    // Every quote inside is escaped: the string ends at its last character.
    for (size_t i = 1; i + 1 < d.size(); ++i) {
        if (d[i] != '"') continue;
        size_t slashes = 0;
        for (size_t k = i; k > 0 && d[k - 1] == '\\'; --k) ++slashes;
        EXPECT_EQ(slashes % 2, 1u) << d;
    }
}

TEST(SafeText, FoldedFrameStaysOneFrame) {
    FlameTree t(1, "samples");
    t.add({"main", kEvil + " 12", "leaf"}, 5);
    const std::string folded = to_folded(t);
    ASSERT_EQ(std::count(folded.begin(), folded.end(), '\n'), 1) << folded;
    const std::string stack = folded.substr(0, folded.rfind(' '));
    EXPECT_EQ(std::count(stack.begin(), stack.end(), ';'), 2) << folded;
    EXPECT_EQ(folded.substr(folded.rfind(' ')), " 5\n");
    EXPECT_FALSE(has_raw_control(folded, true));
}
