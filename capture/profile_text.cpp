#include "capture/profile_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "capture/symbol_names.h"

namespace pathscope::capture {

using analysis::FlameTree;

namespace {

std::vector<std::string> split_frames(std::string_view stack) {
    std::vector<std::string> frames;
    size_t start = 0;
    while (start <= stack.size()) {
        const size_t end = std::min(stack.find(';', start), stack.size());
        frames.emplace_back(stack.substr(start, end - start));
        start = end + 1;
    }
    return frames;
}

// The colon that ends a sample header's TIME field ("100.000001:"): the
// command name before it may hold colons of its own ("kworker/0:1").
size_t time_colon(const std::string& line) {
    for (size_t c = line.find(':'); c != std::string::npos; c = line.find(':', c + 1)) {
        size_t b = c;
        bool dot = false;
        auto time_char = [](char ch) {
            return std::isdigit(static_cast<unsigned char>(ch)) || ch == '.';
        };
        for (; b > 0 && time_char(line[b - 1]); --b) dot |= line[b - 1] == '.';
        if (dot && b < c && b > 0 && (line[b - 1] == ' ' || line[b - 1] == '\t')) return c;
    }
    return line.find(':');  // a header printed without its time
}

// The event after the time ("250000 cpu-clock:u:" gives "cpu-clock:u"), or
// "" where perf script was told not to print it.
std::string header_event(const std::string& after_time) {
    std::istringstream fields(after_time);
    for (std::string w; fields >> w;) {
        if (w.find_first_not_of("0123456789") == std::string::npos) continue;  // the period
        return w.size() > 1 && w.back() == ':' ? w.substr(0, w.size() - 1) : "";
    }
    return "";
}

}  // namespace

FlameTree parse_folded(std::istream& in, const std::string& source) {
    FlameTree tree(1, "samples");
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        const size_t space = line.find_last_of(' ');
        double weight = 0;
        const char* first = line.data() + (space == std::string::npos ? 0 : space + 1);
        const char* last = line.data() + line.size();
        auto r = std::from_chars(first, last, weight);
        if (space == std::string::npos || space == 0 || r.ec != std::errc() || r.ptr != last ||
            !std::isfinite(weight) || weight < 0)
            throw std::runtime_error(source + ":" + std::to_string(line_no) +
                                     ": not a folded stack ('frame;frame;... WEIGHT' with a "
                                     "weight of 0 or more after the last space)");
        tree.add(split_frames(std::string_view(line).substr(0, space)), weight);
    }
    return tree;
}

FlameTree parse_perf_script(std::istream& in, const std::string& source,
                            const PerfScriptFilter& filter, std::string* event) {
    FlameTree tree(1, "samples");
    std::string line, comm, sample_event, kept_event;
    std::vector<std::string> leaf_first;
    bool in_sample = false, wanted = false;
    int line_no = 0, samples = 0, seen = 0;
    auto flush = [&] {
        if (!in_sample) return;
        in_sample = false;
        if (!wanted || leaf_first.empty()) {
            leaf_first.clear();
            return;
        }
        // Samples of two events do not add up: one sample of cycles is not
        // one of page-faults.
        if (samples > 0 && sample_event != kept_event)
            throw std::runtime_error(source + ":" + std::to_string(line_no) + ": samples of '" +
                                     kept_event + "' and of '" + sample_event +
                                     "' in one profile; record one event (perf record -e "
                                     "EVENT -g) and import each recording on its own");
        kept_event = sample_event;
        std::vector<std::string> frames{comm};
        frames.insert(frames.end(), leaf_first.rbegin(), leaf_first.rend());
        tree.add(frames, 1);
        ++samples;
        leaf_first.clear();
    };
    while (std::getline(in, line)) {
        ++line_no;
        if (line.empty() || line.find_first_not_of(" \t") == std::string::npos) {
            flush();
            continue;
        }
        if (line[0] == '#') continue;
        if (line[0] != ' ' && line[0] != '\t') {
            // A sample header: "comm pid [cpu] time: period event:". The
            // command name may hold spaces; it ends before the pid.
            flush();
            const size_t colon = time_colon(line);
            if (colon == std::string::npos)
                throw std::runtime_error(source + ":" + std::to_string(line_no) +
                                         ": not a perf script sample header (expected "
                                         "'COMM PID ... TIME: EVENT:'); record with "
                                         "'perf record -g' and convert with 'perf script'");
            // Fields before the colon: COMM... PID[/TID] [CPU] TIME; the
            // command name is whatever precedes the pid.
            std::istringstream fields(line.substr(0, colon));
            std::vector<std::string> f;
            for (std::string w; fields >> w;) f.push_back(w);
            if (!f.empty()) f.pop_back();                      // time
            if (!f.empty() && f.back()[0] == '[') f.pop_back();  // cpu
            std::string tid;
            if (!f.empty()) {  // "TID" or "PID/TID"
                tid = f.back().substr(f.back().find('/') + 1);
                f.pop_back();
            }
            comm.clear();
            for (const auto& w : f) comm += (comm.empty() ? "" : " ") + w;
            sample_event = header_event(line.substr(colon + 1));
            if (comm.empty()) comm = "[unknown]";
            in_sample = true;
            ++seen;
            wanted = (filter.comm.empty() || comm == filter.comm) &&
                     (filter.tid.empty() || tid == filter.tid);
            continue;
        }
        // A frame: "ADDR SYMBOL+0xOFF (MODULE)".
        const size_t a = line.find_first_not_of(" \t");
        const size_t sym = line.find(' ', a);
        if (!in_sample || sym == std::string::npos) continue;
        std::string name = line.substr(sym + 1);
        std::string module;
        if (const size_t open = name.rfind(" ("); open != std::string::npos) {
            module = name.substr(open + 2);
            if (!module.empty() && module.back() == ')') module.pop_back();
            name.erase(open);
        }
        if (const size_t off = name.rfind("+0x"); off != std::string::npos) name.erase(off);
        // As the capture names frames: compact C++ names, and a frame
        // without a symbol under its module ("[librte_net_null.so.23.0]").
        leaf_first.push_back(name == "[unknown]" ? module_frame(module) : compact_symbol(name));
    }
    flush();
    if (samples == 0 && seen > 0)
        throw std::runtime_error(source + ": none of its " + std::to_string(seen) +
                                 " samples matched --comm/--tid");
    if (samples == 0)
        throw std::runtime_error(source + ": no samples with call chains found (record with "
                                 "'perf record -g' and convert with 'perf script')");
    if (event) *event = kept_event;
    return tree;
}

}  // namespace pathscope::capture
