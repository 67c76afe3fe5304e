#!/bin/sh
# End to end, as the README shows it: two runs of the default scenario that
# differ in one setting, then compare, report in every format, export, and
# the files checked by real parsers.
#   report_e2e.sh PATHSCOPE PYTHON CHECK_FORMATS SPEEDSCOPE_SCHEMA NODE FLAME_SCRIPT_TEST
set -eu
P=$1 PY=$2 CHECK=$3 SCHEMA=$4 NODE=$5 FLAME_TEST=$6
D=$(mktemp -d /tmp/pathscope_e2e.XXXXXX)
trap 'rm -rf "$D"' EXIT
DB=$D/review.db
fail() { echo "FAIL: $*"; exit 1; }

"$P" run --db "$DB" --label burst32 --trials 3 --duration 0.5 > "$D/run1.txt"
"$P" run --db "$DB" --label burst64 --trials 3 --duration 0.5 --set engine.burst=64 > "$D/run2.txt"

"$P" compare burst32 burst64 --db "$DB" > "$D/compare.txt"
cat "$D/compare.txt"
grep -q "^rx rate  *Mpps" "$D/compare.txt" || fail "compare has no rx rate verdict"
grep -q "^ip6_lookup  *cyc/rx pkt" "$D/compare.txt" || fail "compare has no per-stage verdict"
grep -q "^ip6_lookup p99  *cyc/pkt@call" "$D/compare.txt" || fail "compare has no latency verdict"
grep -q "^task-clock  *ns/pkt" "$D/compare.txt" || fail "compare has no perf verdict"

"$P" report burst32 burst64 --db "$DB" > "$D/report.txt"
grep -q "^  +--set engine.burst=64" "$D/report.txt" || fail "the scenario difference is missing"
grep -q "^Cycles per received packet by stage" "$D/report.txt" || fail "no stage section"
grep -q "^Hottest functions" "$D/report.txt" || fail "no hottest functions"
awk 'length($0) > 80 { print "line " NR " has " length($0) " columns"; bad = 1 } END { exit bad }' \
  "$D/report.txt" || fail "the text report is wider than 80 columns"
for f in md html json; do "$P" report burst32 burst64 --db "$DB" --format $f -o "$D/report.$f"; done
"$P" report burst64 --db "$DB" --format html -o "$D/one-run.html"

"$P" export burst64 --db "$DB" --format speedscope -o "$D/burst64.speedscope.json"
"$P" export burst64 --db "$DB" --format folded -o "$D/burst64.folded"
"$P" export burst64 --db "$DB" --format csv --table trials -o "$D/trials.csv"
[ "$(wc -l < "$D/trials.csv")" -eq 4 ] || fail "trials.csv should have a header and 3 rows"
"$P" import folded "$D/burst64.folded" --db "$DB" --label refolded > /dev/null
"$P" export refolded --db "$DB" --format folded -o "$D/refolded.folded"
cmp "$D/burst64.folded" "$D/refolded.folded" || fail "folded -> store -> folded changed the stacks"

# A label means its latest run, and says which; label@N picks an older one.
"$P" run --db "$DB" --label burst32 --trials 1 --duration 0.3 > /dev/null
"$P" compare burst32@1 burst32 --db "$DB" > "$D/again.txt" 2> "$D/again.err" || fail "compare burst32@1 burst32"
grep -q "label 'burst32' names runs 1, 4; taking the latest, run 4" "$D/again.err" ||
  fail "compare does not say which run a repeated label took: $(cat "$D/again.err")"
"$P" compare burst64 burst64 --db "$DB" > /dev/null 2> "$D/self.err"
grep -q "are the same run (2)" "$D/self.err" || fail "compare of a run with itself says nothing"
# A stacks-only import against the capture it came from: their functions
# (import_e2e checks runs with nothing in common).
"$P" compare burst64 refolded --db "$DB" > "$D/functions.txt" 2>&1 ||
  fail "compare of a capture with its own folded stacks: $(cat "$D/functions.txt")"
grep -q "^Hottest functions (self share of cpu-time)" "$D/functions.txt" ||
  fail "compare of a capture with its own folded stacks lists no functions"

"$PY" "$CHECK" "$D/report.html" "$D/one-run.html" "$D/report.json" \
  "$D/burst64.speedscope.json" "$D/burst64.folded"
# Against speedscope's published schema; 77 (no schema) is the
# speedscope_schema test's to report as skipped.
"$PY" "$CHECK" --schema "$SCHEMA" "$D/burst64.speedscope.json" || [ $? -eq 77 ] ||
  fail "the speedscope export does not validate against speedscope's schema"
for graph in stages stacks; do
  NODE_PATH=/usr/share/nodejs "$NODE" "$FLAME_TEST" "$D/report.html" $graph ||
    [ $? -eq 77 ] || fail "the $graph flame graph's zoom or search does not work"
done
echo "report end to end: ok"
