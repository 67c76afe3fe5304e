#!/usr/bin/env python3
"""pathscope's paired t, Wilcoxon signed-rank and Benjamini-Hochberg against
SciPy (scipy.stats.ttest_rel, scipy.stats.wilcoxon) and statsmodels
(multipletests(method="fdr_bh")) on generated data: pairs of 3 to 60 with
a shared drift per pair (what blocks are for), continuous values (no
ties: SciPy's exact test below 51 pairs, its normal approximation above),
and families of 1 to 80 p-values. Usage: stats_oracle.py STATS_ORACLE."""
import json, os, random, subprocess, sys

SKIP = 77


def main():
    try:
        from scipy import stats
        from statsmodels.stats.multitest import multipletests
    except ImportError as e:
        print(f"SKIP: {e} (Debian: python3-scipy python3-statsmodels; scripts/setup.sh installs them)")
        return SKIP
    rng = random.Random(30)
    cases = []
    for k in range(300):
        n = rng.choice([3, 4, 5, 6, 8, 10, 12, 20, 30, 50, 51, 60])
        shift = rng.choice([0, 0.2, 1, 3])
        drift = [rng.gauss(0, 5) for _ in range(n)]
        base = [100 + d + rng.gauss(0, 1) for d in drift]
        cand = [100 + d + shift + rng.gauss(0, 1) for d in drift]
        p = [rng.random() ** rng.choice([1, 2, 4]) for _ in range(rng.randint(1, 80))]
        cases.append({"base": base, "cand": cand, "p": p})
    run = subprocess.run([sys.argv[1]], input="".join(json.dumps(c) + "\n" for c in cases),
                         capture_output=True, text=True, check=True)
    got = [json.loads(l) for l in run.stdout.splitlines()]
    assert len(got) == len(cases), (len(got), len(cases))
    bad = 0

    def check(what, ours, theirs, tol, case):
        nonlocal bad
        if abs(ours - theirs) > tol * max(1.0, abs(theirs)):
            bad += 1
            print(f"MISMATCH {what}: pathscope {ours!r}, oracle {theirs!r}; case {json.dumps(case)[:200]}")

    for c, g in zip(cases, got):
        t = stats.ttest_rel(c["cand"], c["base"])
        check("paired t", g["t"], t.statistic, 1e-9, c)
        check("paired t p", g["t_p"], t.pvalue, 1e-9, c)
        n = len(c["base"])
        crit = stats.t.ppf(0.975, n - 1)
        # pathscope's 95% interval is ministat's t table: three decimals.
        sd = stats.tstd([b - a for a, b in zip(c["base"], c["cand"])])
        check("paired t half-width", g["half_width"], crit * sd / n ** 0.5, 2e-3, c)
        w = stats.wilcoxon(c["cand"], c["base"], method="exact" if n <= 50 else "approx")
        check("signed-rank statistic", g["w"], w.statistic, 1e-12, c)
        check("signed-rank p", g["w_p"], w.pvalue, 1e-9, c)
        if g["w_exact"] != (n <= 50):
            bad += 1
            print(f"MISMATCH exact: pathscope {g['w_exact']}, n = {n}")
        q = multipletests(c["p"], method="fdr_bh")[1]
        for ours, theirs in zip(g["q"], q):
            check("Benjamini-Hochberg q", ours, theirs, 1e-12, c)
    print(f"{len(cases)} cases: paired t, Wilcoxon signed-rank and Benjamini-Hochberg against "
          f"SciPy {__import__('scipy').__version__} and statsmodels "
          f"{__import__('statsmodels').__version__}: {bad} mismatch(es)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
