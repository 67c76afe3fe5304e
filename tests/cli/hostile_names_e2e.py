#!/usr/bin/env python3
"""Hostile names, end to end (issue 19 item 6).

  hostile_names_e2e.py PATHSCOPE WORKDIR CHECK_FORMATS

Real runs of `pathscope run` on DPDK vdevs whose label, scenario file name,
scenario values (a perf event name, a comment) and experiment cells hold
HTML, Markdown, CSV, JSON and terminal control characters and invalid UTF-8,
and imported profiles (folded, perf script) whose function names do; then
every report format, every export and every printed table is read back by a
real parser, and no output holds a byte that moves a terminal's cursor.
"""
import csv
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys

P, WORK, CHECK = (os.path.abspath(a) for a in sys.argv[1:4])
spec = importlib.util.spec_from_file_location("check_formats", CHECK)
check_formats = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_formats)

# Every kind of trouble in one name: markup, table and field separators,
# line breaks, ESC sequences that clear the screen, home the cursor and set
# the window title, other C0 controls, DEL, a C1 control, a bidi override
# and bytes that are not UTF-8.
EVIL = (b'<script>alert(1)</script>|"q",`t`;x\r\n\x1b[2J\x1b[H\x1b]0;title\x07'
        b'\x01\x7f\xc2\x85\xe2\x80\xae\xff\xfe *em* [l](u) &amp;')
BASE_LABEL = b"base " + EVIL
CAND_LABEL = b"cand " + EVIL
# Shown forms a reader must find (the escapes the product writes).
VISIBLE = ["\\x1b[2J", "\\x1b]0;title\\x07", "\\r", "\\n", "\\x7f", "\\u0085", "\\u202e", "\ufffd"]

failures = []


def fail(what):
    failures.append(what)
    print("FAIL: " + what)


def check_terminal(what, data):
    """Bytes a terminal may show: UTF-8, and of the controls only LF and TAB."""
    bad = sorted({b for b in data if (b < 0x20 and b not in (0x0A, 0x09)) or b == 0x7F})
    if bad:
        fail("%s: raw control bytes %s" % (what, ", ".join("0x%02x" % b for b in bad)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s: not UTF-8 (%s)" % (what, e))
        return data.decode("utf-8", "replace")
    c1 = [c for c in text if 0x80 <= ord(c) <= 0x9F or 0x202A <= ord(c) <= 0x202E
          or 0x2066 <= ord(c) <= 0x2069]
    if c1:
        fail("%s: raw C1 or bidi controls %r" % (what, c1))
    return text


def pathscope(*args, ok=True, what=None):
    what = what or "pathscope " + " ".join(
        a if isinstance(a, str) else repr(a) for a in args[:3])
    r = subprocess.run([P, *args], capture_output=True, cwd=WORK, timeout=300)
    if ok and r.returncode != 0:
        fail("%s: exit %d: %s" % (what, r.returncode, r.stderr.decode("utf-8", "replace")))
    out = check_terminal(what + " (stdout)", r.stdout)
    err = check_terminal(what + " (stderr)", r.stderr)
    return out, err


def visible_in(what, text, marks=VISIBLE):
    for m in marks:
        if m not in text:
            fail("%s: %r not shown" % (what, m))


def strings(doc):
    """Every string of a parsed JSON document, keys included."""
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for k, v in doc.items():
            yield k
            yield from strings(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from strings(v)


def no_markup(what, text):
    if "<script>alert" in text:
        fail("%s: the label's <script> is there as markup" % what)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
DB = os.path.join(WORK, "evil.db")
db = ["--db", DB]

# A scenario whose file name and values are hostile: the default scenario's
# ports and apps (no route file), a perf event that does not exist under a
# hostile name, and a comment that ends up in report's scenario difference.
with open(os.path.join(os.path.dirname(CHECK), "..", "..", "samples", "default.toml"), "rb") as f:
    default = f.read()
default = re.sub(rb"\n\[routes\]\n[^\[]*", b"\n", default)
EVENT = r'perf::TASK-CLOCK\u001b[2J<b>ev</b>|\"e\",'
scenario = default + (
    b'\n# a comment <script>alert(1)</script>|"c",`t` *em* (TOML allows no controls here)\n'
    b"[capture]\nsample_hz = 0\n"
    b'perf_events = ["perf::TASK-CLOCK", "' + EVENT.encode() + b'"]\n')
SCEN = os.path.join(os.fsencode(WORK), b'scen <svg onload=alert(1)>|"s",\x1b[2J\x07\xff.toml')
with open(SCEN, "wb") as f:
    f.write(scenario)
run_args = ["--trials", "3", "--duration", "0.2"]
out, err = pathscope("run", SCEN, *db, "--label", BASE_LABEL, *run_args, what="run base")
visible_in("run's stage table", out, ["\\x1b[2J", "\\r\\n"])
pathscope("run", SCEN, *db, "--label", CAND_LABEL, *run_args, "--set", "engine.burst=64",
          what="run cand")

# An experiment whose cells are named by hostile values (sampling is off, so
# the event names are only names).
with open(SCEN, "rb") as f:
    matrix = f.read() + (b'\n[matrix]\ncapture.sample_event = ["a<b>x</b>|\\u001b[2J", '
                         b'"b\\r\\n`c`,\\"d\\""]\n')
MATRIX = os.path.join(os.fsencode(WORK), b"matrix \x1b]0;t\x07<s>.toml")
with open(MATRIX, "wb") as f:
    f.write(matrix)
out, err = pathscope("run", MATRIX, *db, "--label", b"m" + EVIL, "--trials", "1",
                     "--duration", "0.2", what="run matrix")
m = re.search(r"stored as experiment (\S+)", out)
if not m:
    fail("run of a matrix names no experiment: " + out)
    experiment = "none"
else:
    experiment = m.group(1)
# (A cell's settings are lines: a value's own line feed reads as a space.)
visible_in("run matrix's cells", out, ["\\x1b[2J", "\\r"])

# Imported profiles: a folded file and perf script text with hostile frames.
FRAME = b'f<script>alert(1)</script>|"q",`t`\x1b[2J\x1b]0;t\x07\x7f\xff &amp; [l](u)'
PERF_FRAME = b'f<script>x</script>|"q",`t`\x1b[2J\x1b]0;t\x07\x7f\xff\xc2\x85'
with open(os.path.join(WORK, "evil.folded"), "wb") as f:  # a folded frame has no ';'
    f.write(b"main;" + FRAME.replace(b";", b"") + b";leaf\x1b[H 7\nmain;other 3\n")
pathscope("import", "folded", "evil.folded", *db, "--label", b"folded " + EVIL, what="import folded")
with open(os.path.join(WORK, "evil.perf"), "wb") as f:
    for i in range(4):
        f.write(b"comm<b>x</b>\x1b[2J 42/42 [000] 100.%06d: 250000 cpu-clock\x1b[H<i>:\n" % i)
        # (perf script's names are one word: the importer keeps a C++ name's last.)
        f.write(b"\t    7f0000001000 " + PERF_FRAME + b"+0x10 (/usr/lib/lib<x>.so)\n")
        f.write(b"\t    7f0000002000 main+0x20 (/usr/bin/app\x07)\n\n")
pathscope("import", "perf", "evil.perf", *db, "--label", b"perf " + EVIL, what="import perf")

# Printed tables and text views.
out, _ = pathscope("list", *db)
visible_in("list", out, ["\\x1b[2J", "\\r\\n", "\ufffd"])
for ref, name in [(BASE_LABEL, "base"), (b"folded " + EVIL, "folded"), (b"perf " + EVIL, "perf")]:
    out, _ = pathscope("show", ref, *db, what="show " + name)
    visible_in("show " + name, out, ["\\x1b[2J", "\\r\\n", "\ufffd"])
out, _ = pathscope("show", "5", *db, what="show a matrix cell")
visible_in("show a matrix cell", out, ["\\x1b[2J"])
out, _ = pathscope("compare", BASE_LABEL, CAND_LABEL, *db, what="compare")
visible_in("compare", out, ["\\x1b[2J", "\\r\\n"])
# Two imports of different events have nothing in common: exit 1, said safely.
out, _ = pathscope("compare", b"folded " + EVIL, b"perf " + EVIL, *db, ok=False,
                   what="compare imports")
# A name that is no run: the message quotes it, shown and not obeyed.
out, err = pathscope("show", b"nope\x1b[2J\x1b]0;t\x07\xff", *db, ok=False, what="show a wrong name")
visible_in("show's error", err, ["\\x1b[2J", "\\x07", "\ufffd"])
out, err = pathscope("run", SCEN, *db, "--set", b"engine.\x1b[2J=1", ok=False, what="run --set")
visible_in("run --set's error", err, ["\\x1b[2J"])

# Every report format, of two runs, of one run, and of the imports.
for pair, tag in [((BASE_LABEL, CAND_LABEL), "two"), ((BASE_LABEL,), "one"),
                  ((b"folded " + EVIL, b"perf " + EVIL), "imports")]:
    for fmt in ["text", "md", "html", "json"]:
        path = os.path.join(WORK, "report-%s.%s" % (tag, fmt))
        pathscope("report", *pair, *db, "--format", fmt, "-o", path, what="report %s %s" % (tag, fmt))
        with open(path, "rb") as f:
            data = f.read()
        text = check_terminal("report %s %s" % (tag, fmt), data)
        what = "report %s --format %s" % (tag, fmt)
        if fmt == "text":
            visible_in(what, text, ["\\x1b[2J", "\ufffd"])
        elif fmt == "md":
            fences = re.findall(r"^(`{3,})", text, re.M)
            if len(fences) % 2:
                fail("%s: a code block is not closed" % what)
            # Outside code blocks (where markup is only text): no markup, and
            # every table's rows as many cells as its header.
            text = re.sub(r"^(`{3,})[^\n]*\n.*?^\1\n", "", text, flags=re.M | re.S)
            no_markup(what, text)
            # Markdown escapes the shown backslash and the bracket too.
            visible_in(what, text, ["\\<script\\>", "\\|", "\\\\x1b\\[2J"])
            # Each table: every row as many cells as its header.
            table = []
            for line in text.splitlines() + [""]:
                if line.startswith("|"):
                    table.append(len(re.findall(r"(?<!\\)\|", line)))
                elif table:
                    if len(set(table)) != 1:
                        fail("%s: a table whose rows have %s cells" % (what, table))
                    table = []
        elif fmt == "html":
            no_markup(what, text)
            try:
                check_formats.check_html(path)
            except Exception as e:
                fail("%s: %s: %s" % (what, type(e).__name__, e))
            visible_in(what, text, ["&lt;script&gt;", "\\x1b[2J"])
        else:
            try:
                doc = json.loads(text)
            except ValueError as e:
                fail("%s: %s" % (what, e))
                continue
            # JSON keeps the text itself (escaped by JSON), invalid UTF-8 as U+FFFD.
            label = (BASE_LABEL if tag != "imports" else b"folded " + EVIL).decode("utf-8", "replace")
            if not any(label in x for x in strings(doc)):
                fail("%s: the label is not there as its own text" % what)

# Exports: CSV tables, folded stacks, speedscope, dot.
for table in ["trials", "intervals", "stages", "queues", "drops", "perf", "events"]:
    out, _ = pathscope("export", BASE_LABEL, *db, "--format", "csv", "--table", table, "-o", "-",
                       what="export csv " + table)
    rows = list(csv.reader(io.StringIO(out)))
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        fail("export csv %s: rows of %s fields" % (table, sorted({len(r) for r in rows})))
    if table == "perf":
        cells = [c for r in rows for c in r]
        if not any("\\x1b[2J<b>ev</b>" in c for c in cells):
            fail("export csv perf: the hostile event name is not there, shown: %r" % cells[:20])
for ref, tree, name in [(b"folded " + EVIL, "stacks", "folded"), (b"perf " + EVIL, "stacks", "perf"),
                        (BASE_LABEL, "stages", "stages")]:
    path = os.path.join(WORK, name + ".folded")
    pathscope("export", ref, *db, "--format", "folded", "--tree", tree, "-o", path,
              what="export folded " + name)
    with open(path, "rb") as f:
        text = check_terminal("export folded " + name, f.read())
    try:
        check_formats.check_folded(path)
    except Exception as e:
        fail("export folded %s: %s" % (name, e))
    if name == "folded":
        # One frame stays one frame: main, the hostile frame, leaf.
        deep = [l for l in text.splitlines() if l.startswith("main;f")]
        if len(deep) != 1 or deep[0].rpartition(" ")[0].count(";") != 2:
            fail("export folded: the hostile frame was split: %r" % deep)
        visible_in("export folded", text, ["\\x1b[2J", "\\x07", "\ufffd"])
    if name == "perf":
        # perf script's frame holds a ';': it stays one frame (comm, main, it).
        deep = [l for l in text.splitlines() if ";f<script>" in l]
        if len(deep) != 1 or deep[0].rpartition(" ")[0].count(";") != 2 or "\\x1b]0:t" not in deep[0]:
            fail("export folded perf: the frame holding ';' was split: %r" % deep)
        # Folded, imported and folded again: the same file.
        pathscope("import", "folded", path, *db, "--label", "refolded", what="import refolded")
        again = os.path.join(WORK, "refolded.folded")
        pathscope("export", "refolded", *db, "--format", "folded", "-o", again, what="export refolded")
        if open(again, "rb").read() != open(path, "rb").read():
            fail("export folded -> import -> export changed the stacks")
for ref, name in [(BASE_LABEL, "base"), (b"perf " + EVIL, "perf")]:
    path = os.path.join(WORK, name + ".speedscope.json")
    pathscope("export", ref, *db, "--format", "speedscope", "-o", path, what="export speedscope")
    with open(path, "rb") as f:
        check_terminal("export speedscope " + name, f.read())
    try:
        check_formats.check_speedscope_fields(json.load(open(path, encoding="utf-8")))
    except Exception as e:
        fail("export speedscope %s: %s: %s" % (name, type(e).__name__, e))
for extra, name in [([], "dot"), (["--base", CAND_LABEL], "dot against a base")]:
    path = os.path.join(WORK, name.replace(" ", "-") + ".dot")
    pathscope("export", BASE_LABEL, *db, "--format", "dot", *extra, "-o", path, what="export " + name)
    with open(path, "rb") as f:
        text = check_terminal("export " + name, f.read())
    visible_in("export " + name, text, ["\\\\x1b[2J"])  # dot's own escape of the backslash
    dot = shutil.which("dot")
    if dot:
        r = subprocess.run([dot, "-Tsvg", path], capture_output=True)
        if r.returncode != 0 or r.stderr:
            fail("dot -Tsvg %s: %s" % (name, r.stderr.decode("utf-8", "replace")))
        elif "&lt;script&gt;" not in r.stdout.decode("utf-8", "replace"):
            fail("dot -Tsvg %s: the label is not in the drawing" % name)
    elif os.environ.get("CI") == "true":
        fail("dot (graphviz) is missing; scripts/setup.sh installs it")

# The experiment's comparison in every format.
for fmt in ["text", "md", "html", "json"]:
    out, _ = pathscope("compare", "--experiment", experiment, "--by", "capture.sample_event", *db,
                       "--format", fmt, what="compare --experiment --format " + fmt)
    what = "compare --experiment --format " + fmt
    if fmt == "text":
        # The cell's value is shown up to its own line feed (a cell's settings
        # are lines), so only its CR is sure to be there; a starved-worker
        # warning, when a run has one, shows the whole value.
        visible_in(what, out, ["\\x1b[2J", "\\r"])
    elif fmt == "md":
        no_markup(what, out)
        rows = [len(re.findall(r"(?<!\\)\|", l)) for l in out.splitlines() if l.startswith("|")]
        if not rows or len(set(rows)) != 1:
            fail("%s: table rows of %s cells" % (what, rows))
    elif fmt == "html":
        import html5lib
        try:
            html5lib.HTMLParser(strict=True).parse(out)
        except Exception as e:
            fail("%s: %s" % (what, e))
        if "<b>x</b>" in out:
            fail("%s: a cell's markup is there as markup" % what)
    else:
        try:
            json.loads(out)
        except ValueError as e:
            fail("%s: %s" % (what, e))
out, _ = pathscope("compare", "--experiment", experiment, "--by", "capture.sample_event", *db,
                   "--ministat", what="compare --experiment --ministat")

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
