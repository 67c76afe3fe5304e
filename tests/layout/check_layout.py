#!/usr/bin/env python3
"""The layout's rule: a folder's code includes only its own headers and those
of the libraries its CMake target links directly.

Each folder with a CMakeLists.txt that defines a target (add_library or
add_executable) is a room; its target_link_libraries list is the set of
rooms it may use. Every `#include "room/..."` in a room's sources
(.cpp, .h) is checked against that list, and the link graph between rooms
must have no cycle. Prints the allowed graph, then each forbidden include
as FILE:LINE, what it includes and what its room may use; exits 1 when
there is one.

  check_layout.py [ROOT]          (ROOT: the source tree, default: this repo)

Tests, fuzz targets and benchmarks (tests/) may include anything and are
not checked; a folder without a target of its own belongs to the nearest
folder above it that has one.
"""
import os
import re
import sys

SOURCE_ENDINGS = (".cpp", ".h")
SKIPPED = {"tests", "build", ".git", "docs", "samples", "scripts"}
TARGET_DEF = re.compile(r"\badd_(library|executable)\s*\(\s*([A-Za-z0-9_.+-]+)")
LINKS = re.compile(r"\btarget_link_libraries\s*\(\s*([A-Za-z0-9_.+-]+)([^)]*)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def without_comments(cmake):
    return "\n".join(line.split("#", 1)[0] for line in cmake.splitlines())


def find_rooms(root):
    """Folder (relative) -> its targets; target -> folder; target -> links."""
    rooms, folder_of, links = {}, {}, {}
    for top, dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs if not (rel == "." and d in SKIPPED) and not d.startswith("."))
        if rel == "." or "CMakeLists.txt" not in files:
            continue
        text = without_comments(read(os.path.join(top, "CMakeLists.txt")))
        targets = [m.group(2) for m in TARGET_DEF.finditer(text)]
        if not targets:
            continue
        rooms[rel] = targets
        for t in targets:
            folder_of[t] = rel
        for m in LINKS.finditer(text):
            words = [w for w in m.group(2).split() if w not in ("PUBLIC", "PRIVATE", "INTERFACE")]
            links.setdefault(m.group(1), set()).update(words)
    return rooms, folder_of, links


def room_of(path, rooms):
    """The room holding `path` (relative), or None outside every room."""
    parts = path.split("/")[:-1]
    while parts:
        folder = "/".join(parts)
        if folder in rooms:
            return folder
        parts.pop()
    return None


def allowed_rooms(rooms, folder_of, links):
    """Room -> the rooms its targets link directly (pathscope's own only)."""
    allowed = {}
    for room, targets in rooms.items():
        uses = set()
        for t in targets:
            for dep in links.get(t, ()):
                if dep in folder_of and folder_of[dep] != room:
                    uses.add(folder_of[dep])
        allowed[room] = uses
    return allowed


def find_cycle(allowed):
    state, path = {}, []

    def visit(room):
        state[room] = "open"
        path.append(room)
        for nxt in sorted(allowed.get(room, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[room] = "done"
        path.pop()
        return None

    for room in sorted(allowed):
        if room not in state:
            found = visit(room)
            if found:
                return found
    return None


def forbidden_includes(root, rooms, allowed):
    found = []
    for room in sorted(rooms):
        for top, dirs, files in os.walk(os.path.join(root, room)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(SOURCE_ENDINGS):
                    continue
                path = os.path.join(top, name)
                rel = os.path.relpath(path, root)
                if room_of(rel, rooms) != room:
                    continue  # a room of its own below this one
                for number, line in enumerate(read(path).splitlines(), 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = room_of(m.group(1), rooms)
                    if target is None or target == room or target in allowed[room]:
                        continue
                    found.append((rel, number, m.group(1), room, target))
    return found


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    rooms, folder_of, links = find_rooms(root)
    if not rooms:
        print(f"check_layout: no folder under {root} defines a CMake target")
        return 1
    allowed = allowed_rooms(rooms, folder_of, links)
    print("allowed graph (a folder may include its own headers and those of the folders listed):")
    for room in sorted(allowed):
        uses = ", ".join(sorted(allowed[room])) or "(nothing of pathscope's)"
        print(f"  {room:<18} -> {uses}")
    bad = 0
    cycle = find_cycle(allowed)
    if cycle:
        print("FAIL: the folders' links form a cycle: " + " -> ".join(cycle))
        bad += 1
    for rel, number, included, room, target in forbidden_includes(root, rooms, allowed):
        may = ("only " + ", ".join(sorted(allowed[room]))) if allowed[room] else "nothing of pathscope's"
        print(f'FAIL: {rel}:{number} includes "{included}" ({target}/), but {room}/ may use '
              f"{may}: move the code, or link {room}'s target with {target}'s in "
              f"{room}/CMakeLists.txt if the architecture allows it")
        bad += 1
    if bad:
        print(f"check_layout: {bad} forbidden edge(s)")
        return 1
    print(f"check_layout: every include of {len(rooms)} folders follows the allowed graph")
    return 0


if __name__ == "__main__":
    sys.exit(main())
