#!/bin/sh
# The README's experiments, shortened: the bind x connect x route_cache
# matrix with 3 trials a cell, its report by route_cache (shape and
# verdicts) in every format, list's grouping, and every sample scenario run
# end to end with fewer, shorter trials.
#   experiments_e2e.sh PATHSCOPE PYTHON
# Correctness only: what the route cache saves is checked exactly (FIB
# lookups per send), never by timing three short trials on a shared machine;
# its cost in cycles is a benchmark figure (bench_forward's "route cache on /
# off" ratio).
set -eu
P=$1 PY=$2
D=$(mktemp -d /tmp/pathscope_exp.XXXXXX)
trap 'rm -rf "$D"' EXIT
DB=$D/exp.db
fail() { echo "FAIL: $*"; exit 1; }

# The cells share the machine with other tests (ctest -j2): never judged
# disturbed here (capture.max_disturbance = 100), since this test checks
# the verdicts' shape; tests/unit/gate_test.cpp and disturbance_test cover
# disturbance.
"$P" run samples/udp6-tx-bind-connect.toml --set capture.max_disturbance=100 --db "$DB" \
  --trials 3 --duration 0.5 > "$D/run.txt"
cat "$D/run.txt"
[ "$(grep -c "socket.connect=" "$D/run.txt")" -eq 8 ] || fail "the matrix did not run 8 cells"
grep -q "NOT BALANCED" "$D/run.txt" && fail "a cell's ledger does not balance"
EXP=$(sed -n 's/^stored as experiment \([0-9a-f]*\) .*/\1/p' "$D/run.txt")
[ -n "$EXP" ] || fail "no experiment id printed"

"$P" list --db "$DB" > "$D/list.txt"
grep -q "^experiment $EXP: 8 cells" "$D/list.txt" || fail "list does not group the experiment"
# A cell is labelled by what tells it apart; how it was measured is no part of it.
label=$("$P" show 1 --db "$DB" --no-histograms | sed -n '1s/^run 1  "\([^"]*\)".*/\1/p')
echo "run 1 is labelled '$label'"
case $label in
  "udp6-tx-bind-connect "*cache=*bind=*connect=*) ;;
  *) fail "a cell is not labelled by the settings that tell it apart: '$label'" ;;
esac
case $label in *capture.*|*engine.duration*|*"["*) fail "a label carries how the run was measured: '$label'" ;; esac
# The compare line it suggests works as printed: it names this store.
hint=$(sed -n 's/^ *compare: pathscope compare //p' "$D/list.txt")
case $hint in "--db $DB --experiment $EXP --by "*) ;; *) fail "list's compare hint lacks --db $DB: $hint" ;; esac

"$P" compare --db "$DB" --experiment "$EXP" --by engine.route_cache --metric udp6_output --metric "tx rate" > "$D/cmp.txt"
cat "$D/cmp.txt"
# Four rows of cells (the 2x2 of bind and connect), each with two metrics.
[ "$(grep -c "^socket.bind=" "$D/cmp.txt")" -eq 4 ] || fail "not four bind x connect cells"
[ "$(grep -c "udp6_output (cyc/tx pkt)" "$D/cmp.txt")" -eq 4 ] || fail "udp6_output is not in every cell"
# Every cell has a verdict for route_cache=off, whichever way three short
# trials on a shared machine point.
[ "$(grep "udp6_output (cyc/tx pkt)" "$D/cmp.txt" | grep -Ec "(better|worse|no difference)$")" -eq 4 ] \
  || fail "a cell has no verdict for udp6_output"
# What the switch does, exactly: a connected socket with the cache on does
# no FIB lookup per datagram; every other cell does one.
for id in 1 2 3 4 5 6 7 8; do
  "$P" show "$id" --db "$DB" --no-histograms > "$D/show.txt"
  cell=$(sed -n 's/^experiment .*, cell //p' "$D/show.txt")
  lookups=$(awk '/lookups\/send/ && /^trial/ { f = 1; next } f && /^[0-9]/ { print $7 } /^tx rate =/ { f = 0 }' \
            "$D/show.txt" | sort -u)
  case "$cell" in
    *route_cache=on*connect=true*) want=0.000 ;;
    *) want=1.000 ;;
  esac
  [ "$lookups" = "$want" ] || fail "run $id ($cell): lookups/send '$lookups', expected $want"
done
echo "lookups/send: 0.000 for connected sockets with the cache on, 1.000 in the other cells"
# A report of two cells names the settings they differ in (the scenario's
# text is the same for both), and a one-cell report names its cell.
"$P" report 1 2 --db "$DB" > "$D/cells.txt"
sed -n '/^Scenario difference/,/^Verdicts/p' "$D/cells.txt"
grep -q "none: both runs used the same scenario" "$D/cells.txt" && fail "a report of two cells calls them the same"
grep -Eq '^  -cell [a-z_.]+=' "$D/cells.txt" || fail "the report does not name the base cell's settings"
grep -Eq '^  \+cell [a-z_.]+=' "$D/cells.txt" || fail "the report does not name the candidate cell's settings"
"$P" report 1 --db "$DB" --format md > "$D/one.md"
sed -n '/^## Settings/,/^## Measurements/p' "$D/one.md" | grep -q '^--set capture.max_disturbance=100$' \
  || fail "a one-run report does not name its --set settings"
sed -n '/^## Settings/,/^## Measurements/p' "$D/one.md" | grep -q '^cell engine.route_cache=' \
  || fail "a one-run report does not name its cell"
"$P" compare --db "$DB" --experiment "$EXP" --by engine.route_cache --metric udp6_output --format json -o "$D/cmp.json"
"$PY" - "$D/cmp.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["by"] == "engine.route_cache" and doc["values"] == ["on", "off"], doc["values"]
assert len(doc["rows"]) == 4, len(doc["rows"])
for row in doc["rows"]:
    m = row["metrics"][0]
    assert m["name"] == "udp6_output" and m["baseline"]["n"] == 3
    off = m["against"][0]
    # The verdict agrees with its significance and, for Student's t (an
    # interval is given), with that interval: it excludes 0 exactly when the
    # verdict is "better" or "worse".
    assert off["verdict"] in ("better", "worse", "no difference"), row
    assert off["significant"] == (off["verdict"] != "no difference"), row
    if off["half_width_percent"] > 0:
        assert off["significant"] == (abs(off["change_percent"]) > off["half_width_percent"]), row
print("json: 4 cells, each with a verdict that agrees with its interval")
PY
for f in md html; do "$P" compare --db "$DB" --experiment "$EXP" --by socket.bind --format $f -o "$D/cmp.$f"; done
grep -q "^| socket.connect=false engine.route_cache=on\|^| engine.route_cache=on socket.connect=false" "$D/cmp.md" || fail "markdown rows"
grep -q "<table>" "$D/cmp.html" || fail "html table"
# A setting the matrix does not have is refused by name.
if "$P" compare --db "$DB" --experiment "$EXP" --by engine.burst > "$D/err.txt" 2>&1; then fail "an unknown setting was accepted"; fi
grep -q "no cell of experiment $EXP sets 'engine.burst'" "$D/err.txt" || { cat "$D/err.txt"; fail "unclear error"; }

# Every sample scenario runs into a store.
for s in samples/*.toml; do
  case $s in
    *tap-peer*) continue ;;            # needs a kernel peer: tap_test covers it
    *route-output-rules*) continue ;;  # rules for bench route-output: review_samples_e2e
    *kernel-*) [ "$(id -u)" = 0 ] || { echo "not run: $s (the Linux target needs root)"; continue; } ;;
  esac
  "$P" run "$s" --db "$D/samples.db" --trials 2 --duration 0.3 > "$D/sample.txt" 2>&1 \
    || { cat "$D/sample.txt"; fail "$s did not run"; }
  grep -q "NOT BALANCED" "$D/sample.txt" && { cat "$D/sample.txt"; fail "$s: a ledger does not balance"; }
  echo "ran $s"
done
echo "ok"
