#include "analysis/text/safe_text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace pathscope::analysis {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

/// The length of the valid UTF-8 sequence at s[i], or 0 (RFC 3629: no
/// overlong forms, no surrogates, nothing past U+10FFFF); `cp` its code point.
size_t utf8_sequence(std::string_view s, size_t i, uint32_t& cp) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    size_t n;
    uint32_t min;
    if (c < 0x80) {
        cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        n = 2, cp = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((b(k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(k) & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

/// Code points a terminal or a text layout obeys rather than shows.
bool is_control(uint32_t cp) {
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
           cp == 0x200F || cp == 0x061C;
}

std::string shown(uint32_t cp) {
    switch (cp) {
        case '\n': return "\\n";
        case '\r': return "\\r";
        case '\t': return "\\t";
        default: break;
    }
    char buf[16];
    if (cp < 0x80)
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
    else
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
    return buf;
}

std::string visible(std::string_view s, bool keep_lines) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        uint32_t cp = 0;
        const size_t n = utf8_sequence(s, i, cp);
        if (n == 0) {
            out += kReplacement;
            ++i;
            continue;
        }
        if (is_control(cp) && !(keep_lines && (cp == '\n' || cp == '\t')))
            out += shown(cp);
        else
            out.append(s.substr(i, n));
        i += n;
    }
    return out;
}

bool word_char(unsigned char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }

}  // namespace

std::string printable(std::string_view s) { return visible(s, false); }

std::string printable_lines(std::string_view s) { return visible(s, true); }

std::string xml_escape(std::string_view s) {
    const std::string text = printable_lines(s);
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

// Backslash-escapes what CommonMark (and GitHub's tables) would read as
// markup: emphasis, code, links, HTML tags and entities, table pipes. An
// underscore inside a word ("eth_rx") cannot open emphasis, so it stays as
// it is.
std::string markdown_text(std::string_view raw) {
    const std::string s = printable(raw);
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        bool escape = std::string_view("\\`*[]<>|~&").find(c) != std::string_view::npos;
        if (c == '_')
            escape = i == 0 || i + 1 == s.size() || !word_char(static_cast<unsigned char>(s[i - 1])) ||
                     !word_char(static_cast<unsigned char>(s[i + 1]));
        if (escape) out += '\\';
        out += c;
    }
    return out;
}

std::string markdown_code(std::string_view raw, std::string_view info) {
    std::string text = printable_lines(raw);
    if (!text.empty() && text.back() != '\n') text += '\n';
    size_t longest = 0, run = 0;
    for (char c : text) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
    const std::string fence(std::max<size_t>(3, longest + 1), '`');
    return fence + std::string(info) + "\n" + text + fence + "\n";
}

std::string csv_field(std::string_view raw) {
    std::string s = printable(raw);
    if (s.find_first_of(",\"") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string dot_quoted(std::string_view raw) {
    std::string out = "\"";
    for (char c : printable(raw)) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string json_controls_escaped(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        uint32_t cp = 0;
        const size_t n = utf8_sequence(s, i, cp);
        if (n == 0) {  // not from nlohmann's replacing dump; never let it through
            out += kReplacement;
            ++i;
            continue;
        }
        if (is_control(cp) && cp >= 0x20) {  // C0 is nlohmann's (\n, \u001b)
            char buf[16];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
            out += buf;
        } else {
            out.append(s.substr(i, n));
        }
        i += n;
    }
    return out;
}

std::string folded_frame(std::string_view raw) {
    std::string s = printable(raw);
    for (char& c : s)
        if (c == ';') c = ':';
    return s;
}

}  // namespace pathscope::analysis
