#!/usr/bin/env python3
"""A Linux run's stage shares against perf's own reading of the same samples.

pathscope run (target linux) keeps its kernel samples as perf.data
(capture.perf_data). perf script reads that file and symbolizes it on its
own (perf's kallsyms reader, perf's call chain walk); this script folds each
of perf's call chains through the same stage map, by the map's rule written
again here (the innermost frame the map names; fn.isra.0 is fn; the longest
prefix* wins; kernel time named nowhere is "unmapped"; a sample
wholly in user space is the [user] stage), and compares every stage's share
with the share pathscope's report gives (its stage cycles over "all
stages"). They must agree to 0.1 points, stage by stage, in two runs (send
and forward paths).

  kernel_stage_oracle.py PATHSCOPE STAGE_MAP WORKDIR

Exits 77 (skipped) without root or perf.
"""
import json
import os
import shutil
import subprocess
import sys

KERNEL = 0xFFFF800000000000


def read_map(path):
    exact, prefixes, user = {}, [], None
    for line in open(path):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        fn, stage = fields
        if fn == "[user]":
            user = stage
        elif fn.endswith("*"):
            prefixes.append((fn[:-1], stage))
        else:
            exact[fn] = stage
    prefixes.sort(key=lambda p: -len(p[0]))
    return exact, prefixes, user or "unmapped user"


def stage_of(name, exact, prefixes):
    if name in exact:
        return exact[name]
    base = name.split(".", 1)[0]
    if base and base in exact:
        return exact[base]
    for prefix, stage in prefixes:
        if name.startswith(prefix):
            return stage
    return None


def perf_samples(perf_data):
    """Each sample's frames, leaf first, as (address, symbol)."""
    out = subprocess.run(["perf", "script", "-i", perf_data, "-F", "tid,ip,sym"],
                         check=True, capture_output=True, text=True).stdout
    sample = None
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith("\t"):  # "TID" starts a sample; its frames are indented by a tab
            if sample is not None:
                yield sample
            sample = []
            continue
        addr, _, sym = line.strip().partition(" ")
        sample.append((int(addr, 16), sym.strip()))
    if sample is not None:
        yield sample


def fold(perf_data, stage_map):
    exact, prefixes, user = read_map(stage_map)
    counts, total = {}, 0
    for frames in perf_samples(perf_data):
        kernel = [s for a, s in frames if a >= KERNEL]
        users = [s for a, s in frames if a < KERNEL]
        stage = None
        for name in (kernel or users):
            stage = stage_of(name, exact, prefixes)
            if stage:
                break
        if not stage:
            stage = "unmapped" if kernel else user
        counts[stage] = counts.get(stage, 0) + 1
        total += 1
    return {s: 100.0 * n / total for s, n in counts.items()}, total


def pathscope_shares(cli, db):
    report = json.loads(subprocess.run([cli, "report", "1", "--db", db, "--format", "json"],
                                       check=True, capture_output=True, text=True).stdout)
    nodes = report["stages"]["nodes"]
    whole = nodes[0]["base"]
    return {n["path"]: 100.0 * n["base"] / whole for n in nodes[1:]}


SCENARIOS = {
    "send": """[target]
kind = "linux"
[linux]
path = "send"
[engine]
duration = 2.0
[capture]
trials = 1
sample_hz = 999
perf_data = "{data}"
[source]
destination = "2001:db8:1::2"
payload = 16
""",
    "forward": """[target]
kind = "linux"
[linux]
path = "forward"
receiver_address = "2001:db8:2::2/64"
[engine]
duration = 2.0
[capture]
trials = 1
sample_hz = 999
perf_data = "{data}"
[source]
destination = "2001:db8:2::2"
payload = 16
""",
}


def main():
    cli, stage_map, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    if os.geteuid() != 0 or not shutil.which("perf"):
        print("SKIP: needs root and perf (linux-perf)")
        return 77
    failures = 0
    for name, text in SCENARIOS.items():
        d = os.path.join(work, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        data, db = os.path.join(d, "samples.data"), os.path.join(d, "k.db")
        scenario = os.path.join(d, "scenario.toml")
        with open(scenario, "w") as f:
            f.write(text.format(data=data))
        run = subprocess.run([cli, "run", scenario, "--db", db, "--stage-map", stage_map],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stdout, run.stderr)
            return 1
        ours = pathscope_shares(cli, db)
        perfs, samples = fold(data, stage_map)
        print(f"{name}: {samples} samples in perf.data")
        print(f"  {'stage':<20} {'pathscope %':>12} {'perf folded %':>14}")
        for stage in sorted(set(ours) | set(perfs), key=lambda s: -ours.get(s, 0)):
            a, b = ours.get(stage, 0.0), perfs.get(stage, 0.0)
            bad = abs(a - b) > 0.1
            failures += bad
            print(f"  {stage:<20} {a:12.2f} {b:14.2f}{'   <- differs by more than 0.1' if bad else ''}")
        if samples < 500:
            print(f"  too few samples ({samples}) for a check")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
