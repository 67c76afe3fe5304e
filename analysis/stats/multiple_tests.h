// Many verdicts at once, and one verdict looked at many times.
// - Benjamini-Hochberg: a report judges dozens of metrics, an experiment
//   many cells, a flame difference many frames; each family's p-values are
//   adjusted together so that the expected share of false discoveries among
//   the verdicts called significant stays at alpha (statsmodels'
//   multipletests(method="fdr_bh") gives the same adjusted values).
// - Alpha spending: `pathscope run --until-decided` looks at its verdicts
//   after every block of trials and stops once they are decided. Each look
//   tests at its own share of alpha (Lan-DeMets' Pocock-type spending
//   function, alpha * ln(1 + (e - 1) t) at information fraction t), and the
//   shares add up to alpha, so the chance of a false positive over all looks
//   stays at most alpha (Bonferroni over the looks).
#pragma once

#include <cstddef>
#include <vector>

namespace pathscope::analysis {

/// Benjamini-Hochberg adjusted p-values (q-values), in the order of `p`.
std::vector<double> bh_adjust(const std::vector<double>& p);
/// How many of `p` Benjamini-Hochberg rejects at false discovery rate `alpha`.
size_t bh_rejections(const std::vector<double>& p, double alpha);

/// A sequential design: looks after block first_look, twice that, four
/// times, ... and max_blocks. Alpha is spent as O'Brien and Fleming's
/// boundary spends it (Lan-DeMets: alpha(t) = 2 - 2 Phi(z_{1-alpha/2} /
/// sqrt t) at information fraction t = blocks / max_blocks), and each look
/// tests at what its step spends, so the looks together never exceed alpha
/// (Bonferroni over the looks: conservative, valid whatever the looks'
/// correlation). Few looks, spending little early: the last one tests at
/// about 96% for a 95% design, where a look after every block at an even
/// spend tested at 99.8% and could not find a 3% change in 20 blocks.
struct AlphaSpending {
    double alpha = 0.05;
    size_t first_look = 3;
    size_t max_blocks = 20;
    /// Whether a look follows block `blocks`.
    bool is_look(size_t blocks) const;
    /// Alpha spent by the looks up to block `blocks` (0 before the first).
    double spent(size_t blocks) const;
    /// The alpha the look after `blocks` blocks tests at (0 when none).
    double at_look(size_t blocks) const;
};

}  // namespace pathscope::analysis
