#!/usr/bin/env bash
# Builds the libFuzzer targets (the "fuzz" preset: clang, ASan + UBSan) and
# runs each for N seconds, one after the other, with a persistent corpus;
# prints, per target, executions, coverage and findings.
#
#   tests/fuzz/run.sh [--seconds N] [TARGET...]
#
# Corpus:   build/fuzz/corpus/<target>    (kept between runs; seeded each run
#           from tests/fuzz/seeds/<target>, tests/fuzz/regressions/<target>,
#           samples/ and ../shared/corpus/pcap)
# Findings: build/fuzz/findings/<target>/ (crash-*, leak-*, timeout-*, oom-*):
#           fix the bug, then move the input to tests/fuzz/regressions/<target>/
#           (replayed by ctest as fuzz_replay.<target>) and delete it here.
# Logs:     build/fuzz/logs/<target>.log
# History:  build/fuzz/history.tsv (date, target, seconds, execs, cov, ft);
#           the seconds accumulated per target are printed at the end.
# Exits 1 when any target has a finding.
set -euo pipefail
cd "$(dirname "$0")/../.."

ALL_TARGETS=(pcap_file_fuzz pcap_records_fuzz scenario_fuzz profile_text_fuzz store_fuzz packet_path_fuzz)
seconds=60
targets=()
usage() {
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  echo "Targets: ${ALL_TARGETS[*]} (default: all)"
}
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
    --seconds=*) seconds="${1#--seconds=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *)
      if [[ " ${ALL_TARGETS[*]} " != *" $1 "* ]]; then
        echo "run.sh: no fuzz target '$1' (targets: ${ALL_TARGETS[*]})" >&2; exit 2
      fi
      targets+=("$1"); shift ;;
  esac
done
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] ||
  { echo "run.sh: --seconds wants a whole number of seconds above 0, not '$seconds'" >&2; exit 2; }
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")

if ! command -v clang++ >/dev/null 2>&1; then
  echo "run.sh: clang++ is missing; scripts/setup.sh fuzz installs clang and libclang-rt-14-dev" >&2
  exit 2
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j2 --target "${targets[@]}"

B=build/fuzz
SHARED_PCAP=../shared/corpus/pcap
mkdir -p "$B/logs"
history="$B/history.tsv"
[ -s "$history" ] || printf 'date\ttarget\tseconds\texecs\tcov\tft\n' > "$history"

# Extra seed folders for a target, beside its corpus and its own seeds.
seed_dirs() {
  local t=$1 gen="$B/seeds/$1"
  for d in tests/fuzz/seeds/$t tests/fuzz/regressions/$t; do [ -d "$d" ] && echo "$d"; done
  case "$t" in
    pcap_file_fuzz|packet_path_fuzz)
      mkdir -p "$gen" && cp -f samples/*.pcap "$gen"/ && echo "$gen"
      [ -d "$SHARED_PCAP" ] && echo "$SHARED_PCAP" ;;
    pcap_records_fuzz)
      # The corpus captures' records behind pcap_records_fuzz's header selector.
      [ -d "$SHARED_PCAP" ] && python3 tests/fuzz/record_seeds.py "$gen" "$SHARED_PCAP"/* samples/*.pcap >/dev/null &&
        echo "$gen" ;;
    scenario_fuzz)
      mkdir -p "$gen" && cp -f samples/*.toml "$gen"/ && echo "$gen" ;;
  esac
  return 0
}

# Options per target: inputs up to the size of a real file of its kind;
# a time limit well above the slowest legitimate input under ASan.
options() {
  case "$1" in
    store_fuzz) echo "-max_len=400000 -timeout=30" ;;
    pcap_file_fuzz|pcap_records_fuzz|packet_path_fuzz) echo "-max_len=65536 -timeout=30" ;;
    *) echo "-max_len=16384 -timeout=20" ;;
  esac
}

rows=()
found_any=0
for t in "${targets[@]}"; do
  corpus="$B/corpus/$t" findings="$B/findings/$t" log="$B/logs/$t.log"
  mkdir -p "$corpus" "$findings"
  mapfile -t seeds < <(seed_dirs "$t")
  echo "== $t: ${seconds} s, corpus $corpus, seeds ${seeds[*]:-none}"
  start=$(date +%s)
  # shellcheck disable=SC2046
  "$B/tests/fuzz/$t" "$corpus" "${seeds[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/" $(options "$t") > "$log" 2>&1 || true
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  ran=$(( $(date +%s) - start ))  # also when it stopped early on a finding
  files=$(find "$corpus" -type f | wc -l)
  finds=$(find "$findings" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  [ "$finds" -eq 0 ] || found_any=1
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$ran" "${execs:-0}" "${cov:-0}" "${ft:-0}" >> "$history"
  rows+=("$(printf '%-18s %7s %12s %9s %7s %7s %8s %8s' "$t" "$ran" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$files" "$finds")")
  [ "$finds" -eq 0 ] || echo "   findings in $findings (log: $log)"
done

echo
printf '%-18s %7s %12s %9s %7s %7s %8s %8s\n' target seconds executions exec/s cov ft corpus findings
printf '%s\n' "${rows[@]}"
echo
echo "accumulated (from $history):"
awk -F'\t' 'NR > 1 { s[$2] += $3; e[$2] += $4 } END { for (t in s) printf "  %-18s %6d s  %12d executions\n", t, s[t], e[t] }' "$history" | sort
exit $found_any
