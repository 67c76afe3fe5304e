#include "capture/symbol_names.h"

#include <algorithm>
#include <filesystem>

namespace pathscope::capture {

std::string compact_symbol(std::string name) {
    for (std::string::size_type at; (at = name.find("(anonymous namespace)")) != std::string::npos;)
        name.replace(at, 21, "{anon}");
    if (auto at = name.find(" [clone"); at != std::string::npos) name.erase(at);
    // Qualifiers after the parameter list ("f(int) const &") would read as
    // the name's last word below.
    for (bool cut = true; cut;) {
        cut = false;
        for (const char* q : {" const", " volatile", " &&", " &", " noexcept"}) {
            const std::string suffix(q);
            if (name.size() > suffix.size() &&
                name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
                name.erase(name.size() - suffix.size());
                cut = true;
            }
        }
    }
    std::string out;
    int parens = 0, angles = 0;
    for (char c : name) {
        if (c == '(') {
            ++parens;
            continue;
        }
        if (c == ')') {
            parens = std::max(0, parens - 1);
            continue;
        }
        if (parens) continue;
        if (c == '<') ++angles;
        if (c == '>') angles = std::max(0, angles - 1);
        if (c == ' ' && angles == 0 && out.find("operator") == std::string::npos) {
            out.clear();  // what came before was the return type
            continue;
        }
        out += c;
    }
    return out.empty() ? name : out;
}

std::string module_frame(const std::string& module_path) {
    const std::string file = std::filesystem::path(module_path).filename().string();
    if (file.empty()) return "[unknown]";
    // perf's pseudo-modules are bracketed already ("[kernel.kallsyms]", "[vdso]").
    if (file.front() == '[' && file.back() == ']') return file;
    return "[" + file + "]";
}

}  // namespace pathscope::capture
