// Fuzzes the text readers of analysis/: folded stacks, `perf script` output
// and ministat's number columns. Bad input may be refused with an exception,
// never crash; and whatever folded text is accepted must round trip:
// tree -> folded -> tree -> folded gives the same text twice.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "capture/profile_text.h"
#include "analysis/flame_tree.h"
#include "analysis/ministat.h"

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
        capture::parse_perf_script(in, "fuzz");
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
