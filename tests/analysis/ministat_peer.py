#!/usr/bin/env python3
"""pathscope stats against the real ministat (Debian's package) on the same files.

Random data sets with 4 to 124 degrees of freedom, at three confidence levels
picked at random, with no option and one of -s, -A or -n. Debian ships
ministat from 2015; two of its
outputs changed in FreeBSD since, and pathscope follows today's FreeBSD one
(which the published 22x2 result in the unit tests comes from):
  - the median of an even count is the mean of the middle two (Debian: the
    upper one), so the data sets here have odd counts;
  - the relative interval ("% +/- %") scales the baseline variance by the
    ratio of the means, so that line is checked in the unit tests instead;
  - Debian's plot loses the upper stacked rows of the first set when a later
    set stacks lower, so its rows must equal the bottom rows of ours.
Everything else must match byte for byte. pathscope uses ministat's own
table of t values; every level is checked at 4 to 12 degrees of freedom
(ministat needs 3 values a set, so 4 is the fewest it can test), where the
99.5 column differs from the exact quantile.

--every K checks every K-th comparison of the same sweep (the ASan build
passes 9: each check starts pathscope once, and a sanitized start costs
tenfold; the dev build checks them all). An odd K samples both the plain
and the flagged comparison of a level, which alternate.
"""
import argparse, os, random, shutil, subprocess, sys, tempfile

SKIP = 77


def positive(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError("%r is not a whole number of 1 or more" % text)
    return int(text)


def main():
    parser = argparse.ArgumentParser(description="pathscope stats against ministat")
    parser.add_argument("--every", type=positive, default=1, metavar="K",
                        help="check every K-th comparison (default: all)")
    parser.add_argument("pathscope")
    opts = parser.parse_args()
    pathscope, every = opts.pathscope, opts.every
    ministat = shutil.which("ministat")
    if not ministat:
        why = "ministat is not installed (scripts/setup.sh installs it)"
        if os.environ.get("CI") == "true":
            print("FAIL: %s; under CI=true setup.sh must have installed it" % why)
            return 1
        print("SKIP: " + why)
        return SKIP
    rng = random.Random(20261130)
    tmp = tempfile.mkdtemp()
    a_path, b_path = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    checked = failures = swept = 0
    for df in range(4, 125):
        n1 = 3 + 2 * (df % 3)
        n2 = df + 2 - n1
        if df <= 12:  # every small df
            n1, n2 = 3, df - 1
        elif n2 < 3 or n2 % 2 == 0:
            continue
        a = [round(rng.gauss(100, 10), 3) for _ in range(n1)]
        shift = rng.choice([0, 3, 8, 15])
        b = [round(rng.gauss(100 + shift, 12), 3) for _ in range(n2)]
        if n2 % 2 == 0:  # equal middle values: both medians of an even count agree
            b.sort()
            b[n2 // 2] = b[n2 // 2 - 1]
        for path, values in ((a_path, a), (b_path, b)):
            with open(path, "w") as f:
                f.write("# a comment line\n\n" + "\n".join(map(str, values)) + "\n")
        levels = ["80", "90", "95", "98", "99", "99.5"]
        for conf in levels if df <= 12 else rng.sample(levels, 3):
            for flags in ([], rng.choice([["-s"], ["-A"], ["-n"]])):
                swept += 1
                if (swept - 1) % every:
                    continue
                args = flags + ["-c", conf, a_path, b_path]
                want = subprocess.run([ministat] + args, capture_output=True, text=True).stdout
                got = subprocess.run([pathscope, "stats"] + args, capture_output=True, text=True)
                checked += 1
                problem = compare(want.splitlines(), got.stdout.splitlines())
                if got.returncode != 0:
                    problem = "exit %d: %s" % (got.returncode, got.stderr)
                if problem:
                    failures += 1
                    if failures <= 5:
                        print("MISMATCH (df %d, %s): %s\n--- ministat\n%s--- pathscope\n%s"
                              % (df, " ".join(args), problem, want, got.stdout))
    shutil.rmtree(tmp)
    print("%d of %d ministat comparisons match" % (checked - failures, checked))
    return 1 if failures or checked < 200 // every else 0


def compare(want, got):
    def split(lines):
        box = [i for i, l in enumerate(lines) if l.startswith("+---")]
        if len(box) != 2:
            return lines, [], []
        inner = lines[box[0] + 1:box[1]]
        return lines[:box[0]] + lines[box[1] + 1:], inner, box
    w_rest, w_plot, _ = split(want)
    g_rest, g_plot, _ = split(got)
    w_rest = [l for l in w_rest if "% +/- " not in l]
    g_rest = [l for l in g_rest if "% +/- " not in l]
    if w_rest != g_rest:
        return "table or verdict differs"
    # Bar rows (A, M, |___|) are compared whole; point rows from the bottom.
    w_bars = [l for l in w_plot if set(l[1:-1]) & set("AM|_")]
    g_bars = [l for l in g_plot if set(l[1:-1]) & set("AM|_")]
    if w_bars != g_bars:
        return "mean/median bars differ"
    w_points = [l for l in w_plot if l not in w_bars]
    g_points = [l for l in g_plot if l not in g_bars]
    if len(w_points) > len(g_points) or (w_points and g_points[-len(w_points):] != w_points):
        return "plotted points differ"
    return ""


if __name__ == "__main__":
    sys.exit(main())
