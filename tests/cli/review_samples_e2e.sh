#!/bin/sh
# The two reviews that need the newest parts of the engine, end to end into
# one store with fewer, shorter trials: the route-output micro-benchmark
# (fast path off, on, and with samples/route-output-rules.toml's custom rule)
# and the ILA request/response matrix (samples/ila-early-demux.toml). Checks
# what each run counted, not how fast it was.
#   review_samples_e2e.sh PATHSCOPE
set -eu
P=$1
D=$(mktemp -d /tmp/pathscope_reviews.XXXXXX)
trap 'rm -rf "$D"' EXIT
DB=$D/reviews.db
fail() { echo "FAIL: $*"; exit 1; }

bench() {  # label, then bench options
  label=$1; shift
  "$P" bench route-output --db "$DB" --trials 3 --calls 20000 --label "$label" "$@" > "$D/$label.txt" \
    || { cat "$D/$label.txt"; fail "bench $label did not run"; }
}
bench fp-off --fast-path off
bench fp-on --fast-path on
bench one-rule --fast-path on --rules samples/route-output-rules.toml
cat "$D/fp-on.txt"
# Path events per call: off walks the default rules (local miss, main hit);
# on looks main up once; a custom rule walks whatever the switch says.
grep -q "path events per call: fib_lookups 2.00, rule_layer_entries 1.00, rules_evaluated 2.00" "$D/fp-off.txt" || fail "fast path off: wrong rule work"
grep -q "path events per call: fib_lookups 1.00, rule_layer_entries 0.00, rules_evaluated 0.00" "$D/fp-on.txt" || fail "fast path on: the rules layer was entered"
grep -q "path events per call: fib_lookups 2.00, rule_layer_entries 1.00, rules_evaluated 3.00" "$D/one-rule.txt" || fail "custom rule: wrong rule work"
grep -q "stored as run" "$D/fp-on.txt" || fail "the bench stored no run"

# The bench runs compare like any runs, on their latency and path events.
"$P" compare fp-off fp-on --db "$DB" > "$D/cmp-bench.txt" || { cat "$D/cmp-bench.txt"; fail "compare of bench runs"; }
cat "$D/cmp-bench.txt"
grep -q "^route-output p50 " "$D/cmp-bench.txt" || fail "no route-output p50 verdict"
grep -Eq "^rule entries/look.* +1\.000 +0\.000 " "$D/cmp-bench.txt" || fail "rule entries/lookup not 1 -> 0"
if grep -q "^rx rate" "$D/cmp-bench.txt"; then fail "a bench run has no receive rate to compare"; fi

# The ILA matrix: 8 cells into the same store.
"$P" run samples/ila-early-demux.toml --db "$DB" --trials 2 --duration 0.4 > "$D/ila.txt" 2>&1 \
  || { cat "$D/ila.txt"; fail "the ILA sample did not run"; }
cat "$D/ila.txt"
[ "$(grep -c "engine.ila=" "$D/ila.txt")" -eq 8 ] || fail "the ILA matrix did not run 8 cells"
EXP=$(sed -n 's/^stored as experiment \([0-9a-f]*\) .*/\1/p' "$D/ila.txt")
[ -n "$EXP" ] || fail "no experiment id printed"
run_of() {  # the run id of a cell: early_demux value, ila value
  sed -n "s/^ *\([0-9]*\)  engine.early_demux=$1 engine.ila=$2 .*/\1/p" "$D/ila.txt"
}
check_cell() {  # early_demux, ila, expected demux hit %, translations expected (yes/no)
  id=$(run_of "$1" "$2")
  [ -n "$id" ] || fail "no run for early_demux=$1 ila=$2"
  "$P" show "$id" --db "$DB" > "$D/show-$id.txt"
  grep -q "\[balanced\]" "$D/show-$id.txt" || fail "run $id: ledger not balanced"
  grep -q "NOT BALANCED" "$D/show-$id.txt" && fail "run $id: a ledger does not balance"
  grep -Eq "^rr +[0-9]+ " "$D/show-$id.txt" || fail "run $id: no round-trip latency"
  grep -Eq "^rr rate +[0-9.]+ kT/s" "$D/show-$id.txt" || fail "run $id: no transaction rate"
  if [ -n "$3" ]; then
    grep -Eq "^demux hits +$3\.[0-9]+ %" "$D/show-$id.txt" \
      || { grep "demux" "$D/show-$id.txt"; fail "run $id (early_demux=$1 ila=$2): demux hits not $3%"; }
  fi
  case $4 in
    yes) grep -Eq "^(ila|nptv6)_translations +[1-9]" "$D/show-$id.txt" || fail "run $id: nothing translated" ;;
    no) if grep -Eq "^(ila|nptv6)_translations" "$D/show-$id.txt"; then fail "run $id: translated with ila=off"; fi ;;
  esac
  grep -q "rr_timeouts" "$D/show-$id.txt" && { grep rr_timeouts "$D/show-$id.txt"; echo "note: run $id had timeouts"; }
  return 0
}
# Early demux finds every request's socket (bar each client's first, which
# opens it) without translation and with ILA early; never with ILA late or
# NPTv6, which translate after the lookup.
check_cell on off 99 no
check_cell on early 99 yes
check_cell on late 0 yes
check_cell on nptv6 0 yes
check_cell off late "" yes

"$P" compare --db "$DB" --experiment "$EXP" --by engine.ila --metric "rr rate" --metric "rr p50" > "$D/cmp.txt"
cat "$D/cmp.txt"
[ "$(grep -c "rr rate (kT/s)" "$D/cmp.txt")" -eq 2 ] || fail "not one rr rate row per early_demux cell"
grep -q "engine.ila=late" "$D/cmp.txt" || fail "no late column"
# A metric only some runs have (demux hits: not where early demux is off) is
# judged where it exists; a metric asked twice is shown once.
"$P" compare --db "$DB" --experiment "$EXP" --by engine.early_demux --metric "demux hits" \
  --metric "rr rate" --metric "rr rate" > "$D/cmp-demux.txt" || { cat "$D/cmp-demux.txt"; fail "compare by early_demux"; }
cat "$D/cmp-demux.txt"
[ "$(grep -c "rr rate (kT/s)" "$D/cmp-demux.txt")" -eq 4 ] || fail "not one rr rate row per ila cell"
[ "$(grep -c "demux hits (%)" "$D/cmp-demux.txt")" -eq 4 ] || fail "not one demux hits row per ila cell"
echo "ok"
