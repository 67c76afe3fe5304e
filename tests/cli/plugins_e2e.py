#!/usr/bin/env python3
"""Bring your own stage, end to end (issue 35).

  plugins_e2e.py BUILD_DIR SOURCE_DIR WORKDIR

1. `cmake --install` of the build into a temporary prefix: the programs, the
   plugin header, pkg-config and CMake package files, man pages (read back by
   man), bash completion, the desktop entry (desktop-file-validate) and the
   samples with the plugin sources.
2. The acl6 sample built out of tree against that prefix twice: with CMake's
   find_package(pathscope) and with pkg-config.
3. The installed pathscope runs each build (the pkg-config one with --stage,
   the CMake one from a scenario's [[stage]] with --allow-plugins): the acl6
   stage row, edge counts with in = out at every stage (acl6's included), its
   drops by name in the ledger and the store, and a rule set that denies
   exactly K of N generated flows drops exactly K x packets per flow.
4. Plugins that are wrong (another API version, a next stage that does not
   exist, an edge they did not declare, a crash while loading), an `after`
   that names no stage: each exits 1 with its message and leaves no run in
   the store. A scenario's plugin, EAL -d and tx_pcap= are refused (exit 2)
   until the command line allows them, naming the option.
Exit 77 (skipped) when a tool it needs is missing, unless CI=true.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys

BUILD, SRC, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
failures = []


def fail(what):
    failures.append(what)
    print("FAIL: " + what, flush=True)


def skip(why):
    if os.environ.get("CI") == "true":
        print("FAIL: %s (CI=true: a skip is a failure)" % why)
        sys.exit(1)
    print("SKIP: " + why)
    sys.exit(77)


def run(cmd, env=None, cwd=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    return r.returncode, r.stdout, r.stderr


def must(cmd, what, **kw):
    rc, out, err = run(cmd, **kw)
    if rc != 0:
        print(out[-3000:], err[-3000:])
        fail("%s: exit %d" % (what, rc))
        finish()
    return out


def finish():
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("plugins_e2e: all checks passed")
    sys.exit(0)


for tool in ("cc", "pkg-config", "cmake", "ninja", "man", "desktop-file-validate"):
    if not shutil.which(tool):
        skip("%s is not installed (scripts/setup.sh installs it)" % tool)

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
PREFIX = os.path.join(WORK, "prefix")

# 1. cmake --install into a temporary prefix.
must(["cmake", "--install", BUILD, "--prefix", PREFIX], "cmake --install")
P = os.path.join(PREFIX, "bin", "pathscope")
gui = os.path.exists(os.path.join(BUILD, "gui", "pathscope-gui"))
expected = ["bin/pathscope", "include/pathscope/stage.h", "lib/pkgconfig/pathscope.pc",
            "lib/cmake/pathscope/pathscopeConfig.cmake", "lib/cmake/pathscope/pathscopeTargets.cmake",
            "share/man/man1/pathscope.1", "share/man/man1/pathscope-run.1",
            "share/bash-completion/completions/pathscope",
            "share/pathscope/samples/default.toml", "share/pathscope/samples/plugins/CMakeLists.txt",
            "share/pathscope/samples/plugins/acl6/acl6.c", "share/doc/pathscope/plugins.md"]
if gui:
    expected += ["bin/pathscope-gui", "share/applications/pathscope-gui.desktop",
                 "share/icons/hicolor/scalable/apps/pathscope-gui.svg", "share/man/man1/pathscope-gui.1"]
for f in expected:
    if not os.path.exists(os.path.join(PREFIX, f)):
        fail("cmake --install put no " + f)
# A man page per verb, each rendered by man.
verbs = re.findall(r"^  (\w[\w-]*)\s", must([P, "--help"], "pathscope --help"), re.M)
if "run" not in verbs:
    fail("pathscope --help lists no verbs: %r" % verbs)
env = dict(os.environ, MANPAGER="cat", MANWIDTH="100")
for v in verbs:
    page = os.path.join(PREFIX, "share/man/man1/pathscope-%s.1" % v)
    if not os.path.exists(page):
        fail("no man page for verb " + v)
        continue
    text = must(["man", "-l", page], "man -l " + page, env=env)
    if v == "run" and not ("--allow-plugins" in text.replace("\u2010", "-") and "SYNOPSIS" in text):
        fail("man pathscope-run has no SYNOPSIS or --allow-plugins:\n" + text[:800])
if gui:
    must(["desktop-file-validate", os.path.join(PREFIX, "share/applications/pathscope-gui.desktop")],
         "desktop-file-validate")
completion = open(os.path.join(PREFIX, "share/bash-completion/completions/pathscope")).read()
if completion != must([P, "completion", "bash"], "pathscope completion bash"):
    fail("the installed completion is not what `pathscope completion bash` prints")

# 2. The acl6 sample, out of tree: with find_package(pathscope) ...
samples = os.path.join(PREFIX, "share/pathscope/samples/plugins")
cmake_build = os.path.join(WORK, "acl6-cmake")
must(["cmake", "-S", samples, "-B", cmake_build, "-G", "Ninja", "-DCMAKE_PREFIX_PATH=" + PREFIX],
     "cmake -S samples/plugins (find_package(pathscope))")
must(["cmake", "--build", cmake_build], "building the samples with CMake")
acl_cmake = os.path.join(cmake_build, "libacl6.so")
# ... and with pkg-config.
pc_env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(PREFIX, "lib/pkgconfig"))
cflags = must(["pkg-config", "--cflags", "pathscope", "libdpdk"], "pkg-config --cflags pathscope",
              env=pc_env).split()
if os.path.join(PREFIX, "include") not in [os.path.normpath(c[2:]) for c in cflags if c.startswith("-I")]:
    fail("pkg-config --cflags pathscope does not name %s/include: %r" % (PREFIX, cflags))
libs = must(["pkg-config", "--libs", "libdpdk"], "pkg-config --libs libdpdk").split()
acl_pc = os.path.join(WORK, "acl6-pkgconfig", "libacl6.so")
os.makedirs(os.path.dirname(acl_pc))
must(["cc", "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-fvisibility=hidden"] + cflags +
     [os.path.join(samples, "acl6", "acl6.c"), os.path.join(samples, "acl6", "acl6_rules.c"),
      "-o", acl_pc] + libs, "cc with pkg-config --cflags pathscope")

# What the plugin declares, read back by the installed pathscope.
described = must([P, "stage", acl_pc], "pathscope stage libacl6.so")
for want in ("stage acl6:", "process function per burst", "acl_deny", "generate         integer 0 to 100000"):
    if want not in described:
        fail("pathscope stage does not say %r:\n%s" % (want, described))

# 3. Real runs. N = 100 flows, 4,000 packets: each flow exactly 40 (the
# generator's 1,000 templates give flow f the templates f, f + 100, ...; the
# ring holds all 4,000, so none is refused). Deny K = 7 flows by source
# address and port (flow f: source ...::(f | 1), port 1024 + f); flow 0's
# permit comes first, so its deny never matches.
N, PER_FLOW, DENIED = 100, 40, [3, 10, 11, 42, 57, 88, 99]
rules = os.path.join(WORK, "rules.txt")
with open(rules, "w") as f:
    f.write("# flow 0 is permitted first\npermit sport 1024\ndeny sport 1024\n")
    for flow in DENIED:
        f.write("deny src 2001:db8:100::%x/128 proto udp sport %d\n" % (flow | 1, 1024 + flow))
SCENARIO_HEAD = """
[engine]
duration = 1.0
[capture]
traces_per_s = 200
[[port]]
name = "wire"
device = "ring"
mac = "02:00:00:00:00:01"
addresses = ["2001:db8:1::1/64"]
[[port]]
name = "uplink"
device = "net_null0,no-rx=1"
poll = false
mac = "02:00:00:00:00:02"
addresses = ["2001:db8:2::1/64"]
[[nexthop]]
id = 1
port = "uplink"
mac = "02:00:00:00:00:fe"
[[nexthop]]
id = 2
port = "wire"
mac = "02:00:00:00:00:10"
[[route]]
prefix = "2001:db8:100::/48"
nexthop = 2
[routes]
generate = 1000
nexthop = 1
[[app]]
kind = "sink"
port = 9
[[app]]
kind = "echo"
port = 7
[workload]
kind = "generator"
port = "wire"
flows = %d
packets = %d
malformed_percent = 0
source_prefix = "2001:db8:100::/48"
""" % (N, N * PER_FLOW)
scenario = os.path.join(WORK, "flows.toml")
with open(scenario, "w") as f:
    f.write(SCENARIO_HEAD)


def store_checks(db, what, run_id):
    """The acl6 row, in = out at every stage, the drops by name: from the store."""
    c = sqlite3.connect(db)
    stages = dict(c.execute("SELECT stage, sum(packets) FROM stage_counters WHERE run_id = ? "
                            "AND seq = -1 GROUP BY stage", (run_id,)).fetchall())
    out = dict(c.execute("SELECT from_stage, sum(packets) FROM edge_counters WHERE run_id = ? "
                         "AND seq = -1 GROUP BY from_stage", (run_id,)).fetchall())
    edges = {(a, b): n for a, b, n in c.execute(
        "SELECT from_stage, to_stage, sum(packets) FROM edge_counters WHERE run_id = ? AND seq = -1 "
        "GROUP BY from_stage, to_stage", (run_id,))}
    drops = {(r, s): n for r, s, n in c.execute(
        "SELECT reason, stage, sum(packets) FROM drops WHERE run_id = ? AND path = 'receive' "
        "GROUP BY reason, stage", (run_id,))}
    received, delivered, forwarded, replied, dropped = c.execute(
        "SELECT sum(received), sum(delivered), sum(forwarded), sum(replied), sum(dropped) "
        "FROM trials WHERE run_id = ?", (run_id,)).fetchone()
    if "acl6" not in stages:
        fail("%s: no acl6 stage row in the store: %r" % (what, sorted(stages)))
        return
    for st, n in stages.items():
        if st in ("drop", "apps"):
            continue
        if out.get(st, 0) != n:
            fail("%s: stage %s took %d packets and passed on %d" % (what, st, n, out.get(st, 0)))
    if received != delivered + forwarded + replied + dropped:
        fail("%s: the ledger does not balance" % what)
    deny = drops.get(("acl_deny", "acl6"), 0)
    if deny != len(DENIED) * PER_FLOW:
        fail("%s: acl_deny dropped %d packets, %d denied flows x %d packets a flow is %d" %
             (what, deny, len(DENIED), PER_FLOW, len(DENIED) * PER_FLOW))
    if received != N * PER_FLOW:
        fail("%s: received %d packets, generated %d" % (what, received, N * PER_FLOW))
    if edges.get(("ip6_input", "acl6")) != stages["acl6"] or edges.get(("acl6", "drop")) != deny or \
       edges.get(("acl6", "ip6_lookup"), 0) + deny != stages["acl6"]:
        fail("%s: acl6's edges %r" % (what, {k: v for k, v in edges.items() if "acl6" in k}))
    facts = dict(c.execute("SELECT key, value FROM facts WHERE run_id = ?", (run_id,)).fetchall())
    if "libacl6.so" not in facts.get("stage.1", ""):
        fail("%s: the run stores no stage.1 fact naming the plugin: %r" % (what, facts.get("stage.1")))
    print("%s: acl6 took %d packets, denied %d (= %d flows x %d), every stage's in = out, "
          "ledger balanced" % (what, stages["acl6"], deny, len(DENIED), PER_FLOW), flush=True)


def runs_in(db):
    if not os.path.exists(db):
        return 0
    try:
        return sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0]
    except sqlite3.Error:
        return 0


db = os.path.join(WORK, "plugins.db")
# The pkg-config build from the command line (--stage names it: no --allow needed).
stage_opt = "%s:after=ip6_input,rules_file=%s,generate=200" % (acl_pc, rules)
out = must([P, "run", scenario, "--db", db, "--label", "acl-pkgconfig", "--stage", stage_opt],
           "pathscope run --stage (pkg-config build)", cwd=WORK)
if not re.search(r"^\s*acl6\s", out, re.M):
    fail("run printed no acl6 row in its stage table:\n" + out[:3000])
if "acl_deny" not in out:
    fail("run printed no acl_deny drops:\n" + out[:3000])
store_checks(db, "--stage, pkg-config build", 1)

# The CMake build from a scenario's [[stage]], allowed on the command line;
# the show verb reads the same stage and drops back.
with open(scenario, "a") as f:
    f.write('[[stage]]\nplugin = "%s"\nafter = "ip6_input"\n[stage.config]\nrules_file = "rules.txt"\n'
            'generate = 1000\n' % acl_cmake)
rc, out, err = run([P, "run", scenario, "--db", db], cwd=WORK)
if rc != 2 or "--allow-plugins" not in err or runs_in(db) != 1:
    fail("a scenario's plugin without --allow-plugins: exit %d, %r" % (rc, err[-500:]))
must([P, "run", scenario, "--db", db, "--label", "acl-cmake", "--allow-plugins"],
     "pathscope run --allow-plugins (CMake build)", cwd=WORK)
store_checks(db, "[[stage]], find_package build", 2)
shown = must([P, "show", "acl-cmake", "--db", db], "pathscope show")
if not re.search(r"^\s*acl6\s", shown, re.M) or "acl_deny" not in shown:
    fail("show prints no acl6 row or acl_deny:\n" + shown[:2000])

# 4. Wrong plugins: exit 1, their message, nothing stored.
plugins = os.path.join(BUILD, "tests", "plugins")
bad_db = os.path.join(WORK, "bad.db")
bare = os.path.join(WORK, "flows-bare.toml")
with open(bare, "w") as f:
    f.write(SCENARIO_HEAD)
for so, after, says in [
        ("faulty_version", "ip6_input", "stage API version 99"),
        ("faulty_next_stage", "ip6_input", "next stage 'ip6_lookpu', which is no stage"),
        ("null_classify", "ip6_inptu", "after = 'ip6_inptu' names no stage"),
        ("faulty_edge", "ip6_input", "returned edge 5 for a packet, which the stage did not declare"),
        ("faulty_crash", "ip6_input", "crashed while loading (signal 11")]:
    path = os.path.join(plugins, "lib%s.so" % so)
    rc, out, err = run([P, "run", bare, "--db", bad_db, "--stage", "%s:after=%s" % (path, after)],
                       cwd=WORK)
    ok = rc == 1 and says in err and ("plugin " + path) in err and runs_in(bad_db) == 0
    print("%s: exit %d, %s" % (so, rc, err.strip().splitlines()[-1] if err.strip() else "(nothing said)"))
    if not ok:
        fail("%s: expected exit 1 naming the plugin and %r, no run stored (runs: %d); got exit %d:\n%s"
             % (so, says, runs_in(bad_db), rc, err[-1500:]))

# What runs code or writes files is refused until the command line allows it.
for extra, option in [('[eal]\nargs = ["--no-huge", "-m", "1024", "--no-pci", "--no-shconf", "-l", "0-1",'
                       ' "-d", "/tmp/evil.so"]\n', "--allow-eal-drivers"),
                      ('[eal]\nargs = ["--no-huge", "-m", "1024", "--no-pci", "--no-shconf", "-l", "0-1",'
                       ' "--trace-dir=/tmp/t"]\n', "--allow-file-writes")]:
    bad = os.path.join(WORK, "refused.toml")
    with open(bad, "w") as f:
        f.write(extra + SCENARIO_HEAD)
    rc, out, err = run([P, "run", bad, "--db", bad_db], cwd=WORK)
    if rc != 2 or option not in err or runs_in(bad_db) != 0:
        fail("%s: expected exit 2 naming %s; got %d: %s" % (extra.strip(), option, rc, err[-600:]))
bad = os.path.join(WORK, "refused.toml")
with open(bad, "w") as f:
    f.write(SCENARIO_HEAD.replace('device = "net_null0,no-rx=1"',
                                  'device = "net_pcap_out0,tx_pcap=%s/out.pcap"' % WORK))
rc, out, err = run([P, "run", bad, "--db", bad_db], cwd=WORK)
if rc != 2 or "--allow-file-writes" not in err or os.path.exists(os.path.join(WORK, "out.pcap")):
    fail("a tx_pcap device: expected exit 2 naming --allow-file-writes; got %d: %s" % (rc, err[-600:]))
finish()
