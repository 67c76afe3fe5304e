// Plain text built a printf-formatted piece at a time, for the text views.
// fmt's sprintf: printf's format strings, type-checked, and no fixed buffer,
// so a long line (a C++ template symbol) is never cut.
#pragma once

#include <fmt/printf.h>

#include <string>

namespace pathscope::analysis {

struct TextBuilder {
    std::string text;

    template <typename... Args>
    void emit(const char* format, const Args&... args) {
        text += fmt::sprintf(format, args...);
    }
    template <typename... Args>
    void line(const char* format, const Args&... args) {
        emit(format, args...);
        text += '\n';
    }
};

/// Folds lines longer than `columns` at a space, indenting the rest by four.
std::string fold_lines(const std::string& text, size_t columns = 80);

}  // namespace pathscope::analysis
