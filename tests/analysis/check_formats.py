#!/usr/bin/env python3
"""Checks report and export files with real parsers.

  check_formats.py [--schema SPEEDSCOPE_SCHEMA] FILE...

*.html: html5lib in strict mode (every HTML parse error fails), and each inline
<svg> on its own with an XML parser, which must find the flame frames.
*.json: parsed; a speedscope file (its $schema says so) is validated against
speedscope's published JSON schema when --schema names it, and always against
the fields its file format documents.
*.folded: every line is "frames WEIGHT".
"""
import json, os, re, sys
import xml.etree.ElementTree as ET

SPEEDSCOPE = "https://www.speedscope.app/file-format-schema.json"


def check_html(path):
    import html5lib
    text = open(path, encoding="utf-8").read()
    html5lib.HTMLParser(strict=True).parse(text)
    svgs = re.findall(r"<svg\b.*?</svg>", text, re.S)
    if not svgs:
        raise AssertionError("no inline <svg> flame graph")
    ns = "{http://www.w3.org/2000/svg}"
    flames = charts = 0
    for svg in svgs:
        root = ET.fromstring(svg)  # every SVG, charts included, is well-formed XML
        if "chart" in root.get("class", ""):
            # A chart: bars or lines, and axis text naming its units.
            if root.find(ns + "rect") is None and root.find(ns + "polyline") is None:
                if root.find(ns + "text") is None:
                    raise AssertionError("a chart with neither bars, lines nor a message")
            charts += 1
            continue
        frames = root.findall(ns + "g")
        if not frames or any(g.find(ns + "rect") is None or g.find(ns + "title") is None
                             for g in frames):
            raise AssertionError("an SVG without frames, or a frame without rect and title")
        flames += 1
    if not flames:
        raise AssertionError("no flame graph among the SVGs")
    if 'type="search"' not in text or "addEventListener('click'" not in text:
        raise AssertionError("the flame graph lacks its search box or zoom handler")
    return "html5lib strict + %d SVG(s) by XML parser" % len(svgs)


def check_speedscope_fields(doc):
    assert doc["$schema"] == SPEEDSCOPE
    frames = doc["shared"]["frames"]
    assert all(isinstance(f["name"], str) for f in frames)
    assert doc["profiles"], "no profiles"
    for p in doc["profiles"]:
        assert p["type"] == "sampled" and isinstance(p["name"], str)
        assert p["unit"] in ("none", "nanoseconds", "microseconds", "milliseconds", "seconds",
                             "bytes")
        assert len(p["samples"]) == len(p["weights"])
        assert all(0 <= i < len(frames) for s in p["samples"] for i in s)
        assert abs(sum(p["weights"]) - (p["endValue"] - p["startValue"])) < 1e-6 * max(
            1, p["endValue"])


def check_json(path, schema):
    doc = json.load(open(path, encoding="utf-8"))
    if doc.get("$schema") != SPEEDSCOPE:
        return "JSON parsed"
    check_speedscope_fields(doc)
    if not schema:
        return "speedscope: documented fields (no schema file given)"
    import jsonschema
    jsonschema.validate(doc, json.load(open(schema)))
    return "speedscope: published JSON schema + documented fields"


def check_folded(path):
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        stack, _, weight = line.rstrip("\n").rpartition(" ")
        if not stack or float(weight) < 0:
            raise AssertionError("line %d: %r" % (n, line))
    return "folded lines"


def main(argv):
    schema = None
    if argv[:1] == ["--schema"]:
        schema = argv[1]
        argv = argv[2:]
        if not os.path.exists(schema):
            why = "speedscope's schema %s is missing (scripts/setup.sh fetches it)" % schema
            if os.environ.get("CI") == "true":
                print("FAIL: %s; under CI=true setup.sh must have fetched it" % why)
                return 1
            print("SKIP: " + why)
            return 77
    failed = 0
    for path in argv:
        try:
            if path.endswith(".html"):
                how = check_html(path)
            elif path.endswith(".json"):
                how = check_json(path, schema)
            elif path.endswith(".folded"):
                how = check_folded(path)
            else:
                raise AssertionError("unknown kind of file")
            print("ok   %s (%s)" % (path, how))
        except Exception as e:  # report every file, then fail
            failed += 1
            print("FAIL %s: %s: %s" % (path, type(e).__name__, e))
    return 1 if failed or not argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
