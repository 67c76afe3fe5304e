#!/usr/bin/env python3
"""show's per-trial rates and per-stage figures, rebuilt from the CSV export
of a real capture: each must read exactly as show printed it.

    export_matches_show.py PATHSCOPE DIR

Runs `pathscope run --trials 2 --duration 1` (root: DPDK virtual devices)
into DIR/export.db, then compares, per trial, "rx in window", "window s",
"rx rate" (window_received / seconds), "rx whole trial" and "on CPU" (the
workers' least cpu_ns over window_ns, from the threads table), the same of the
send table when there is one, and per stage "busy calls", "packets",
"pkts/call", "cycles/call", "cycles/pkt" (busy calls only; each the mean of
the trials' ratios) and "idle %".
"""
import csv
import io
import math
import os
import re
import subprocess
import sys

P, DIR = sys.argv[1], sys.argv[2]
os.makedirs(DIR, exist_ok=True)
DB = os.path.join(DIR, "export.db")
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(DB + suffix):
        os.remove(DB + suffix)

failures = []
checked = 0


def check(what, printed, rebuilt):
    global checked
    checked += 1
    if printed != rebuilt:
        failures.append(f"{what}: show printed {printed!r}, the CSV gives {rebuilt!r}")


def pathscope(*args):
    r = subprocess.run([P, *args, "--db", DB], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: pathscope {' '.join(args)} exited {r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout


pathscope("run", "--label", "export", "--trials", "2", "--duration", "1", "--no-histograms")
shown = pathscope("show", "export", "--no-histograms")
trials = list(csv.DictReader(io.StringIO(pathscope("export", "export", "--format", "csv",
                                                   "--table", "trials", "-o", "-"))))
stages = list(csv.DictReader(io.StringIO(pathscope("export", "export", "--format", "csv",
                                                   "--table", "stages", "-o", "-"))))
threads = list(csv.DictReader(io.StringIO(pathscope("export", "export", "--format", "csv",
                                                    "--table", "threads", "-o", "-"))))
print(shown)
for name, rows, needed in (("trials", trials, ("seconds", "window_received", "received",
                                                "window_sent", "sends", "window_ns",
                                                "max_disturbance")),
                           ("threads", threads, ("trial", "role", "cpu_ns")),
                           ("stages", stages, ("calls", "packets", "cycles", "idle_calls",
                                               "idle_cycles"))):
    lacking = [c for c in needed if c not in (rows[0] if rows else {})]
    if lacking:
        sys.exit(f"FAIL: the {name} CSV lacks {', '.join(lacking)}, which show's figures need")
if len(trials) != 2:
    sys.exit(f"FAIL: {len(trials)} trial rows in the CSV, expected 2")

# How show prints a rate: in Mpps, with the digits read from the printed cell.
def rate_as_printed(pps, printed):
    number, unit = printed.split()
    if unit != "Mpps":
        sys.exit(f"FAIL: show printed a rate in {unit}, not Mpps as every other view")
    digits = len(number.partition(".")[2])
    return f"{pps / 1e6:.{digits}f} Mpps"


def table(header_start):
    """The rows of show's table whose header line starts with header_start."""
    lines = shown.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(header_start):
            rows = []
            for row in lines[i + 1:]:
                if not row.strip() or not re.match(r"^\S+\s+\d", row):
                    break
                rows.append(row)
            return rows
    return None


RATE = r"(\d+(?:\.\d+)? (?:Mpps|kpps|pps))"  # any unit: rate_as_printed names a wrong one
rx = table("trial   window s   rx in window")
if rx is None:
    sys.exit("FAIL: show printed no receive table")
for line, t in zip(rx, trials):
    m = re.match(rf"^(\d+)\s+([\d.]+)\s+(\d+)\s+{RATE}\s+{RATE}\s+{RATE}\s+(\d+)"
                 r"\s+([\d.]+%)( disturbed)?$", line)
    if not m:
        sys.exit(f"FAIL: cannot read the trial line {line!r}")
    trial, window_s, in_window, rate, _, _, whole, on_cpu, disturbed = m.groups()
    seconds = float(t["seconds"])
    where = f"trial {t['trial']}"
    check(f"{where} trial", trial, t["trial"])
    check(f"{where} window s", window_s, f"{seconds:.2f}")
    check(f"{where} rx in window", in_window, t["window_received"])
    check(f"{where} rx rate", rate,
          rate_as_printed(float(int(t["window_received"])) / seconds, rate))
    check(f"{where} rx whole trial", whole, t["received"])
    worker_share = min(min(1.0, int(th["cpu_ns"]) / int(t["window_ns"])) for th in threads
                       if th["trial"] == t["trial"] and th["role"] == "worker")
    check(f"{where} on CPU", on_cpu, f"{math.floor(1000 * worker_share + 1e-9) / 10:.1f}%")  # rounded down
    limit = float(t["max_disturbance"])
    check(f"{where} disturbed", bool(disturbed), limit > 0 and 1 - worker_share > limit)

tx = table("trial   window s   tx in window")
if tx is not None:
    for line, t in zip(tx, trials):
        m = re.match(rf"^(\d+)\s+([\d.]+)\s+(\d+)\s+{RATE}\s+(\d+)\s", line)
        if not m:
            sys.exit(f"FAIL: cannot read the send line {line!r}")
        trial, window_s, in_window, rate, sends = m.groups()
        seconds = float(t["seconds"])
        where = f"trial {t['trial']} (send)"
        check(f"{where} tx in window", in_window, t["window_sent"])
        check(f"{where} tx rate", rate,
              rate_as_printed(float(int(t["window_sent"])) / seconds, rate))
        check(f"{where} sends whole trial", sends, t["sends"])

# Stage totals of the run: the trials' rows (seq -1) summed per stage; and
# each trial's row, for the ratios (a run's figure is the mean of its
# trials' ratios).
totals = {}
per_trial = {}
for s in stages:
    if s["seq"] != "-1":
        continue
    row = [int(s[key]) for key in ("calls", "packets", "cycles", "idle_calls", "idle_cycles")]
    tot = totals.setdefault(s["stage"], [0, 0, 0, 0, 0])
    for i, v in enumerate(row):
        tot[i] += v
    per_trial.setdefault(s["stage"], {})[int(s["trial"])] = row
trial_ids = sorted(int(t["trial"]) for t in trials)

stage_lines = table("stage ")
if not stage_lines:
    sys.exit("FAIL: show printed no stage table")
seen = 0
for line in stage_lines:
    cells = line.split()
    name = cells[0]
    if name not in totals:
        failures.append(f"stage {name}: in show, not in the CSV")
        continue
    seen += 1
    calls, packets, cycles, idle_calls, idle_cycles = totals[name]
    busy_calls = calls - idle_calls
    ratio = lambda a, b: float(a) / float(b) if b else 0.0  # noqa: E731

    def mean_of_trials(f):
        rows = [per_trial[name].get(t, [0, 0, 0, 0, 0]) for t in trial_ids]
        return sum(f(*r) for r in rows) / len(rows)

    check(f"{name} busy calls", cells[1], str(busy_calls))
    check(f"{name} packets", cells[2], str(packets))
    check(f"{name} pkts/call", cells[3],
          f"{mean_of_trials(lambda c, p, cy, ic, icy: ratio(p, c - ic)):.2f}")
    check(f"{name} cycles/call", cells[4],
          f"{mean_of_trials(lambda c, p, cy, ic, icy: ratio(cy - icy, c - ic)):.1f}")
    check(f"{name} cycles/pkt", cells[5],
          f"{mean_of_trials(lambda c, p, cy, ic, icy: ratio(cy - icy, p)):.1f}")
    check(f"{name} idle %", cells[-2],
          f"{100 * mean_of_trials(lambda c, p, cy, ic, icy: ratio(icy, cy)):.1f}")
if seen != len(totals):
    failures.append(f"show lists {seen} stages, the CSV {len(totals)}")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"export_matches_show: {checked} figures of {len(trials)} trials"
      f"{' (receive and send)' if tx else ''} and {seen} stages read the same from the CSV")
