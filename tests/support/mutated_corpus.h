// Test support: Wireshark-style mutation of the capture corpus. Every file
// of ../shared/corpus/pcap is written again by `editcap -E 0.02 --seed S`
// (each packet byte changed with probability 2%, record headers kept) into a
// test's temporary folder, once per seed, several editcaps at a time.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/corpus.h"

extern char** environ;

namespace pathscope::test {

/// editcap's path on PATH, or "" (it comes with wireshark-common, which tshark pulls in).
inline std::string find_editcap() {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        const size_t end = std::min(dirs.find(':', start), dirs.size());
        const std::filesystem::path p = std::filesystem::path(dirs.substr(start, end - start)) / "editcap";
        if (!p.parent_path().empty() && access(p.c_str(), X_OK) == 0) return p.string();
        start = end + 1;
    }
    return "";
}

/// The seeds: 1, 2, 3 (PATHSCOPE_MUTATION_SEEDS=N for seeds 1..N, for a longer run by hand).
inline std::vector<unsigned> mutation_seeds() {
    unsigned n = 3;
    if (const char* s = std::getenv("PATHSCOPE_MUTATION_SEEDS"); s && std::atoi(s) > 0)
        n = static_cast<unsigned>(std::atoi(s));
    std::vector<unsigned> seeds;
    for (unsigned i = 1; i <= n; ++i) seeds.push_back(i);
    return seeds;
}

struct MutatedFile {
    std::filesystem::path source;  ///< the corpus file
    unsigned seed = 0;
    std::filesystem::path path;  ///< the mutated copy; empty when editcap refused the source
};

/// Writes every corpus file mutated with every seed into `dir`, keeping each
/// file's format (pcap stays pcap, pcapng stays pcapng).
inline std::vector<MutatedFile> mutate_corpus(const std::string& editcap,
                                              const std::filesystem::path& dir,
                                              const std::vector<unsigned>& seeds,
                                              double error_probability = 0.02) {
    std::vector<MutatedFile> out;
    for (const auto& src : corpus_files())
        for (unsigned seed : seeds) {
            MutatedFile m;
            m.source = src;
            m.seed = seed;
            m.path = dir / (src.stem().string() + ".seed" + std::to_string(seed) +
                            src.extension().string());
            out.push_back(m);
        }
    constexpr size_t kAtOnce = 6;  // editcap is mostly start-up time
    std::vector<std::pair<pid_t, size_t>> running;
    auto reap_one = [&] {
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        for (size_t i = 0; i < running.size(); ++i) {
            if (running[i].first != pid) continue;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
                !std::filesystem::exists(out[running[i].second].path))
                out[running[i].second].path.clear();
            running.erase(running.begin() + static_cast<long>(i));
            return;
        }
    };
    const std::string err = std::to_string(error_probability);
    for (size_t i = 0; i < out.size(); ++i) {
        while (running.size() >= kAtOnce) reap_one();
        const std::string format = out[i].source.extension() == ".pcapng" ? "pcapng" : "pcap";
        const std::string seed = std::to_string(out[i].seed);
        const std::string src = out[i].source.string(), dst = out[i].path.string();
        std::vector<const char*> argv = {editcap.c_str(), "-F", format.c_str(), "-E", err.c_str(),
                                         "--seed", seed.c_str(), src.c_str(), dst.c_str(), nullptr};
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        pid_t pid = 0;
        const int rc = posix_spawn(&pid, editcap.c_str(), &fa, nullptr,
                                   const_cast<char* const*>(argv.data()), environ);
        posix_spawn_file_actions_destroy(&fa);
        if (rc != 0) {
            out[i].path.clear();
            continue;
        }
        running.push_back({pid, i});
    }
    while (!running.empty()) reap_one();
    return out;
}

}  // namespace pathscope::test
