// Test support: the shared capture corpus (../shared/corpus/pcap beside the
// checkout: real, often malformed IPv6 captures from tcpdump's test suite).
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace pathscope::test {

inline const std::filesystem::path kCorpusDir =
    std::filesystem::path(PATHSCOPE_SOURCE_DIR) / ".." / "shared" / "corpus" / "pcap";

/// Every file of the corpus, sorted; empty when the folder is absent
/// (callers skip with corpus_missing(), a failure under CI=true).
inline std::vector<std::filesystem::path> corpus_files() {
    std::vector<std::filesystem::path> files;
    if (!std::filesystem::is_directory(kCorpusDir)) return files;
    for (const auto& e : std::filesystem::directory_iterator(kCorpusDir))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

/// Why a corpus test cannot run: the folder is part of this workspace's
/// layout, beside the checkout; no script fetches it.
inline std::string corpus_missing() {
    return "the shared capture corpus " + kCorpusDir.string() +
           " is absent: it is expected beside the checkout (../shared/corpus/pcap, "
           "tcpdump's IPv6 test captures); no script fetches it";
}

}  // namespace pathscope::test
