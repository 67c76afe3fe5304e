#!/bin/sh
# The Path page's graph for Graphviz, from real runs: `export --format dot`
# writes a graph that dot renders, names every stage the packets took, and
# says the packets balance at every stage; with --base it writes the
# comparison, with the within-noise grey.
#   path_dot_e2e.sh PATHSCOPE WORKDIR
P=$1 W=$2
rm -rf "$W" && mkdir -p "$W" || exit 1
DB=$W/path.db
. "$(dirname "$0")/../support/skip.sh"
command -v dot >/dev/null || skip "Graphviz's dot is not installed (scripts/setup.sh installs graphviz)"
for label in base cand; do
  "$P" run --duration 0.5 --trials 2 --label $label --no-histograms --db "$DB" >"$W/run-$label.txt" 2>&1 ||
    { cat "$W/run-$label.txt"; echo "FAIL: pathscope run ($label) failed"; exit 1; }
done
out=$("$P" export cand --format dot -o "$W/path.dot" --db "$DB" 2>&1) ||
  { printf '%s\n' "$out"; echo "FAIL: export --format dot failed"; exit 1; }
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q "balanced at every stage" || { echo "FAIL: packets do not balance"; exit 1; }
dot -Tsvg "$W/path.dot" -o "$W/path.svg" || { echo "FAIL: dot -Tsvg refused the export"; exit 1; }
# Every stage the default scenario's packets take, and where they end.
for name in eth_rx eth_input ip6_input ip6_lookup ip6_forward ip6_local udp6_input txq_select eth_tx drop deliver wire "cyc/pkt" "drop: "; do
  grep -q "$name" "$W/path.svg" || { echo "FAIL: the SVG has no '$name'"; exit 1; }
done
echo "dot rendered $(grep -c '<g id="node' "$W/path.svg") nodes and $(grep -c '<g id="edge' "$W/path.svg") edges"
out=$("$P" export cand --base base --format dot -o "$W/compare.dot" --db "$DB" 2>&1) ||
  { printf '%s\n' "$out"; echo "FAIL: export --format dot --base failed"; exit 1; }
printf '%s\n' "$out"
dot -Tsvg "$W/compare.dot" -o "$W/compare.svg" || { echo "FAIL: dot -Tsvg refused the comparison"; exit 1; }
grep -q "within noise" "$W/compare.svg" || { echo "FAIL: the comparison does not say what grey means"; exit 1; }
# Two runs of one scenario: most edges are within noise (grey).
grey=$(grep -c 'color="#a0a0a0"' "$W/compare.dot")
[ "$grey" -gt 0 ] || { echo "FAIL: no edge within noise between two runs of one scenario"; exit 1; }
echo "comparison: $grey edges within noise"
"$P" export cand --base base --format csv -o - --db "$DB" >/dev/null 2>&1 &&
  { echo "FAIL: --base was accepted without --format dot"; exit 1; }
exit 0
