#!/usr/bin/env python3
"""Turns CMake's --graphviz output into docs/architecture.dot: one box per
product target, named by the folder that defines it and what it holds, the
build's link edges (grey: "links"), and the data flow drawn over them (bold).
Used by scripts/architecture.sh."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# What each folder holds, in a few words (the folder is the room).
ROLES = {
    "common": "shared helpers\n(errors, text, numbers)",
    "engine": "the IPv6/UDP engine on DPDK:\nstages, tables, sockets",
    "workload": "what drives the engine:\ngenerator, rr clients, frames",
    "db": "the store:\nSQLite file or PostgreSQL",
    "capture": "runs scenarios, imports;\nwrites batches to the store",
    "analysis/text": "numbers, safe text,\nJSON (locale-free)",
    "analysis/stats": "Student's t, paired tests,\nBenjamini-Hochberg, ministat",
    "analysis/trees": "flame and call trees,\ntheir diff and layout",
    "analysis/figures": "a run's figures, one\ndefinition each",
    "analysis/verdicts": "compare, gate,\nexperiments, sequential",
    "analysis/render": "reports, SVG, CSV,\nrun views",
    "cli": "pathscope: the CLI",
    "gui": "pathscope-gui: the\ndesktop program (Qt 6)",
}

# The data flow: what moves between rooms at run time.
FLOW = [
    ("scenario", "capture", "scenario TOML\n+ --set"),
    ("capture", "engine", "builds and runs"),
    ("workload", "engine", "frames, requests"),
    ("engine", "capture", "stage counters, traces,\nperf samples"),
    ("capture", "db", "committed batches"),
    ("db", "analysis/figures", "runs read back"),
    ("analysis/render", "cli", "tables, verdicts,\nreports"),
    ("analysis/render", "gui", "pages, flame graphs,\ncomparisons"),
]


def target_folders():
    """target name -> folder, from the add_library/add_executable lines."""
    where = {}
    for cm in ROOT.glob("**/CMakeLists.txt"):
        folder = cm.parent.relative_to(ROOT).as_posix()
        if folder.split("/")[0] in ("tests", "build", "samples"):
            continue
        for m in re.finditer(r"add_(?:library|executable)\(\s*([\w.+-]+)", cm.read_text()):
            where[m.group(1)] = folder
    return where


def reduced(links):
    """The link edges less those another path implies (A->C when A->B->C):
    a room links every room it includes, so the full set hides the layers."""
    succ = {}
    for a, b in links:
        succ.setdefault(a, set()).add(b)

    def reach(a, seen):
        for b in succ.get(a, ()):
            if b not in seen:
                seen.add(b)
                reach(b, seen)
        return seen

    return sorted((a, b) for a, b in links
                  if not any(b in reach(c, {c}) for c in succ[a] if c != b))


def main(path):
    text = pathlib.Path(path).read_text()
    names = dict(re.findall(r'"(node\d+)" \[ label = "([^"]+)"', text))
    edges = re.findall(r'"(node\d+)" -> "(node\d+)"', text)
    where = target_folders()
    targets = {n: t for n, t in names.items() if where.get(t) in ROLES}
    out = ["// Made by scripts/architecture.sh from `cmake --graphviz` of the dev build; do not edit.",
           "digraph pathscope {",
           '  rankdir=TB; newrank=true; nodesep=0.5; ranksep=0.45; node [shape=box, style="rounded,filled", fillcolor="#f4f4f4", fontname="Helvetica", fontsize=11];',
           '  edge [fontname="Helvetica", fontsize=9];',
           '  scenario [label="scenario\\nsamples/*.toml", shape=note, fillcolor="#fffbe6"];']
    by_folder = {}
    for t in sorted(targets.values()):
        by_folder.setdefault(where[t], []).append(t)
    folders = set(by_folder)
    # analysis/'s rooms drawn inside one box: the layers of one concern.
    inner, outer = [], []
    for f, ts in sorted(by_folder.items()):
        label = f"{f}/\\n({', '.join(ts)})\\n" + ROLES[f].replace("\n", "\\n")
        (inner if f.startswith("analysis/") else outer).append(f'"{f}" [label="{label}"];')
    out += ["  " + line for line in outer]
    out.append('  subgraph cluster_analysis { label="analysis/: pure computation over stored runs"; '
               'fontname="Helvetica"; fontsize=11; style=dashed;')
    out += ["    " + line for line in inner]
    out.append("  }")
    links = reduced({(where[targets[a]], where[targets[b]]) for a, b in edges
                    if a in targets and b in targets and where[targets[a]] != where[targets[b]]})
    for a, b in links:
        out.append(f'  "{a}" -> "{b}" [color="#999999", style=dashed, arrowsize=0.6, tooltip="links"];')
    for a, b, what in FLOW:
        if a in folders | {"scenario"} and b in folders:
            label = what.replace("\n", "\\n")
            out.append(f'  "{a}" -> "{b}" [label="{label}", penwidth=2, color="#1f5fa8", fontcolor="#1f5fa8", constraint=false];')
    out.append('  legend [shape=plaintext, style="", label="bold blue: data at run time\\ngrey dashed: the build\'s link edges (A links B;\\nan edge another path implies left out)"];')
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
