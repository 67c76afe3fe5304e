// Fuzzes every text profile reader: folded stacks and `perf script` output
// (what `pathscope import folded|perf` reads; speedscope JSON is only
// written, so it is reached as an export of what was read) and ministat's
// number columns (`pathscope stats`). Bad input may be refused with an
// exception, never crash; whatever folded text is accepted must round trip:
// tree -> folded -> tree -> folded gives the same text twice. The perf
// reader also runs with the --comm/--tid filter the first two words of the
// input name, and its trees go through the call views a report shows.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "capture/profile_text.h"
#include "analysis/trees/call_tree.h"
#include "analysis/trees/flame_tree.h"
#include "analysis/stats/ministat.h"

using namespace pathscope::analysis;
using namespace pathscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        std::istringstream in(text);
        const FlameTree t = capture::parse_folded(in, "fuzz");
        const std::string once = to_folded(t);
        std::istringstream again(once);
        if (to_folded(capture::parse_folded(again, "fuzz")) != once) std::abort();
        to_speedscope({{"fuzz", &t}}, "fuzz");
    } catch (const std::exception&) {
    }
    try {
        std::istringstream in(text);
        const FlameTree t = capture::parse_perf_script(in, "fuzz");
        build_call_views(t);
        to_speedscope({{"fuzz", &t}}, "fuzz");
    } catch (const std::exception&) {
    }
    try {
        std::istringstream words(text);
        capture::PerfScriptFilter filter;
        words >> filter.comm >> filter.tid;
        std::istringstream in(text);
        std::string event;
        const FlameTree t = capture::parse_perf_script(in, "fuzz", filter, &event);
        build_call_views(t, t);
    } catch (const std::exception&) {
    }
    try {
        std::istringstream in(text);
        const DataSet ds = read_data_set(in, "fuzz", 1 + static_cast<int>(size % 3), " \t,");
        if (ds.values.size() >= 3) render_ministat({ds, ds});
    } catch (const std::exception&) {
    }
    return 0;
}
