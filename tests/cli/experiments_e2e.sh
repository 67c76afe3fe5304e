#!/bin/sh
# The README's experiments, shortened: the bind x connect x route_cache
# matrix with 3 trials a cell, its report by route_cache (shape and
# verdicts) in every format, list's grouping, and every sample scenario run
# end to end with fewer, shorter trials.
#   experiments_e2e.sh PATHSCOPE PYTHON [sanitized]
# With "sanitized" (an ASan + UBSan build) the verdicts' directions are not
# checked: instrumentation changes every cell's cost, and three trials of it
# say nothing about the product; the counts and the table's shape still are.
set -eu
P=$1 PY=$2 SANITIZED=${3:-}
D=$(mktemp -d /tmp/pathscope_exp.XXXXXX)
trap 'rm -rf "$D"' EXIT
DB=$D/exp.db
fail() { echo "FAIL: $*"; exit 1; }

"$P" run samples/udp6-tx-bind-connect.toml --db "$DB" --trials 3 --duration 0.5 > "$D/run.txt"
cat "$D/run.txt"
[ "$(grep -c "socket.connect=" "$D/run.txt")" -eq 8 ] || fail "the matrix did not run 8 cells"
grep -q "NOT BALANCED" "$D/run.txt" && fail "a cell's ledger does not balance"
EXP=$(sed -n 's/^stored as experiment \([0-9a-f]*\) .*/\1/p' "$D/run.txt")
[ -n "$EXP" ] || fail "no experiment id printed"

"$P" list --db "$DB" > "$D/list.txt"
grep -q "^experiment $EXP: 8 cells" "$D/list.txt" || fail "list does not group the experiment"
# The compare line it suggests works as printed: it names this store.
hint=$(sed -n 's/^ *compare: pathscope compare //p' "$D/list.txt")
case $hint in "--db $DB --experiment $EXP --by "*) ;; *) fail "list's compare hint lacks --db $DB: $hint" ;; esac

"$P" compare --db "$DB" --experiment "$EXP" --by engine.route_cache --metric udp6_output --metric "tx rate" > "$D/cmp.txt"
cat "$D/cmp.txt"
# Four rows of cells (the 2x2 of bind and connect), each with two metrics.
[ "$(grep -c "^socket.bind=" "$D/cmp.txt")" -eq 4 ] || fail "not four bind x connect cells"
[ "$(grep -c "udp6_output (cyc/tx pkt)" "$D/cmp.txt")" -eq 4 ] || fail "udp6_output is not in every cell"
# Connected sockets: the cached route saves a FIB lookup per datagram, so
# udp6_output costs more with route_cache=off. Three trials on a shared VM
# do not always prove it (one disturbed trial widens the interval), so the
# verdict must be "worse" or "no difference", never "better"; the JSON check
# below wants the mean change above 5%.
for b in false true; do
  [ -n "$SANITIZED" ] && break
  grep -A1 "^socket.bind=$b socket.connect=true " "$D/cmp.txt" | grep "udp6_output" \
    | grep -Eq "(worse|no difference)$" \
    || fail "bind=$b connect=true: route_cache=off has no worse-or-equal verdict for udp6_output"
done
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
"$P" compare --db "$DB" --experiment "$EXP" --by engine.route_cache --metric udp6_output --format json -o "$D/cmp.json"
"$PY" - "$D/cmp.json" "$SANITIZED" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
sanitized = sys.argv[2] == "sanitized"
assert doc["by"] == "engine.route_cache" and doc["values"] == ["on", "off"], doc["values"]
assert len(doc["rows"]) == 4, len(doc["rows"])
for row in doc["rows"]:
    m = row["metrics"][0]
    assert m["name"] == "udp6_output" and m["baseline"]["n"] == 3
    off = m["against"][0]
    # Three trials resolve a few percent on a quiet machine; on a loaded one
    # (or under ASan) a cell's interval can be wider than the effect. The
    # direction is required only where the measurement could show it; a
    # verdict against the design never passes.
    noisy = off["half_width_percent"] > 20
    if sanitized:
        continue
    if "connect=true" in row["cell"]:
        assert off["verdict"] in ("worse", "no difference") and (off["change_percent"] > 5 or noisy), row
    else:  # every datagram is looked up either way: the same work, within noise
        assert off["verdict"] == "no difference" or abs(off["change_percent"]) < 15 or noisy, row
print("json: 4 cells" + (" (directions not checked under sanitizers)" if sanitized else
                         ", connected ones costlier without the route cache"))
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
  esac
  "$P" run "$s" --db "$D/samples.db" --trials 2 --duration 0.3 > "$D/sample.txt" 2>&1 \
    || { cat "$D/sample.txt"; fail "$s did not run"; }
  grep -q "NOT BALANCED" "$D/sample.txt" && { cat "$D/sample.txt"; fail "$s: a ledger does not balance"; }
  echo "ran $s"
done
echo "ok"
