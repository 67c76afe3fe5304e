#!/usr/bin/env python3
"""One job a function, one concern a file: no function of pathscope's own
code (tests, samples and the build tree left out) is longer than 120 lines,
and no source file is longer than 700. Prints the five longest functions
and files, then each that is over its limit as FILE:LINE; exits 1 when one
is.

  check_sizes.py [ROOT]          (ROOT: the source tree, default: this repo)

A function is a brace block opened at namespace or class level after a
parameter list; it counts from the line of its opening brace to the line of
its closing one, lambdas and local classes inside it included. Comments,
strings, character literals and preprocessor lines are skipped, so braces
in them do not count.
"""
import os
import re
import sys

MAX_FUNCTION = 119  # lines: "under 120"
MAX_FILE = 700
ENDINGS = (".cpp", ".h", ".c")
SKIPPED = {"tests", "build", ".git", "docs", "samples", "scripts"}


def code_only(text):
    """`text` with comments, strings and character literals blanked and
    preprocessor lines emptied; newlines kept, so line numbers hold."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # A preprocessor line, with its continuations.
            while i < n and not (text[i] == "\n" and text[i - 1] != "\\"):
                i += 1
            continue
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            close = ")" + m.group(1) + '"'
            end = text.find(close, i + m.end())
            end = n if end < 0 else end + len(close)
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and (text[i - 1].isalnum()):
                out.append(" ")  # a digit separator: 10'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(first line, last line) of every function body in `text`."""
    code = code_only(text)
    found = []
    stack = []  # (kind, line of "{")
    header_start = 0
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == ";":
            if not stack or stack[-1][0] in ("namespace", "class"):
                header_start = i + 1
        elif c == "{":
            inside = stack and stack[-1][0] not in ("namespace", "class")
            if inside:
                stack.append(("block", line))
                continue
            header = " ".join(code[header_start:i].split())
            if re.search(r"\bnamespace\b|^extern\b", header):
                kind = "namespace"
            elif re.search(r"\b(class|struct|union|enum)\b[^()]*$", header):
                kind = "class"
            elif ")" in header and not header.endswith("="):
                kind = "function"
            else:
                kind = "block"  # an initializer: data, not code
            stack.append((kind, line))
            header_start = i + 1
        elif c == "}":
            if not stack:
                continue
            kind, start = stack.pop()
            if kind == "function":
                found.append((start, line))
            if not stack or stack[-1][0] in ("namespace", "class"):
                header_start = i + 1
    return found


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    sizes, longest = [], []
    for top, dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs if not (rel == "." and d in SKIPPED) and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(ENDINGS):
                continue
            path = os.path.join(top, name)
            relpath = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            sizes.append((text.count("\n"), relpath))
            for start, end in functions(text):
                longest.append((end - start + 1, f"{relpath}:{start}"))
    if not sizes:
        print(f"check_sizes: no source under {root}")
        return 1
    sizes.sort(reverse=True)
    longest.sort(reverse=True)
    print("longest functions (lines):")
    for n, where in longest[:5]:
        print(f"  {n:5d}  {where}")
    print("longest files (lines):")
    for n, where in sizes[:5]:
        print(f"  {n:5d}  {where}")
    bad = 0
    for n, where in longest:
        if n > MAX_FUNCTION:
            print(f"FAIL: the function at {where} is {n} lines (at most {MAX_FUNCTION}): "
                  "split it into functions of one job each")
            bad += 1
    for n, where in sizes:
        if n > MAX_FILE:
            print(f"FAIL: {where} is {n} lines (at most {MAX_FILE}): split it by concern")
            bad += 1
    if bad:
        print(f"check_sizes: {bad} over the limits")
        return 1
    print(f"check_sizes: {len(longest)} functions in {len(sizes)} files, every one within the limits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
