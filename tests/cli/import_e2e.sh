#!/bin/sh
# Imports beside a capture, as a user meets them: a capture's own profile,
# folded by `export` or recorded by perf, reports the same functions at the
# same shares as the capture; a store written before sampled CPU time had one
# event name still reads; `list` keeps its columns and says what is true of
# an import; a 4-packet pcap imports without a starved-worker warning.
#   import_e2e.sh PATHSCOPE PYTHON
set -eu
P=$1 PY=$2
D=$(mktemp -d /tmp/pathscope_import.XXXXXX)
trap 'rm -rf "$D"' EXIT
DB=$D/i.db
fail() { echo "FAIL: $*"; exit 1; }

# The hottest functions of `report BASE CAND --format json`. "same": the first
# 5 have equal shares on both sides. "overlap" (two samplers of one run): the
# base's hottest function has a share on both sides, and the functions on
# both sides hold over half of each side's listed share.
hottest_on_both_sides() {  # BASE CAND same|overlap
  "$P" report "$1" "$2" --db "$DB" --format json -o "$D/r.json" 2> /dev/null
  "$PY" - "$D/r.json" "$3" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
stacks = doc["stacks"]
hot = stacks["hottest"]
print("event %s:" % stacks["event"], ", ".join(
    "%s %.4f/%.4f" % (h["function"], h["base_share"], h["cand_share"]) for h in hot[:5]))
assert hot, "no hottest functions"
if sys.argv[2] == "same":
    for h in hot[:5]:
        assert h["base_share"] > 0 and h["cand_share"] > 0, "%s is on one side only" % h["function"]
        assert abs(h["base_share"] - h["cand_share"]) < 1e-9, "%s: shares differ" % h["function"]
else:
    top = max(hot, key=lambda h: h["base_share"])
    assert top["cand_share"] > 0, "%s is on one side only" % top["function"]
    for side in ("base_share", "cand_share"):
        both = sum(h[side] for h in hot if h["base_share"] > 0 and h["cand_share"] > 0)
        assert both > 0.5 * sum(h[side] for h in hot), "few functions in common (%s)" % side
EOF
}

"$P" run --db "$DB" --label cap --trials 1 --duration 1 > "$D/run.txt"

# The capture's own stacks, folded and imported: the same functions at the
# same shares, and compare finds what they have in common.
"$P" export cap --db "$DB" --format folded -o "$D/cap.folded" 2> /dev/null
"$P" import folded "$D/cap.folded" --db "$DB" --label folded > "$D/folded.txt"
grep -q "profile.event  *folded" "$D/folded.txt" || fail "the folded import names no source event"
hottest_on_both_sides cap folded same || fail "report cap folded: $(cat "$D/r.json")"
"$P" compare cap folded --db "$DB" > "$D/compare.txt" || fail "compare cap folded: $(cat "$D/compare.txt")"
cat "$D/compare.txt"
grep -q "no metric is common" "$D/compare.txt" && fail "compare cap folded finds nothing in common"

# A store written before: imports stored their stacks as "samples" and
# captures as "perf::cpu-clock". It reads as before.
"$PY" -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute(\"UPDATE stack_samples SET event = 'samples' WHERE run_id = (SELECT id FROM runs WHERE label = 'folded')\")
db.execute(\"UPDATE stack_samples SET event = 'perf::cpu-clock' WHERE run_id = (SELECT id FROM runs WHERE label = 'cap')\")
db.commit()" "$DB"
hottest_on_both_sides cap folded same || fail "an older store: report cap folded: $(cat "$D/r.json")"

# The same capture's worker recorded by perf: its functions, under the same
# event, with a share on both sides (two samplers: not the same shares).
if command -v perf > /dev/null 2>&1 && perf record -q -N -o /dev/null -- true > /dev/null 2>&1; then
  perf record -q -N -g -F 999 -o "$D/perf.data" -- \
    "$P" run --db "$DB" --label percap --trials 1 --duration 1 > /dev/null 2>&1
  perf script -i "$D/perf.data" > "$D/perf.txt" 2> /dev/null
  # The capture samples its worker lcore's thread: DPDK names it rte-worker-N.
  worker=$(awk '/^rte-worker-[0-9]+ / { print $1; exit }' "$D/perf.txt")
  [ -n "$worker" ] || fail "no rte-worker thread in the perf recording"
  "$P" import perf "$D/perf.txt" --comm "$worker" --db "$DB" --label perfimport > "$D/perf-import.txt"
  grep -q "profile.event  *cpu-clock" "$D/perf-import.txt" || fail "the perf import names no source event"
  hottest_on_both_sides percap perfimport overlap || fail "report percap perfimport: $(cat "$D/r.json")"
else
  echo "perf cannot sample here: the perf import of a capture is not checked"
fi

# A 4-packet pcap (libpcap's format, 4 UDP/IPv6 frames): imported with no
# worker to starve.
"$PY" - "$D/four.pcap" <<'EOF'
import struct, sys
frame = (bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 9, 0x86, 0xdd])
         + bytes([0x60, 0, 0, 0, 0, 12, 17, 64])
         + bytes.fromhex("20010db8010000000000000000000005")
         + bytes.fromhex("20010db8aaaa00000000000000000001")
         + struct.pack(">HHHH", 1000, 9, 12, 0) + b"ping")
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(4):
        f.write(struct.pack("<IIII", 1, i, len(frame), len(frame)) + frame)
EOF
"$P" import pcap "$D/four.pcap" --db "$DB" --label four > "$D/pcap.txt" 2>&1
grep -q "pcap.packets  *4" "$D/pcap.txt" || fail "the pcap import: $(cat "$D/pcap.txt")"
grep -qi "starved" "$D/pcap.txt" && fail "a pcap import warns of a starved worker: $(cat "$D/pcap.txt")"

# Stacks on one side, stage counters on the other: nothing to compare.
if "$P" compare folded four --db "$DB" > "$D/none.txt" 2>&1; then
  fail "compare of runs with nothing in common exits 0: $(cat "$D/none.txt")"
fi
grep -q "no metric is common to both runs" "$D/none.txt" || fail "no 'nothing in common' message"

# list: every row's columns where the header puts them, and no "0/1" trials
# for an import (it ran none).
"$P" list --db "$DB" > "$D/list.txt"
cat "$D/list.txt"
awk 'NR == 1 { kind = index($0, "kind"); started = index($0, "started (UTC)"); next }
     /-import/ { if (substr($0, kind, 1) == " " || substr($0, kind - 1, 1) != " ") bad = "kind column: " $0
                 if ($0 ~ / [0-9]+\/[0-9]+ /) bad = "trials of an import: " $0 }
     { if (!match($0, /[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T/) || RSTART != started)
         bad = "started column: " $0 }
     END { if (bad != "") { print bad; exit 1 } }' "$D/list.txt" || fail "list misaligns its columns"
grep -q "folded-import" "$D/list.txt" || fail "list has no folded import"
echo "imports: OK"
