// Plain text built a printf-formatted piece at a time, for the text views.
#pragma once

#include <cstdio>
#include <string>

namespace pathscope::analysis {

struct TextBuilder {
    std::string text;

    template <typename... Args>
    void emit(const char* fmt, Args... args) {
        char buf[1024];
        std::snprintf(buf, sizeof buf, fmt, args...);
        text += buf;
    }
    template <typename... Args>
    void line(const char* fmt, Args... args) {
        emit(fmt, args...);
        text += '\n';
    }
};

}  // namespace pathscope::analysis
