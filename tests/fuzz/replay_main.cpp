// A main for a fuzz target's LLVMFuzzerTestOneInput without libFuzzer: runs
// every file of the folders (or files) it is given, in name order, so the
// seeds and every input a fuzzer ever found stay fixed in the normal test
// suite (under ASan+UBSan in the asan preset). An argument that begins with
// '?' is a folder that may be missing (the shared corpus); the others must
// exist. Fails when no input was run.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        const bool optional = !arg.empty() && arg[0] == '?';
        if (optional) arg.erase(0, 1);
        std::error_code ec;
        if (fs::is_regular_file(arg, ec)) {
            inputs.emplace_back(arg);
            continue;
        }
        if (!fs::is_directory(arg, ec)) {
            if (optional) {
                std::printf("replay: %s is not there; skipped\n", arg.c_str());
                continue;
            }
            std::fprintf(stderr, "replay: %s: no such file or folder\n", arg.c_str());
            return 2;
        }
        std::vector<fs::path> files;
        for (const auto& e : fs::recursive_directory_iterator(arg))
            if (e.is_regular_file()) files.push_back(e.path());
        std::sort(files.begin(), files.end());
        inputs.insert(inputs.end(), files.begin(), files.end());
    }
    for (const auto& p : inputs) {
        std::ifstream f(p, std::ios::binary);
        const std::vector<char> bytes{std::istreambuf_iterator<char>(f), {}};
        if (!f.good() && !f.eof()) {
            std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
            return 2;
        }
        std::printf("replay: %s (%zu bytes)\n", p.c_str(), bytes.size());
        std::fflush(stdout);
        LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("replay: %zu inputs, no crash\n", inputs.size());
    return inputs.empty() ? 1 : 0;
}
