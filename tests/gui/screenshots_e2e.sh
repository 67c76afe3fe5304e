#!/bin/sh
# Every page of pathscope-gui, rendered offscreen from a store filled by real
# runs: the default scenario, a two-run comparison, a four-queue skewed run,
# the bind x connect x route_cache matrix (3 short trials a cell) for the
# Experiments page, and a `perf record -g` profile of another program
# imported with `import perf` for the stack views. Each PNG must exist at the
# asked size with real content.
#   screenshots_e2e.sh PATHSCOPE PATHSCOPE_GUI OUT_DIR
set -eu
P=$1 G=$2 OUT=$3
D=$(mktemp -d /tmp/pathscope_shots.XXXXXX)
trap 'rm -rf "$D"' EXIT
DB=$D/shots.db
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$OUT"
export QT_QPA_PLATFORM=offscreen

"$P" run --db "$DB" --label base --trials 3 --duration 0.5 > /dev/null
"$P" run --db "$DB" --label burst64 --trials 3 --duration 0.5 --set engine.burst=64 > /dev/null
"$P" run --db "$DB" --label skewed --duration 0.5 --set port.wire.rx_queues=4 \
  --set workload.flows=1 > /dev/null
"$P" run samples/udp6-tx-bind-connect.toml --db "$DB" --trials 3 --duration 0.5 > "$D/matrix.txt"
grep -q "^stored as experiment " "$D/matrix.txt" || fail "the matrix stored no experiment: $(cat "$D/matrix.txt")"
if command -v perf > /dev/null 2>&1 &&
   perf record -q -g -F 499 -o "$D/p.data" -- "$P" routes --count 1000000 -o /dev/null \
     > /dev/null 2>&1; then
  perf script -i "$D/p.data" > "$D/p.txt" 2> /dev/null
  "$P" import perf "$D/p.txt" --db "$DB" --label profile > /dev/null
  profile=yes
elif [ "${CI:-}" = true ]; then
  fail "perf record is not available (scripts/setup.sh installs linux-perf)"
else
  echo "note: no perf here; the imported-profile screenshot is left out"
  profile=no
fi

shot() {  # shot NAME ARGS...
  name=$1
  shift
  "$G" "$DB" --size 1400x860 -o "$OUT/$name.png" "$@" > /dev/null 2> "$D/err" ||
    fail "$name: $(cat "$D/err")"
  [ -s "$OUT/$name.png" ] || fail "$name.png is empty"
  # PNG header: the size asked for.
  dims=$(od -An -tx1 -j16 -N8 "$OUT/$name.png" | tr -d ' \n')
  [ "$dims" = "00000578" ] || [ "$dims" = "000005780000035c" ] || fail "$name.png is not 1400x860 ($dims)"
  [ "$(wc -c < "$OUT/$name.png")" -gt 15000 ] || fail "$name.png looks blank"
}
for page in runs stages path flame stacks queues histograms timeseries traces; do
  shot "$page" --screenshot "$page" --run base
done
shot queues-skewed --screenshot queues --run skewed
shot compare --screenshot compare --baseline base --candidate burst64
shot experiments --screenshot experiments
if [ "$profile" = yes ]; then
  for page in stacks topdown bottomup callers; do
    shot "profile-$page" --screenshot "$page" --run profile
  done
fi
# A bad page or run is refused, naming it.
if "$G" "$DB" --screenshot nosuch -o "$D/x.png" --run base 2> "$D/err"; then fail "page nosuch accepted"; fi
grep -q "no page 'nosuch'" "$D/err" || fail "no clear message for a bad page"
# A comparison without its candidate says which option is missing.
set +e
"$G" "$DB" --screenshot compare --baseline base -o "$D/x.png" 2> "$D/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--screenshot compare without --candidate exited $rc, not 2"
grep -q -- "--candidate is missing" "$D/err" || fail "no clear message for a missing --candidate: $(cat "$D/err")"
# Neither run: refused (a picture of "select two runs" would pass for one).
set +e
"$G" "$DB" --screenshot compare -o "$D/x.png" 2> "$D/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--screenshot compare without runs exited $rc, not 2"
grep -q -- "--screenshot compare needs the two runs" "$D/err" || fail "no clear message for compare without runs: $(cat "$D/err")"
echo "screenshots of every page: ok ($OUT)"
