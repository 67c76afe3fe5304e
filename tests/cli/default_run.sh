#!/bin/sh
# The README's first command on a fresh store: it must exit 0 and print a
# balanced ledger (a run that prints "[balanced]" and then fails to store
# fails here). Every stored per-stage row, interval or trial total, holds
# no more idle calls or idle cycles than calls or cycles (snapshots read
# while the worker runs must be consistent).
#   default_run.sh PATHSCOPE DB
P=$1 DB=$2
rm -f "$DB" "$DB-wal" "$DB-shm"
out=$("$P" run --duration 1 --no-histograms --db "$DB" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "FAIL: pathscope run exited $rc"; exit 1; }
printf '%s\n' "$out" | grep -q "balanced\]" || { echo "FAIL: no balanced ledger"; exit 1; }
printf '%s\n' "$out" | grep -q "NOT BALANCED" && { echo "FAIL: the ledger does not balance"; exit 1; }
bad=$(python3 - "$DB" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT count(*) FROM stage_counters").fetchone()[0]
bad = db.execute("SELECT trial, seq, stage, calls, idle_calls, cycles, idle_cycles "
                 "FROM stage_counters WHERE idle_calls > calls OR idle_cycles > cycles "
                 "OR calls > 4611686018427387904 OR cycles > 4611686018427387904").fetchall()
print(rows if not bad else "bad rows: %r" % bad[:5])
PY
)
case $bad in
  ''|*bad*|0) echo "FAIL: stage_counters rows with idle above total, or none: ${bad:-no rows}"; exit 1 ;;
esac
echo "stage_counters: $bad rows, none with idle above total"
# What run printed from its own rows reads the same from the store: the
# ledger, latencies, path events and drops (run keeps its rows in memory).
part() { sed -n '/^received /,/^port /p'; }
from_run=$(printf '%s\n' "$out" | part)
from_show=$("$P" show 1 --db "$DB" | part)
[ -n "$from_run" ] || { echo "FAIL: no ledger in run's output"; exit 1; }
printf '%s\n' "$from_run" | grep -q "^path event" || { echo "FAIL: run printed no path events"; exit 1; }
[ "$from_run" = "$from_show" ] || {
  echo "FAIL: run and show differ:"; printf '%s\n' "$from_run" > /tmp/ps_run.$$; printf '%s\n' "$from_show" | diff /tmp/ps_run.$$ - ; rm -f /tmp/ps_run.$$; exit 1; }
echo "run's ledger, latencies, path events and drops read the same in show"
exit 0
