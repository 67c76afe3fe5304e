#!/usr/bin/env python3
"""The bench's printed statistics against an independent computation over
the same per-call cycles (--dump-cycles): count, min, max, average, nearest-
rank p50/p90/p95/p99 and MAD. Also: the histogram's counts add up to the
count, and the ASCII fallback draws no block characters.

usage: bench_stats.py PATHSCOPE WORKDIR"""
import math
import os
import re
import subprocess
import sys


def nearest_rank(sorted_values, p):
    k = math.ceil(p / 100 * len(sorted_values))
    return sorted_values[max(k, 1) - 1]


def main():
    pathscope, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    dump = os.path.join(work, "cycles.txt")
    env = dict(os.environ, LANG="C")
    out = subprocess.run([pathscope, "bench", "route-output", "--routes", "5000", "--calls",
                          "20000", "--trials", "2", "--no-store", "--dump-cycles", dump],
                         check=True, capture_output=True, text=True, env=env).stdout
    values = [int(line) for line in open(dump)]
    assert len(values) == 40000, len(values)
    m = re.search(r"route-output, cycles per call \(all trials\):\n  count (\d+)  min (\d+)  "
                  r"max (\d+)  average ([\d.]+)  p50 (\d+)  p90 (\d+)  p95 (\d+)  p99 (\d+)  "
                  r"MAD (\d+)", out)
    assert m, out
    printed = [float(x) for x in m.groups()]
    s = sorted(values)
    med = nearest_rank(s, 50)
    mad = nearest_rank(sorted(abs(v - med) for v in values), 50)
    want = [len(s), s[0], s[-1], round(sum(s) / len(s), 1), med, nearest_rank(s, 90),
            nearest_rank(s, 95), nearest_rank(s, 99), mad]
    names = ["count", "min", "max", "average", "p50", "p90", "p95", "p99", "MAD"]
    bad = [f"{n}: printed {p}, computed {w}" for n, p, w in zip(names, printed, want)
           if abs(p - w) > (0.051 if n == "average" else 0)]
    # The first histogram (route-output's) lists counts that add up to the count.
    hist = out[m.end():].split("bare rte_fib6")[0]
    rows = [int(r.split()[-1]) for r in hist.strip().splitlines()[1:]]
    if sum(rows) != len(values):
        bad.append(f"histogram rows add up to {sum(rows)}, not {len(values)}")
    if "\u2588" in out or "\u2591" in out:
        bad.append("LANG=C output holds block characters")
    if bad:
        print("\n".join(bad))
        print(out)
        return 1
    print("bench statistics agree with an independent computation over", len(values), "calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
