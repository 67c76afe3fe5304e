#!/bin/sh
# compare --experiment --by --ministat on a real small experiment (the
# send-accounting sample, shortened): a ministat block for every cell and
# metric, each the very block `pathscope report BASE CAND` prints for the
# same two runs; the send_accounting setting stored with every cell; and the
# address-list sample's capture remade byte for byte by `pathscope frames`.
#   ministat_e2e.sh PATHSCOPE
set -eu
P=$1
D=$(mktemp -d /tmp/pathscope_ministat.XXXXXX)
trap 'rm -rf "$D"' EXIT
DB=$D/m.db
fail() { echo "FAIL: $*"; exit 1; }

# The capture samples/ifaddr-rcu-vs-rwlock.toml replays, remade with the
# command its header gives.
"$P" frames --to '[2001:db8:1::1]:9*4' --to '[2001:db8:1::1]:7' -o "$D/local.pcap"
cmp "$D/local.pcap" samples/ifaddr-local-udp.pcap \
  || fail "pathscope frames does not remake samples/ifaddr-local-udp.pcap"

"$P" run samples/udp6-tx-accounting.toml --db "$DB" --trials 3 --duration 0.3 > "$D/run.txt"
EXP=$(sed -n 's/^stored as experiment \([0-9a-f]*\) .*/\1/p' "$D/run.txt")
[ -n "$EXP" ] || { cat "$D/run.txt"; fail "no experiment id printed"; }

# Every cell stores the accounting it ran with among its variants.
for id in 1 2 3 4; do
  "$P" show "$id" --db "$DB" --no-histograms > "$D/show.txt"
  want=$(sed -n 's/^experiment .*send_accounting="\{0,1\}\([a-z]*\)"\{0,1\}.*/\1/p' "$D/show.txt")
  [ -n "$want" ] || { head -20 "$D/show.txt"; fail "run $id: no send_accounting in its cell"; }
  grep -q "^variants .*send_accounting=$want" "$D/show.txt" \
    || { head -20 "$D/show.txt"; fail "run $id: variants do not say send_accounting=$want"; }
done
echo "variants: every cell records its send_accounting"

"$P" compare --db "$DB" --experiment "$EXP" --by engine.send_accounting --ministat > "$D/cmp.txt"
cat "$D/cmp.txt"
# Two cells (socket_send single and burst), two metrics each (tx rate, all stages).
[ "$(grep -c "(ministat, " "$D/cmp.txt")" -eq 4 ] || fail "not 4 ministat blocks"
[ "$(grep -c "at 95.0% confidence" "$D/cmp.txt")" -eq 4 ] || fail "not 4 ministat verdicts"

# The body under the heading that starts with $2: ministat's block, up to the
# next blank line or the report's own verdict line under it.
block() { awk -v p="$2" 'index($0, p) == 1 { getline; on = 1; next } on && (/^$/ || /^pathscope.s verdict/) { exit } on' "$1"; }

cells=0
sed -n 's/^  \(.*\): engine.send_accounting=atomic run \([0-9]*\) engine.send_accounting=local run \([0-9]*\)$/\1 \2 \3/p' \
  "$D/cmp.txt" > "$D/cells.txt"
while read -r cell base cand; do
  "$P" report "$base" "$cand" --db "$DB" > "$D/report.txt"
  for pair in "tx rate|Transmit rate per trial" "all stages|Cycles per sent datagram per trial"; do
    metric=${pair%%|*} title=${pair#*|}
    block "$D/cmp.txt" "$cell: $metric (ministat, " > "$D/a.txt"
    block "$D/report.txt" "$title (ministat, " > "$D/b.txt"
    [ -s "$D/a.txt" ] || fail "$cell: no $metric block in compare"
    [ -s "$D/b.txt" ] || fail "runs $base $cand: no '$title' block in report"
    diff "$D/b.txt" "$D/a.txt" || fail "$cell $metric: compare's block differs from report $base $cand"
  done
  cells=$((cells + 1))
done < "$D/cells.txt"
[ "$cells" -eq 2 ] || fail "found $cells cells in the runs list, expected 2"
echo "ministat: compare's per-cell blocks are report's blocks for the same runs"

if "$P" compare --db "$DB" --experiment "$EXP" --by engine.send_accounting --ministat --format json \
     > "$D/err.txt" 2>&1; then fail "--ministat with json was accepted"; fi
grep -q "use it with --format text" "$D/err.txt" || { cat "$D/err.txt"; fail "unclear --ministat error"; }
echo "ministat_e2e: ok"
