// libFuzzer target: scenario files, as `pathscope run` reads them: the TOML
// with its matrices, FIB rules, ILA mappings, request/response and workload
// tables; --set overrides (each input line "#set KEY=VALUE" is one, so the
// fuzzer mutates those too); then every matrix cell parsed again with its
// settings, as record_matrix does; and the same text as a route file
// (routes.file). A bad file is refused with a ScenarioError naming it;
// anything else thrown, or a crash, is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "capture/scenario.h"
#include "engine/routes.h"
#include "tests/fuzz/fuzz_file.h"

using namespace pathscope;

namespace {

[[noreturn]] void unexpected(const char* what, const std::exception& e) {
    std::fprintf(stderr, "%s threw something other than its documented error: %s\n", what,
                 e.what());
    std::abort();
}

void check_names(const std::string& msg, const std::string& name) {
    if (msg.find(name) == std::string::npos && msg.rfind("--set", 0) != 0 &&
        msg.rfind("[matrix]", 0) != 0) {
        std::fprintf(stderr, "a scenario error that names neither the file nor a --set: %s\n",
                     msg.c_str());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string name = "fuzz.toml";
    std::vector<std::string> sets;
    {
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line) && sets.size() < 8;)
            if (line.rfind("#set ", 0) == 0) sets.push_back(line.substr(5));
    }
    try {
        const capture::Scenario sc = capture::parse_scenario(text, name, "/fuzz", sets);
        capture::describe_variants(sc.engine);
        const auto cells = capture::matrix_cells(sc);
        // As record_matrix: each cell is the file again with the cell's settings.
        for (size_t i = 0; i < cells.size() && i < 16; ++i) {
            std::vector<std::string> cell_sets = sets;
            cell_sets.insert(cell_sets.end(), cells[i].begin(), cells[i].end());
            capture::describe_cell(cells[i]);
            capture::describe_cell(cells[i], "\n");
            try {
                capture::parse_scenario(text, name, "/fuzz", cell_sets);
            } catch (const capture::ScenarioError& e) {
                check_names(e.what(), name);
            }
        }
    } catch (const capture::ScenarioError& e) {
        check_names(e.what(), name);
    } catch (const std::exception& e) {
        unexpected("parse_scenario", e);
    }
    const fuzz::MemFile routes(data, size);
    try {
        engine::read_route_file(routes.path(), 1 + static_cast<uint32_t>(size % 2));
    } catch (const std::runtime_error& e) {
        if (std::string(e.what()).find(routes.path()) == std::string::npos) unexpected("read_route_file", e);
    } catch (const std::exception& e) {
        unexpected("read_route_file", e);
    }
    return 0;
}
