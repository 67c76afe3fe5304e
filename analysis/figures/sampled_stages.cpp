#include "analysis/figures/sampled_stages.h"

#include <cmath>
#include <vector>

#include "analysis/figures/metric_names.h"
#include "analysis/figures/run_summary.h"

namespace pathscope::analysis {

std::map<std::string, double> stage_sampling_errors(const db::RunData& run) {
    std::map<std::string, double> out;
    if (!sampled_stages(run)) return out;
    const PacketBasis basis = packet_basis(run.rows.trials);
    const std::vector<db::StageRow> stages = trial_stage_totals(run);
    std::map<std::string, double> squares;
    size_t trials = 0;
    for (const auto& t : run.rows.trials) {
        const double packets = static_cast<double>(basis.packets(t));
        if (t.replaced || packets <= 0) continue;
        // The trial's period in cycles: every sample stands for the same CPU time.
        double cycles = 0, samples = 0;
        for (const auto& s : stages)
            if (s.trial == t.trial) cycles += static_cast<double>(s.cycles), samples += static_cast<double>(s.calls);
        if (samples <= 0) continue;
        ++trials;
        const double period = cycles / samples;
        for (const auto& s : stages)
            if (s.trial == t.trial) {
                const double e = std::sqrt(static_cast<double>(s.calls)) * period / packets;
                squares[s.stage] += e * e;
            }
        const double all = std::sqrt(samples) * period / packets;
        squares[kAllStages] += all * all;
    }
    for (const auto& [stage, sq] : squares) out[stage] = std::sqrt(sq) / static_cast<double>(trials);
    return out;
}

}  // namespace pathscope::analysis
