// The statistics behind pathscope's paired verdicts, for tests/analysis/
// stats_oracle.py to check against SciPy and statsmodels: one JSON object
// a line in ({"base": [...], "cand": [...], "p": [...]}), one out with
// paired t, Wilcoxon signed-rank and Benjamini-Hochberg's adjusted p.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/stats/multiple_tests.h"
#include "analysis/stats/paired.h"

int main() {
    using namespace pathscope::analysis;
    for (std::string line; std::getline(std::cin, line);) {
        const nlohmann::json in = nlohmann::json::parse(line);
        nlohmann::json out;
        const auto base = in.at("base").get<std::vector<double>>();
        const auto cand = in.at("cand").get<std::vector<double>>();
        const PairedTest t = paired_t(base, cand, 95);
        out["t"] = t.t;
        out["t_p"] = t.p;
        out["difference"] = t.difference;
        out["half_width"] = t.half_width;
        const SignedRankTest w = wilcoxon_signed_rank(base, cand);
        out["w"] = w.statistic;
        out["w_p"] = w.p;
        out["w_exact"] = w.exact;
        out["q"] = bh_adjust(in.at("p").get<std::vector<double>>());
        std::cout << out.dump() << "\n";
    }
    return 0;
}
